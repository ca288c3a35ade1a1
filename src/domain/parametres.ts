import { cycleDeVieParametresSchema } from './cycleDeVie.js';
import { TYPES_ACCEPTES, type TypeAccepte } from './documents.js';
import { z } from './zod.js';

/** Limits the web app checks before sending (the server checks them again), and what is switched on. */
export const parametresSchema = z.object({
  uploadMaxBytes: z.number(),
  maxFichiersParEnvoi: z.number(),
  /** Per housing request: at most this many documents, and this many bytes in all (UPLOAD_QUOTA_*). */
  quotaDocuments: z.object({ fichiers: z.number(), octets: z.number() }),
  typesAcceptes: z.record(z.enum(Object.keys(TYPES_ACCEPTES) as [TypeAccepte, ...TypeAccepte[]]), z.array(z.string())),
  /** The "Connexion avec Google" button shows only when Google sign-in is configured. */
  google: z.boolean(),
  /** The life cycle's durations (docs/produit.md « Cycle de vie d'une demande »). */
  cycleDeVie: cycleDeVieParametresSchema,
});
export type Parametres = z.infer<typeof parametresSchema>;

/** The sign-up lists: one city, one quartier, the district's streets. */
export const territoireSchema = z.object({ ville: z.string(), quartier: z.string(), rues: z.array(z.string()) });
export type Territoire = z.infer<typeof territoireSchema>;
