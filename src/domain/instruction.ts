/**
 * The managers' handling of a request (issue 12): private notes, the manager who follows it (« Suivie
 * par »), and the record of what managers did (the audit). Managers only: a resident never sees any of it.
 */
import { z } from './zod.js';

export const NOTE_MAX = 4000;

export const nouvelleNoteSchema = z.object({
  texte: z
    .string({ error: 'La note est obligatoire.' })
    .trim()
    .min(1, { error: 'La note est vide.' })
    .max(NOTE_MAX, { error: `La note dépasse ${NOTE_MAX} caractères.` }),
});
export type NouvelleNote = z.infer<typeof nouvelleNoteSchema>;

export const noteSchema = z.object({
  id: z.string(),
  texte: z.string(),
  auteur: z.string(),
  le: z.string(),
});
export type Note = z.infer<typeof noteSchema>;

export const suiviSchema = z.object({ suivre: z.boolean({ error: 'Indiquez « suivre » : true ou false.' }) });
export type ChangementSuivi = z.infer<typeof suiviSchema>;

/** Who follows the request: `moi` says whether it is the manager asking. */
export const suiviVueSchema = z.object({
  suiviePar: z.object({ id: z.string(), nom: z.string() }).nullable(),
  moi: z.boolean(),
});
export type SuiviVue = z.infer<typeof suiviVueSchema>;

/**
 * What the audit records: the action and, where it names one, the document — never a text a person wrote
 * nor personal data (the notes themselves stay in their table).
 */
export const ACTIONS_JOURNAL = {
  statut: 'a changé le statut',
  note: 'a ajouté une note',
  suivi: 'suit la demande',
  'fin-suivi': 'ne suit plus la demande',
  'document-consulte': 'a ouvert un document',
  'documents-zip': 'a téléchargé tous les documents',
  export: 'a exporté la liste',
  'revue-document': 'a vérifié un document',
  correction: 'a demandé des corrections',
  'corrections-faites': 'a indiqué avoir fait les corrections',
  'correction-close': 'a clôturé la demande de correction',
  etiquettes: 'a changé les étiquettes',
  'demande-modifiee': 'a modifié la demande',
} as const;
export type ActionJournal = keyof typeof ACTIONS_JOURNAL;

export const entreeJournalSchema = z.object({
  action: z.enum(Object.keys(ACTIONS_JOURNAL) as [ActionJournal, ...ActionJournal[]]),
  libelle: z.string(),
  par: z.string(),
  le: z.string(),
  /** What the action concerns, without personal data: a document's block, a status. */
  detail: z.string().optional(),
});
export type EntreeJournal = z.infer<typeof entreeJournalSchema>;
