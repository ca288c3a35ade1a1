import { z } from 'zod';
import type { DocumentsParCategorie } from './documents.js';
import { isValidNumeroUnique, normaliseEmail, normaliseNumeroUnique, NUMERO_UNIQUE_MESSAGE } from './normalise.js';
import {
  BAILLEUR_VALUES,
  LOGEMENT_ACTUEL_VALUES,
  NOMBRE_D_ENFANTS_MAX,
  QUARTIER_SOUHAITE_VALUES,
  QUARTIER_VALUES,
  SEXE_VALUES,
  SITUATION_FAMILIALE_VALUES,
  TYPE_DE_LOGEMENT_VALUES,
} from './options.js';
import type { Statut } from './statut.js';

export const TEXTE_COURT_MAX = 200;
export const TEXTE_LONG_MAX = 5000;

// Any message zod writes itself (one we did not word) is French too.
z.config(z.locales.fr());

/** A required text: one message when missing, another when of the wrong type. */
const requis = (message: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined || issue.input === null ? message : 'Ce champ doit être un texte.'),
});

/** Optional free text: trimmed, kept as typed, '' when absent. */
const texte = (max: number, champ: string) =>
  z
    .string({ error: `${champ} doit être un texte.` })
    .trim()
    .max(max, { error: `${champ} ne doit pas dépasser ${max} caractères.` })
    .default('');

/** Optional amount in euros: '' or null means unknown. */
const montant = (champ: string) =>
  z.preprocess(
    (v) => (v === '' || v === undefined ? null : typeof v === 'string' ? Number(v.replace(',', '.').replace(/\s/gu, '')) : v),
    z
      .number({ error: `${champ} doit être un nombre.` })
      .min(0, { error: `${champ} ne peut pas être négatif.` })
      .max(10_000_000, { error: `${champ} semble trop élevé.` })
      .nullable(),
  );

const choix = <T extends [string, ...string[]]>(valeurs: T, champ: string) =>
  z.enum(valeurs, { error: `${champ} : choix invalide.` });

export const numeroUniqueSchema = z
  .string(requis('Le numéro unique est obligatoire.'))
  .transform(normaliseNumeroUnique)
  .refine((v) => v.length > 0, { error: 'Le numéro unique est obligatoire.' })
  .refine(isValidNumeroUnique, { error: NUMERO_UNIQUE_MESSAGE });

/** A housing request as submitted (SPEC §3). Server-set fields (id, status, date) are not part of it. */
export const logementInputSchema = z.object({
  numeroUnique: numeroUniqueSchema,
  prenom: z
    .string(requis('Le prénom est obligatoire.'))
    .trim()
    .min(1, { error: 'Le prénom est obligatoire.' })
    .max(TEXTE_COURT_MAX, { error: `Le prénom ne doit pas dépasser ${TEXTE_COURT_MAX} caractères.` }),
  nom: texte(TEXTE_COURT_MAX, 'Le nom'),
  sexe: z.preprocess((v) => (v === '' || v === undefined ? null : v), choix(SEXE_VALUES, 'Le sexe').nullable()),
  dateDeNaissance: z.preprocess(
    (v) => (v === '' || v === undefined ? null : v),
    z.iso.date({ error: 'La date de naissance doit être une date valide (AAAA-MM-JJ).' }).nullable(),
  ),
  email: z
    .string(requis("L'adresse e-mail est obligatoire."))
    .transform(normaliseEmail)
    .refine((v) => v.length > 0, { error: "L'adresse e-mail est obligatoire." })
    .pipe(z.email({ error: "L'adresse e-mail n'est pas valide." }).max(254, { error: "L'adresse e-mail est trop longue." })),
  numeroDeTelephone: texte(30, 'Le numéro de téléphone'),
  adresse: texte(TEXTE_COURT_MAX, "L'adresse"),
  adresseComplement: texte(TEXTE_COURT_MAX, "Le complément d'adresse"),
  codePostal: texte(10, 'Le code postal'),
  ville: texte(TEXTE_COURT_MAX, 'La ville'),
  salaireBrut: montant('Le salaire brut'),
  salaireAvisImpot1: montant("Le revenu de l'avis d'imposition N-1"),
  salaireAvisImpot2: montant("Le revenu de l'avis d'imposition N-2"),
  situationFamiliale: choix(SITUATION_FAMILIALE_VALUES, 'La situation familiale').default('celibataire'),
  nombreDEnfants: z.coerce
    .number({ error: "Le nombre d'enfants doit être un nombre." })
    .int({ error: "Le nombre d'enfants doit être un nombre entier." })
    .min(0, { error: "Le nombre d'enfants ne peut pas être négatif." })
    .max(NOMBRE_D_ENFANTS_MAX, { error: `Le nombre d'enfants va de 0 à ${NOMBRE_D_ENFANTS_MAX}.` })
    .default(0),
  logementActuel: choix(LOGEMENT_ACTUEL_VALUES, 'Le logement actuel').default('sans domicile fixe'),
  typeDeLogementActuel: choix(TYPE_DE_LOGEMENT_VALUES, 'Le type de logement actuel').default('studio'),
  quartierActuel: z.preprocess(
    (v) => (v === '' || v === undefined ? null : v),
    choix(QUARTIER_VALUES, 'Le quartier actuel').nullable(),
  ),
  bailleurActuel: choix(BAILLEUR_VALUES, 'Le bailleur actuel').default('pah'),
  typeDeLogementSouhaite: choix(TYPE_DE_LOGEMENT_VALUES, 'Le type de logement souhaité').default('studio'),
  quartierSouhaite: z
    .array(choix(QUARTIER_SOUHAITE_VALUES, 'Le quartier souhaité'), { error: 'Les quartiers souhaités doivent être une liste.' })
    .transform((list) => [...new Set(list)])
    .default([]),
  motivations: z
    .string(requis('Les motivations sont obligatoires.'))
    .trim()
    .min(1, { error: 'Les motivations sont obligatoires.' })
    .max(TEXTE_LONG_MAX, { error: `Les motivations ne doivent pas dépasser ${TEXTE_LONG_MAX} caractères.` }),
  commentaires: texte(TEXTE_LONG_MAX, 'Les commentaires'),
});

export type LogementInput = z.input<typeof logementInputSchema>;
export type LogementCreation = z.output<typeof logementInputSchema>;

/** Defaults of the main request form (SPEC §3, first reading). */
export const LOGEMENT_FORM_DEFAULTS = {
  numeroUnique: '',
  prenom: '',
  nom: '',
  sexe: '',
  dateDeNaissance: '',
  email: '',
  numeroDeTelephone: '',
  adresse: '',
  adresseComplement: '',
  codePostal: '',
  ville: '',
  salaireBrut: '',
  salaireAvisImpot1: '',
  salaireAvisImpot2: '',
  situationFamiliale: 'celibataire',
  nombreDEnfants: 0,
  logementActuel: 'sans domicile fixe',
  typeDeLogementActuel: 'studio',
  quartierActuel: '',
  bailleurActuel: 'pah',
  typeDeLogementSouhaite: 'studio',
  quartierSouhaite: [],
  motivations: '',
  commentaires: '',
} as const satisfies Record<keyof LogementInput, unknown>;

/** One step of a request's history (issue 5): who changed it is told to managers only. */
export interface EvenementStatut {
  de: Statut | null;
  vers: Statut;
  date: string;
  par?: string;
}

/** A row of the managers' list: what a manager scans, not the whole file. */
export interface LigneDemande {
  id: string;
  numeroUnique: string;
  prenom: string;
  nom: string;
  email: string;
  numeroDeTelephone: string;
  typeDeLogementSouhaite: string;
  nombreDEnfants: number;
  dateDEnregistrement: string;
  statutDeLaDemande: Statut;
}

/** What anyone who knows the numéro sees. */
export interface LogementStatutVue {
  acces: 'statut';
  numeroUnique: string;
  statutDeLaDemande: Statut;
  dateDEnregistrement: string;
  historique?: EvenementStatut[];
}

/** What the private-link holder, the owner and managers see. */
export interface LogementComplet extends Omit<LogementCreation, 'numeroUnique'> {
  acces: 'complet';
  id: string;
  numeroUnique: string;
  statutDeLaDemande: Statut;
  dateDEnregistrement: string;
  documents: DocumentsParCategorie;
  historique?: EvenementStatut[];
}

export type LogementVue = LogementStatutVue | LogementComplet;

/** The 201 answer of a creation: the full request plus, once only, its private link. */
export interface LogementCree extends LogementComplet {
  accessKey: string;
  privateLink: string;
}

/** Per-field French messages from a zod error, keyed by the first path segment. */
export function fieldMessages(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : '_';
    fields[key] ??= issue.message;
  }
  return fields;
}
