// `npm start`: builds only when a source changed since the last build, then serves (dist/server/main.js,
// in this same process). `npm install` runs it with --prepare (the `prepare` script: a failed build
// does not fail the install), `npm run test:e2e` with --build-only. prebuild and postbuild call it with --begin-build / --end-build to stamp a build.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beginBuild, endBuild, staleReason } from './build-state.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = process.argv[2];

if (arg === '--begin-build') beginBuild(root);
else if (arg === '--end-build') endBuild(root);
else {
  const reason = staleReason(root);
  if (reason) {
    process.stderr.write(`Construction de l’application (${reason})…\n`);
    // The npm that runs this script, else the one on the PATH.
    const npm = process.env.npm_execpath;
    const result = npm
      ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
      : spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
    if (result.status !== 0) {
      process.stderr.write("La construction a échoué : voir les messages ci-dessus.\n");
      // During `npm install` (prepare) the dependencies stay installed: `npm start` builds again and says why.
      process.exit(arg === '--prepare' ? 0 : (result.status ?? 1));
    }
  }
  if (arg !== '--build-only' && arg !== '--prepare') await import(pathToFileURL(path.join(root, 'dist/server/main.js')).href);
}
