import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    // Component tests (src/web) declare `// @vitest-environment jsdom` themselves.
    setupFiles: ['test/console-guard.ts', 'src/web/test-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
