import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-lancer-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A program as the CLIs are written (cli/lancer.ts), in a folder whose path has a space. */
const dossier = path.join(dir, 'mes programmes');
fs.mkdirSync(dossier);
fs.writeFileSync(
  path.join(dossier, 'programme.ts'),
  `import { lancer } from ${JSON.stringify(path.join(ROOT, 'src/server/cli/lancer.ts'))};\nlancer(import.meta.url, async (args) => ({ code: 3, out: 'lancé ' + args.join(' ') }));\n`,
);
fs.writeFileSync(path.join(dossier, 'autre.ts'), `import './programme.ts';\nconsole.log('autre');\n`);
fs.symlinkSync(dossier, path.join(dir, 'lien'));

/** Runs a file with node (tsx for TypeScript): its exit code and what it wrote. */
function executer(fichier: string): { code: number; sortie: string } {
  try {
    const sortie = execFileSync(process.execPath, ['--import', 'tsx', fichier, 'un', 'deux'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, sortie };
  } catch (error) {
    const e = error as { status: number; stdout: string; stderr: string };
    return { code: e.status, sortie: e.stdout + e.stderr };
  }
}

describe('command-line programs (backup, restore, user, migrer-donnees) run when started', () => {
  it('from a path with a space, and through a link (a release folder reached by a link)', () => {
    for (const fichier of [path.join(dossier, 'programme.ts'), path.join(dir, 'lien', 'programme.ts')]) {
      expect(executer(fichier)).toEqual({ code: 3, sortie: 'lancé un deux\n' });
    }
  });

  it('and not when another program only imports them', () => {
    expect(executer(path.join(dossier, 'autre.ts'))).toEqual({ code: 0, sortie: 'autre\n' });
  });
});
