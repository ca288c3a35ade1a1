import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { beginBuild, endBuild, staleReason } from '../scripts/build-state.mjs';

// `npm start` builds only when the sources changed since the last build (scripts/start.mjs).
let root: string;

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** What `npm run build` leaves: prebuild, the outputs, postbuild. */
function build(): void {
  beginBuild(root);
  write('dist/server/main.js', '');
  write('dist/web/index.html', '');
  endBuild(root);
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-demarrage-'));
  write('package.json', '{}');
  write('src/server/main.ts', 'export {};');
  write('src/web/main.tsx', 'export {};');
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

describe('npm start: build or not', () => {
  it('builds when nothing was built, and not again while the sources are unchanged', () => {
    expect(staleReason(root)).not.toBeNull();
    build();
    expect(staleReason(root)).toBeNull();
    expect(staleReason(root)).toBeNull();
  });

  it('builds again when a source is touched, edited, added or removed', () => {
    build();
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(root, 'src/server/main.ts'), later, later);
    expect(staleReason(root)).toMatch(/sources ont changé/u);
    build();
    write('src/web/main.tsx', 'export const x = 1;');
    expect(staleReason(root)).not.toBeNull();
    build();
    write('src/domain/nouveau.ts', 'export {};');
    expect(staleReason(root)).not.toBeNull();
    build();
    fs.rmSync(path.join(root, 'src/domain/nouveau.ts'));
    expect(staleReason(root)).not.toBeNull();
    build();
    write('package.json', '{"name":"x"}');
    expect(staleReason(root)).not.toBeNull();
  });

  it('builds again when a source is replaced by an older copy', () => {
    build();
    const earlier = new Date(Date.now() - 3600_000);
    fs.utimesSync(path.join(root, 'src/server/main.ts'), earlier, earlier);
    expect(staleReason(root)).not.toBeNull();
  });

  it('ignores test files, and builds when an output is missing or the last build failed', () => {
    build();
    write('src/server/main.test.ts', 'export {};');
    expect(staleReason(root)).toBeNull();
    fs.rmSync(path.join(root, 'dist/web/index.html'));
    expect(staleReason(root)).toMatch(/absent/u);
    build();
    // A failed build: prebuild ran, postbuild did not.
    beginBuild(root);
    expect(staleReason(root)).not.toBeNull();
  });
});
