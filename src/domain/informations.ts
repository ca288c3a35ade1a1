import { z } from './zod.js';

/**
 * The police municipale's contact on the « Sécurité » page (POLICE_MUNICIPALE_* settings). Each part is
 * present only when configured; the whole object is absent when none is, and the page then says nothing of it.
 */
export const policeMunicipaleSchema = z.object({
  /** As written for people (« 04 42 00 00 00 »); the page dials its digits. */
  telephone: z.string().optional(),
  adresse: z.string().optional(),
  horaires: z.string().optional(),
});
export type PoliceMunicipale = z.infer<typeof policeMunicipaleSchema>;

/**
 * What the « Mentions légales » and « Données personnelles » pages state: who publishes the site and
 * answers for the data (LEGAL_* settings), and how long each kind of data is kept — read from the code's
 * own settings, so that the pages say what the server does. With them, the other public contact of this
 * installation: the police municipale's, for the « Sécurité » page.
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
  policeMunicipale: policeMunicipaleSchema.optional(),
});
export type InformationsLegales = z.infer<typeof informationsLegalesSchema>;
