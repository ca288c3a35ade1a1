/**
 * Messages between the town hall and the applicant (issue 12 point 5; docs/produit.md « Messages »): one
 * thread per request, read and written by the applicant (private link or owning account) and by managers.
 */
import { documentInfoSchema } from './documents.js';
import { z } from './zod.js';

export const MESSAGE_MAX = 4000;
/** Files one message may carry (PDF, JPEG, PNG, checked like the request's documents and counted in its quota). */
export const PIECES_PAR_MESSAGE_MAX = 5;

export const nouveauMessageSchema = z.object({
  texte: z
    .string({ error: 'Le message est obligatoire.' })
    .trim()
    .min(1, { error: 'Le message est vide.' })
    .max(MESSAGE_MAX, { error: `Le message dépasse ${MESSAGE_MAX} caractères.` }),
});
export type NouveauMessage = z.infer<typeof nouveauMessageSchema>;

/** `de`: who wrote it — the town hall (a manager, named to managers only) or the applicant. */
export const messageSchema = z.object({
  id: z.string(),
  de: z.enum(['mairie', 'demandeur']),
  /** The manager's name, for managers; absent for the applicant. */
  auteur: z.string().optional(),
  texte: z.string(),
  le: z.string(),
  /** Whether the other side has read it. */
  lu: z.boolean(),
  /** Its attachments, opened like the request's documents. */
  pieces: z.array(documentInfoSchema.pick({ id: true, fileUrl: true, name: true, type: true, size: true })),
});
export type Message = z.infer<typeof messageSchema>;
