/**
 * Requests for corrections and the review of documents (docs/produit.md « Corrections et vérification des
 * documents »): a manager asks the applicant to correct the request, with a reason and the documents to
 * replace; the applicant replaces them and says « Corrections faites »; a manager closes it once checked.
 */
import { AVIS_VALUES } from './documents.js';
import { z } from './zod.js';

export const MOTIF_CORRECTION_MAX = 2000;
export const MOTIF_AVIS_MAX = 500;
/** Documents one request for corrections may name (the quota of documents of a request). */
export const DOCUMENTS_PAR_CORRECTION_MAX = 50;

const motifAvis = z
  .string({ error: 'Le motif doit être un texte.' })
  .trim()
  .min(1, { error: 'Indiquez pourquoi ce document est à remplacer.' })
  .max(MOTIF_AVIS_MAX, { error: `Le motif dépasse ${MOTIF_AVIS_MAX} caractères.` });

/** A manager's review of one document: accepted, to replace (with the reason the applicant will read), or none. */
export const avisDocumentSchema = z.discriminatedUnion(
  'avis',
  [
    z.object({ avis: z.literal('a-remplacer'), motif: motifAvis }),
    z.object({ avis: z.literal('accepte') }),
    z.object({ avis: z.literal(null) }),
  ],
  { error: `« avis » vaut ${AVIS_VALUES.join(', ')} ou null.` },
);
export type AvisDocument = z.infer<typeof avisDocumentSchema>;

export const nouvelleCorrectionSchema = z.object({
  motif: z
    .string({ error: 'Expliquez ce qu’il faut corriger.' })
    .trim()
    .min(1, { error: 'Expliquez ce qu’il faut corriger.' })
    .max(MOTIF_CORRECTION_MAX, { error: `Le motif dépasse ${MOTIF_CORRECTION_MAX} caractères.` }),
  /** The documents to replace, each with its reason. */
  documents: z
    .array(z.object({ id: z.uuid({ error: "Ce document n’existe pas pour cette demande." }), motif: motifAvis }), { error: 'La liste des documents est invalide.' })
    .max(DOCUMENTS_PAR_CORRECTION_MAX, { error: `Au plus ${DOCUMENTS_PAR_CORRECTION_MAX} documents par demande de correction.` })
    .default([]),
});
export type NouvelleCorrection = z.infer<typeof nouvelleCorrectionSchema>;

export const ETATS_CORRECTION = { demandee: 'Corrections demandées', faite: 'Corrections faites' } as const;
export type EtatCorrection = keyof typeof ETATS_CORRECTION;
export const ETAT_CORRECTION_VALUES = Object.keys(ETATS_CORRECTION) as [EtatCorrection, ...EtatCorrection[]];

/** The open request for corrections, as the applicant and the managers read it. */
export const correctionSchema = z.object({
  etat: z.enum(ETAT_CORRECTION_VALUES),
  motif: z.string(),
  demandeeLe: z.string(),
  faiteLe: z.string().nullable(),
});
export type Correction = z.infer<typeof correctionSchema>;
