import { enArrierePlan } from '../worker/index.js';
import type { Personne } from './motsDePasse.js';

/**
 * Too easy to guess (motsDePasse.ts): the 49,000 most common passwords, French words and names, keyboard
 * walks, sequences, repetitions, the district, and, when known, the person's own e-mail and names.
 */
export function isCommonPassword(password: string, personne?: Personne): Promise<boolean> {
  // On the background thread: its word lists (~50 MB once read) live there, and leave with it when idle.
  return enArrierePlan('motDePasseTropFacile', password, personne ?? {});
}
