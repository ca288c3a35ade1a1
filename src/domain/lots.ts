/**
 * Bulk work on the managers' list (issue 12 point 7; docs/produit.md « Travail par lot »): the chosen rows, or
 * every request matching the list's filter, get one action — a new status (one e-mail each, through the outbox),
 * « Suivre », « Confier à… » a colleague, or a label — run by the server while the list shows its progress.
 */
import { gestionnaireIdSchema } from './instruction.js';
import { listeQuerySchema, MOTIF_MAX, numeroUniqueParamSchema, STATUTS_AVEC_MOTIF, avecMotif, type ListeQuery } from './demande.js';
import { STATUTS } from './statut.js';
import { z } from './zod.js';

/** The most requests one bulk action may touch. */
export const LOT_MAX = 1000;

const selectionSchema = z.discriminatedUnion(
  'mode',
  [
    z.object({
      mode: z.literal('numeros'),
      numeros: z
        .array(numeroUniqueParamSchema, { error: 'Choisissez les demandes.' })
        .min(1, { error: 'Choisissez au moins une demande.' })
        .max(LOT_MAX, { error: `Au plus ${LOT_MAX} demandes à la fois.` }),
    }),
    z.object({
      mode: z.literal('filtre'),
      /** The list's query string: every request it matches. */
      requete: z
        .string({ error: 'Le filtre doit être un texte.' })
        .max(1000, { error: 'Le filtre est trop long.' })
        .transform((texte, ctx): ListeQuery => {
          const lue = listeQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(texte)));
          if (!lue.success) {
            ctx.addIssue({ code: 'custom', message: 'Ce filtre ne décrit pas une liste valable.' });
            return z.NEVER;
          }
          return lue.data;
        }),
      /** Requests of the filter left out (unticked one by one after choosing them all). */
      sauf: z
        .array(numeroUniqueParamSchema, { error: 'Les demandes laissées de côté sont une liste de numéros.' })
        .max(LOT_MAX, { error: `Au plus ${LOT_MAX} demandes laissées de côté.` })
        .default([]),
    }),
  ],
  { error: 'La sélection doit être « numeros » ou « filtre ».' },
);

const actionSchema = z.discriminatedUnion(
  'type',
  [
    z
      .object({
        type: z.literal('statut'),
        statut: z.enum(STATUTS, { error: `Statut inconnu : choisissez parmi ${STATUTS.join(', ')}.` }),
        motif: z
          .string({ error: 'Le motif doit être un texte.' })
          .trim()
          .max(MOTIF_MAX, { error: `Le motif ne doit pas dépasser ${MOTIF_MAX} caractères.` })
          .optional(),
      })
      .refine((a) => !a.motif || avecMotif(a.statut), {
        error: `Un motif ne peut accompagner que les statuts ${STATUTS_AVEC_MOTIF.map((s) => `« ${s} »`).join(' et ')}.`,
        path: ['motif'],
      }),
    z.object({ type: z.literal('suivre') }),
    /** « Confier à… »: the colleague follows them (one e-mail tells them of the whole action). */
    z.object({ type: z.literal('confier'), gestionnaireId: gestionnaireIdSchema }),
    z.object({ type: z.literal('etiquette'), id: z.uuid({ error: 'Cette étiquette n’existe pas.' }) }),
  ],
  { error: 'L’action doit être « statut », « suivre », « confier » ou « etiquette ».' },
);

export const nouveauLotSchema = z.object({ selection: selectionSchema, action: actionSchema });
export type NouveauLot = z.input<typeof nouveauLotSchema>;
export type LotDemande = z.output<typeof nouveauLotSchema>;

/**
 * A bulk action's progress: `faits` changed, `inchanges` already so, `completes` left as they were by a label
 * addition (they already carry ETIQUETTES_PAR_DEMANDE_MAX labels), `echecs` gone meanwhile (erased, withdrawn);
 * `interrompu` (with `fini`) when the server stopped before the last request: the ones done stay done.
 */
export const etatLotSchema = z.object({
  id: z.string(),
  total: z.number(),
  faits: z.number(),
  inchanges: z.number(),
  completes: z.number(),
  echecs: z.number(),
  fini: z.boolean(),
  interrompu: z.boolean().optional(),
});
export type EtatLot = z.infer<typeof etatLotSchema>;
