// The options `npm start` gives Node.js (package.json `scripts.start`, before scripts/start.mjs): the benches start the
// server with them, and the systemd unit of docs/deploy.md must give the same (scripts/verifier-deploiement.ts checks).
import fs from 'node:fs';
import path from 'node:path';

/** `['--max-semi-space-size=32']` for `node --max-semi-space-size=32 scripts/start.mjs`. */
export function drapeauxNode(root) {
  const start = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  return drapeauxAvant(start);
}

/** The `--` options of a `node … scripts/start.mjs` command line, in their order. */
export function drapeauxAvant(ligne) {
  const mots = ligne.trim().split(/\s+/u);
  const script = mots.findIndex((m) => m.endsWith('scripts/start.mjs'));
  if (script < 1) throw new Error(`not a « node … scripts/start.mjs » command: ${ligne}`);
  return mots.slice(1, script).filter((m) => m.startsWith('--'));
}
