// Whether dist/ was built from the sources as they are now (plain JavaScript: `npm start` runs it before
// anything is compiled). The build's inputs are fingerprinted by path, size and modification time; a
// successful `npm run build` records the fingerprint its sources had when it began (prebuild, postbuild),
// and `npm start` rebuilds only when it differs: a source edited, added, removed, replaced by an older copy.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Folders and files the build reads (tests left out: no build reads them). */
const INPUT_DIRS = ['src', 'scripts'];
const INPUT_FILES = ['package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.server.json', 'vite.config.ts'];
const SKIPPED = /\.test\.tsx?$|(^|\/)test-setup\.ts$/u;
/** What the server needs to exist in dist/ (the web app is optional to the server, but part of the build). */
const OUTPUTS = ['dist/server/main.js', 'dist/web/index.html'];

export const STAMP = 'dist/.build-stamp';
const PENDING = 'dist/.build-stamp.pending';

function walk(root, dir, out) {
  let entries;
  try {
    entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(root, rel, out);
    else if (entry.isFile() && !SKIPPED.test(rel)) out.push(rel);
  }
}

/** The fingerprint of the build's inputs under `root`. */
export function fingerprint(root) {
  const files = [...INPUT_FILES];
  for (const dir of INPUT_DIRS) walk(root, dir, files);
  files.sort();
  const hash = createHash('sha256');
  for (const rel of files) {
    let stat;
    try {
      stat = fs.statSync(path.join(root, rel));
    } catch {
      continue;
    }
    hash.update(`${rel}\0${stat.size}\0${Math.trunc(stat.mtimeMs)}\n`);
  }
  return hash.digest('hex');
}

/** Why dist/ must be built again, or null when it is up to date. */
export function staleReason(root) {
  for (const output of OUTPUTS) if (!fs.existsSync(path.join(root, output))) return `${output} est absent`;
  let stamp;
  try {
    stamp = fs.readFileSync(path.join(root, STAMP), 'utf8').trim();
  } catch {
    return "aucune construction n’est enregistrée";
  }
  return stamp === fingerprint(root) ? null : 'des sources ont changé depuis la dernière construction';
}

/** prebuild: the fingerprint of the sources as the build begins (an edit during the build is seen next time). */
export function beginBuild(root) {
  fs.mkdirSync(path.join(root, 'dist'), { recursive: true });
  fs.rmSync(path.join(root, STAMP), { force: true });
  fs.writeFileSync(path.join(root, PENDING), fingerprint(root));
}

/** postbuild (the build succeeded): that fingerprint becomes the stamp. */
export function endBuild(root) {
  fs.renameSync(path.join(root, PENDING), path.join(root, STAMP));
}
