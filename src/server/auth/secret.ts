import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';

/** The secret that signs sessions and e-mail links: AUTH_SECRET, else one generated once and kept in DATA_DIR. */
export function authSecret(config: Config): string {
  if (config.authSecret) return config.authSecret;
  const file = path.join(config.dataDir, 'auth-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    return creerSecret(file);
  }
}

/**
 * Writes a new secret at `file` unless one is there, and answers the one that is. Written whole under a name of its
 * own, then linked into place: two instances starting at once on one DATA_DIR both end with the first one's secret
 * (the second finds the name taken), and neither ever reads a half-written file.
 */
export function creerSecret(file: string): string {
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(temp, randomBytes(48).toString('base64url'), { mode: 0o600, flag: 'wx', flush: true });
  try {
    fs.linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return fs.readFileSync(file, 'utf8').trim();
}
