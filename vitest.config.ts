import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'test/**/*.test.ts'],
    // Component tests (src/web) declare `// @vitest-environment jsdom` themselves.
    setupFiles: ['test/console-guard.ts', 'src/web/test-setup.ts'],
    // PostgreSQL: one migrated database that each test app copies (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    // One module graph per worker, not one per test file: each file still builds its own app on its own
    // database (test/helpers.ts), and every stub is undone after its test, but the app's modules are imported
    // once. On the 2-core CI machines this takes the suite from ~620 s of CPU to ~245 s.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
