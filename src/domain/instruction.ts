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

/** The colleague a request is given to (« Confier à… »): a manager's or an admin's account id. */
export const gestionnaireIdSchema = z
  .string({ error: 'Choisissez le gestionnaire à qui confier la demande.' })
  .trim()
  .min(1, { error: 'Choisissez le gestionnaire à qui confier la demande.' })
  .max(200, { error: 'Ce compte n’est pas celui d’un gestionnaire.' });
export const confierSchema = z.object({ gestionnaireId: gestionnaireIdSchema });
export type Confier = z.infer<typeof confierSchema>;

/** One of the managers and admins a request may be given to: their id and « Prénom Nom », never their e-mail. */
export const gestionnaireSchema = z.object({ id: z.string(), nom: z.string() });
export type Gestionnaire = z.infer<typeof gestionnaireSchema>;

/**
 * What the audit records: the action and, where it names one, the document — never a text a person wrote
 * nor personal data (the notes themselves stay in their table).
 */
export const ACTIONS_JOURNAL = {
  statut: 'a changé le statut',
  'statut-annule': 'a annulé le changement de statut',
  note: 'a ajouté une note',
  suivi: 'suit la demande',
  'fin-suivi': 'ne suit plus la demande',
  /** Its detail: the colleague's name (stored as their account id, named when read). */
  confie: 'a confié la demande à',
  'document-consulte': 'a ouvert un document',
  'documents-zip': 'a téléchargé tous les documents',
  'donnees-zip': 'a téléchargé les données de la demande (zip)',
  attestation: 'a téléchargé l’attestation d’enregistrement',
  export: 'a exporté la liste',
  'revue-document': 'a vérifié un document',
  correction: 'a demandé des corrections',
  'corrections-faites': 'a indiqué avoir fait les corrections',
  'correction-close': 'a clôturé la demande de correction',
  etiquettes: 'a changé les étiquettes',
  'demande-modifiee': 'a modifié la demande',
  /** Its detail: the status it went back to. */
  reactivee: 'a réactivé la demande',
} as const;
export type ActionJournal = keyof typeof ACTIONS_JOURNAL;

export const entreeJournalSchema = z.object({
  action: z.enum(Object.keys(ACTIONS_JOURNAL) as [ActionJournal, ...ActionJournal[]]),
  libelle: z.string(),
  par: z.string(),
  le: z.string(),
  /** What the action concerns, without personal data: a document's block, a status, the colleague given the request. */
  detail: z.string().optional(),
});
export type EntreeJournal = z.infer<typeof entreeJournalSchema>;

/** The export list's formats, and how many of the latest exports the managers see. */
export const FORMATS_EXPORT = ['csv', 'xlsx'] as const;
export type FormatExport = (typeof FORMATS_EXPORT)[number];
export const DERNIERS_EXPORTS_MAX = 20;

/**
 * An export's audit detail: its format and how many columns, never its search (which may hold a name) — « xlsx,
 * 6 colonnes ». `lireDetailExport` reads it back (null for an export recorded before the detail was).
 */
export function detailExport(format: FormatExport, colonnes: number): string {
  return `${format}, ${colonnes} ${colonnes > 1 ? 'colonnes' : 'colonne'}`;
}
export function lireDetailExport(detail: string | null): { format: FormatExport; colonnes: number } | null {
  const lu = /^(csv|xlsx), (\d+) colonnes?$/u.exec(detail ?? '');
  return lu ? { format: lu[1] as FormatExport, colonnes: Number(lu[2]) } : null;
}

/** One of the latest exports of the list: who (the manager's name), when, which format, how many columns. */
export const exportJournaliseSchema = z.object({
  par: z.string(),
  le: z.string(),
  format: z.enum(FORMATS_EXPORT).nullable(),
  colonnes: z.number().int().nullable(),
});
export type ExportJournalise = z.infer<typeof exportJournaliseSchema>;
