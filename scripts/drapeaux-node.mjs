// The options `npm start` gives Node.js (package.json `scripts.start`, before scripts/start.mjs): the benches start the
// server with them, and the systemd unit of docs/deploy.md must give the same (scripts/verifier-deploiement.ts checks).
import fs from 'node:fs';
import path from 'node:path';

/**
 * `['--max-semi-space-size=32']` for `node --max-semi-space-size=32 scripts/start.mjs`; none for a checkout whose
 * `start` does not run scripts/start.mjs through node (an older one, started by a bench for its "before" figures).
 */
export function drapeauxNode(root) {
  const start = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).scripts?.start ?? '';
  return drapeauxAvant(start) ?? [];
}

/**
 * The words between `node` and scripts/start.mjs of a command line, in their order (an option's separate value
 * included), or null when it is not `node … scripts/start.mjs` (no quotes, no shell syntax).
 */
export function drapeauxAvant(ligne) {
  const mots = ligne.trim().split(/\s+/u);
  const script = mots.indexOf('scripts/start.mjs');
  if (script < 1 || !/(^|\/)node$/u.test(mots[0]) || mots.slice(1).some((m) => /["'`$;&|<>]/u.test(m))) return null;
  return mots.slice(1, script);
}
