import { z } from './zod.js';

/**
 * What the « Mentions légales » and « Données personnelles » pages state: who publishes the site and
 * answers for the data (LEGAL_* settings), and how long each kind of data is kept — read from the code's
 * own settings, so that the pages say what the server does.
 */
export const informationsLegalesSchema = z.object({
  editeur: z.string(),
  adresse: z.string(),
  contact: z.string(),
  directeurPublication: z.string(),
  hebergeur: z.string(),
  dpo: z.string(),
  durees: z.object({
    /** A resident's session: ends after this many days without a visit, and at the latest after the second figure. */
    sessionHabitantJours: z.number(),
    sessionHabitantMaxJours: z.number(),
    /** A manager's session: minutes without activity, hours at most. */
    sessionGestionMinutes: z.number(),
    sessionGestionMaxHeures: z.number(),
    /** The trace of a sent e-mail (recipient and subject; its text is erased once sent). */
    traceMailJours: z.number(),
  }),
});
export type InformationsLegales = z.infer<typeof informationsLegalesSchema>;
