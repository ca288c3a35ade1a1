import { hash, randomBytes } from 'node:crypto';
import { PREFIXE_CLE_OPEN311 } from '../../../domain/open311.js';

/** A new API key: a recognisable prefix, then 256 random bits (base64url). Shown once; never stored. */
export function nouvelleCleApi(): string {
  return `${PREFIXE_CLE_OPEN311}${randomBytes(32).toString('base64url')}`;
}

/**
 * What the database keeps of a key: its SHA-256. A key carries 256 random bits, so no salt or slow hash is
 * needed (nothing to guess from a copy of the table), and a posted key is found by its hash through the index.
 */
export function hashCleApi(cle: string): string {
  return hash('sha256', cle, 'hex');
}
