import { z } from './zod.js';

/** What every searchable, paged list takes (the managers' list, the accounts' list). */

export const RECHERCHE_MAX = 200;

/** The words typed in a search box: trimmed, bounded. */
export const rechercheSchema = z
  .string({ error: 'La recherche doit être un texte.' })
  .trim()
  .max(RECHERCHE_MAX, { error: 'La recherche est trop longue.' })
  .default('');

/** A page number, from 1. */
export const numeroDePageSchema = z.coerce
  .number({ error: 'La page doit être un nombre.' })
  .int({ error: 'La page doit être un nombre entier.' })
  .min(1, { error: 'Les pages commencent à 1.' })
  .max(1_000_000, { error: 'Cette page est trop loin.' })
  .default(1);
