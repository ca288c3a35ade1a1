import { estCloturee, EXPIRATIONS } from './cycleDeVie.js';
import { erreurDateDeNaissance, formatJour, formatJourCivil } from './dates.js';
import { correctionSchema, ETAT_CORRECTION_VALUES, type EtatCorrection } from './corrections.js';
import { documentsParCategorieSchema } from './documents.js';
import { compacter, foldForSearch, isValidNumeroUnique, normaliseEmail, normaliseNumeroUnique, NUMERO_UNIQUE_MESSAGE } from './normalise.js';
import {
  BAILLEUR_VALUES,
  BAILLEURS,
  labelOf,
  LOGEMENTS_ACTUELS,
  NOMBRES_D_ENFANTS,
  QUARTIER_OPTIONS,
  QUARTIERS_SOUHAITES,
  SEXES,
  SITUATIONS_FAMILIALES,
  TYPES_DE_LOGEMENT,
  type Option,
  LOGEMENT_ACTUEL_VALUES,
  NOMBRE_D_ENFANTS_MAX,
  QUARTIER_SOUHAITE_VALUES,
  QUARTIER_VALUES,
  SEXE_VALUES,
  SITUATION_FAMILIALE_VALUES,
  TYPE_DE_LOGEMENT_VALUES,
} from './options.js';
import { numeroDePageSchema, rechercheSchema } from './pagination.js';
import { aLaPremiereUtilisation } from './paresseux.js';
import { accord } from './pluriel.js';
import { isStatut, STATUT_INITIAL, STATUTS, type Statut } from './statut.js';
import { z } from './zod.js';

export const TEXTE_COURT_MAX = 200;
export const TEXTE_LONG_MAX = 5000;

/** A required text: one message when missing, another when of the wrong type. */
const requis = (message: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined || issue.input === null ? message : 'Ce champ doit être un texte.'),
});

/** Optional free text: trimmed, kept as typed, '' when absent. */
const texte = (max: number, champ: string, { pluriel = false } = {}) => {
  const doit = pluriel ? 'doivent' : 'doit';
  return z
    .string({ error: `${champ} ${doit} être un texte.` })
    .trim()
    .max(max, { error: `${champ} ne ${doit} pas dépasser ${max} caractères.` })
    .default('');
};

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

/** A numéro unique in a path: normalised, then checked (`400 INVALID_NUMERO` when it is not one). */
export const numeroUniqueParamSchema = z
  .string()
  .transform(normaliseNumeroUnique)
  .refine(isValidNumeroUnique, { error: NUMERO_UNIQUE_MESSAGE, params: { code: 'INVALID_NUMERO' } });
export const numeroUniqueParamsSchema = z.object({ numeroUnique: numeroUniqueParamSchema });

/** A housing request as submitted (docs/produit.md « La demande »). Server-set fields (id, status, date) are not part of it. */
export const demandeSaisieSchema = z.object({
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
    z.iso
      .date({ error: 'La date de naissance doit être une date valide (JJ/MM/AAAA).' })
      .superRefine((d, ctx) => {
        const erreur = erreurDateDeNaissance(d);
        if (erreur) ctx.addIssue({ code: 'custom', message: erreur });
      })
      .nullable(),
  ),
  email: z
    .string(requis("L’adresse e-mail est obligatoire."))
    .transform(normaliseEmail)
    .refine((v) => v.length > 0, { error: "L’adresse e-mail est obligatoire." })
    .pipe(z.email({ error: "L’adresse e-mail n’est pas valide." }).max(254, { error: "L’adresse e-mail est trop longue." })),
  numeroDeTelephone: texte(30, 'Le numéro de téléphone'),
  adresse: texte(TEXTE_COURT_MAX, "L’adresse"),
  adresseComplement: texte(TEXTE_COURT_MAX, "Le complément d’adresse"),
  codePostal: texte(10, 'Le code postal'),
  ville: texte(TEXTE_COURT_MAX, 'La ville'),
  salaireBrut: montant('Le salaire brut'),
  salaireAvisImpot1: montant("Le revenu de l’avis d’imposition N-1"),
  salaireAvisImpot2: montant("Le revenu de l’avis d’imposition N-2"),
  situationFamiliale: choix(SITUATION_FAMILIALE_VALUES, 'La situation familiale').default('celibataire'),
  nombreDEnfants: z.coerce
    .number({ error: "Le nombre d’enfants doit être un nombre." })
    .int({ error: "Le nombre d’enfants doit être un nombre entier." })
    .min(0, { error: "Le nombre d’enfants ne peut pas être négatif." })
    .max(NOMBRE_D_ENFANTS_MAX, { error: `Le nombre d’enfants va de 0 à ${NOMBRE_D_ENFANTS_MAX}.` })
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
  commentaires: texte(TEXTE_LONG_MAX, 'Les commentaires', { pluriel: true }),
});

export type DemandeSaisie = z.input<typeof demandeSaisieSchema>;
export type DemandeCreation = z.output<typeof demandeSaisieSchema>;

/**
 * The applicant's corrections to a request already submitted: every field but the numéro unique, which
 * names the request (docs/produit.md « Modifier sa demande »).
 */
export const demandeModificationSchema = demandeSaisieSchema.omit({ numeroUnique: true });
export type DemandeModification = z.output<typeof demandeModificationSchema>;
/** The fields a modification may change, in the order of the form. */
export const CHAMPS_MODIFIABLES = Object.keys(demandeModificationSchema.shape) as (keyof DemandeModification)[];

/** Whether the request still takes documents: not once closed (Attribué, Refusé, Radiée; a struck-off one again once reactivated). */
export function recoitDesDocuments(statut: string): boolean {
  return !estCloturee(statut);
}

/** Why a closed request takes no more documents, in French. */
export function documentsFermes(statut: string): string {
  return `Cette demande est close (${statut}) : elle ne reçoit plus de documents.${statut === 'Radiée' ? ' Réactivez-la d’abord, si le délai le permet.' : ''}`;
}

/**
 * Whether the applicant may still change the request's fields: before the town hall starts on it (its first
 * status), then again whenever a manager asks for corrections, until they are made; never once it is closed.
 */
export function peutEtreModifiee(statut: string, correction: EtatCorrection | null | undefined): boolean {
  if (estCloturee(statut)) return false;
  return statut === STATUT_INITIAL || correction === 'demandee';
}

/** Defaults of the request form (docs/produit.md « La demande »). */
export const DEMANDE_VALEURS_INITIALES = {
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
} as const satisfies Record<keyof DemandeSaisie, unknown>;

/** What a signed-in resident's account tells the request form (the account's own fields, nothing guessed). */
export interface CompteDuDemandeur {
  prenom: string;
  nom: string;
  email: string;
  gender: string;
  birthday: string | null;
  rue: string;
  residence: string;
}

/**
 * The request form filled from the account: names, e-mail, birth date, sex (F/H; « Autre » is left to choose),
 * the street (the account keeps no house number) with the residence as its complement, the district's town and
 * quartier. Everything stays editable.
 */
export function saisieDepuisLeCompte(compte: CompteDuDemandeur): Partial<DemandeSaisie> {
  const sexe = compte.gender === 'F' ? 'femme' : compte.gender === 'H' ? 'homme' : '';
  return {
    prenom: compte.prenom,
    nom: compte.nom,
    email: compte.email,
    dateDeNaissance: compte.birthday ?? '',
    sexe,
    adresse: compte.rue,
    adresseComplement: compte.residence,
    ville: 'Aix-en-Provence',
    quartierActuel: 'jas de bouffan',
  } as Partial<DemandeSaisie>;
}

/** One step of a request's history: who changed it is told to managers only. */
export const evenementStatutSchema = z.object({
  de: z.enum(STATUTS).nullable(),
  vers: z.enum(STATUTS),
  date: z.string(),
  par: z.string().optional(),
  /** The reason of a refusal, told only to those who see the request in full. */
  motif: z.string().optional(),
});
export type EvenementStatut = z.infer<typeof evenementStatutSchema>;

/** What anyone who knows the numéro sees. */
export const demandeStatutVueSchema = z.object({
  acces: z.literal('statut'),
  numeroUnique: z.string(),
  statutDeLaDemande: z.enum(STATUTS),
  dateDEnregistrement: z.string(),
});
export type DemandeStatutVue = z.infer<typeof demandeStatutVueSchema>;

/**
 * A request in its owner's « Mes demandes »: the status view and whether the town hall awaits corrections from
 * them (`demandee`), or they have answered (`faite`); never in the status view anyone with the numéro sees.
 */
export const maDemandeSchema = demandeStatutVueSchema.extend({ correction: z.enum(ETAT_CORRECTION_VALUES).nullable() });
export type MaDemande = z.infer<typeof maDemandeSchema>;

/** What the private-link holder, the owner and managers see. */
export const demandeCompleteSchema = z.object({
  acces: z.literal('complet'),
  id: z.string(),
  numeroUnique: z.string(),
  prenom: z.string(),
  nom: z.string(),
  sexe: z.enum(SEXE_VALUES).nullable(),
  dateDeNaissance: z.string().nullable(),
  email: z.string(),
  numeroDeTelephone: z.string(),
  adresse: z.string(),
  adresseComplement: z.string(),
  codePostal: z.string(),
  ville: z.string(),
  salaireBrut: z.number().nullable(),
  salaireAvisImpot1: z.number().nullable(),
  salaireAvisImpot2: z.number().nullable(),
  situationFamiliale: z.enum(SITUATION_FAMILIALE_VALUES),
  nombreDEnfants: z.number(),
  logementActuel: z.enum(LOGEMENT_ACTUEL_VALUES),
  typeDeLogementActuel: z.enum(TYPE_DE_LOGEMENT_VALUES),
  quartierActuel: z.enum(QUARTIER_VALUES).nullable(),
  bailleurActuel: z.enum(BAILLEUR_VALUES),
  typeDeLogementSouhaite: z.enum(TYPE_DE_LOGEMENT_VALUES),
  quartierSouhaite: z.array(z.enum(QUARTIER_SOUHAITE_VALUES)),
  dateDEnregistrement: z.string(),
  statutDeLaDemande: z.enum(STATUTS),
  motivations: z.string(),
  commentaires: z.string(),
  documents: documentsParCategorieSchema,
  /** The open request for corrections (docs/produit.md « Corrections et vérification des documents »), or null. */
  correction: correctionSchema.nullable(),
});
export type DemandeComplete = z.infer<typeof demandeCompleteSchema>;

export const demandeVueSchema = z.discriminatedUnion('acces', [demandeStatutVueSchema, demandeCompleteSchema]);
export type DemandeVue = DemandeStatutVue | DemandeComplete;

/** The 201 answer of a creation: the full request plus, once only, its private link. */
export const demandeCreeeSchema = demandeCompleteSchema.extend({ accessKey: z.string(), privateLink: z.string() });
export type DemandeCreee = z.infer<typeof demandeCreeeSchema>;

/** A row of the managers' list: what a manager scans, not the whole file. */
export const ligneDemandeSchema = z.object({
  id: z.string(),
  numeroUnique: z.string(),
  prenom: z.string(),
  nom: z.string(),
  email: z.string(),
  numeroDeTelephone: z.string(),
  typeDeLogementSouhaite: z.string(),
  nombreDEnfants: z.number(),
  dateDEnregistrement: z.string(),
  statutDeLaDemande: z.enum(STATUTS),
  /** The end of the validity (docs/produit.md « Cycle de vie d'une demande »). */
  valideJusqua: z.string(),
  /** The state of the open request for corrections, or null. */
  correction: z.enum(ETAT_CORRECTION_VALUES).nullable(),
  /** The applicant's messages no manager has read yet. */
  messagesNonLus: z.number(),
  /** The account id of the manager who follows it (« Suivie par »), or null; the page names them (GET /gestionnaires). */
  suiviePar: z.string().nullable(),
  /** The ids of its labels (src/domain/etiquettes.ts): on PostgreSQL read with the row (etiquette_ids), on SQLite apart. */
  etiquettes: z.array(z.string()),
});
export type LigneDemande = z.infer<typeof ligneDemandeSchema>;
/** The row's own columns (its labels are read beside them: DemandesRepository.page). */
export const COLONNES_LIGNE = (Object.keys(ligneDemandeSchema.shape) as (keyof LigneDemande)[]).filter((c) => c !== 'etiquettes') as Exclude<keyof LigneDemande, 'etiquettes'>[];

/** The managers' list: page sizes, sortable columns, and the query that asks for a page. */
export const TAILLES_DE_PAGE = [5, 10, 25, 50, 100] as const;
export const TAILLE_DE_PAGE_DEFAUT = 10;
export const TRIS = [
  'dateDEnregistrement',
  'numeroUnique',
  'nom',
  'prenom',
  'email',
  'statutDeLaDemande',
  'typeDeLogementSouhaite',
  'nombreDEnfants',
  'valideJusqua',
] as const;
export type Tri = (typeof TRIS)[number];
export const TRI_DEFAUT: Tri = 'dateDEnregistrement';

/**
 * The tabs of the managers' list (issue 12 point 2): groups of statuses. « À traiter »: every request still
 * open; « Traitées »: a dwelling was given; « Radiées / refusées »: the other ends. (« Suivies par moi » is the
 * `suivi` filter.)
 */
export const ONGLETS = {
  'a-traiter': { libelle: 'À traiter', statuts: STATUTS.filter((s) => !['Attribué', 'Radiée', 'Refusé'].includes(s)) },
  traitees: { libelle: 'Traitées', statuts: ['Attribué'] },
  closes: { libelle: 'Radiées / refusées', statuts: ['Radiée', 'Refusé'] },
} as const satisfies Record<string, { libelle: string; statuts: readonly Statut[] }>;
export type Onglet = keyof typeof ONGLETS;
export const ONGLET_CLES = Object.keys(ONGLETS) as [Onglet, ...Onglet[]];

/** The counts shown on the list's tabs: per status, and for the requests the manager asking follows. */
export const compteursSchema = z.object({
  parStatut: z.record(z.enum(STATUTS), z.number()),
  toutes: z.number(),
  suiviesParMoi: z.number(),
});
export type Compteurs = z.infer<typeof compteursSchema>;

export const listeQuerySchema = z.object({
  q: rechercheSchema,
  status: z
    .string({ error: 'Le statut doit être un texte.' })
    .default('')
    .refine((s) => s === '' || isStatut(s), { error: 'Statut inconnu.' }),
  /** '' (all), expiring within 30 days, expired (not renewed, not yet struck off), struck off. */
  expiration: z.enum(['', ...EXPIRATIONS], { error: "Le filtre d’expiration doit être bientot, expiree ou radiee." }).default(''),
  /** 'moi': only the requests the manager asking follows (« Suivies par moi », features/instruction). */
  suivi: z.enum(['', 'moi'], { error: 'Le filtre de suivi doit être « moi ».' }).default(''),
  /** A tab of the list: a group of statuses (ONGLETS). */
  onglet: z.enum(['', ...ONGLET_CLES], { error: `L’onglet doit être ${ONGLET_CLES.join(', ')}.` }).default(''),
  /** Requests whose open request for corrections is in this state. */
  correction: z.enum(['', ...ETAT_CORRECTION_VALUES], { error: `Le filtre de correction doit être ${ETAT_CORRECTION_VALUES.join(' ou ')}.` }).default(''),
  /** Requests carrying this label (its id). */
  etiquette: z.union([z.literal(''), z.uuid()], { error: 'Cette étiquette n’existe pas.' }).default(''),
  sort: z.enum(TRIS, { error: 'Colonne de tri inconnue.' }).default(TRI_DEFAUT),
  order: z.enum(['asc', 'desc'], { error: "L’ordre doit être asc ou desc." }).default('desc'),
  page: numeroDePageSchema,
  pageSize: z.coerce
    .number({ error: 'Taille de page invalide.' })
    .refine((n) => (TAILLES_DE_PAGE as readonly number[]).includes(n), { error: `La taille de page doit être ${TAILLES_DE_PAGE.join(', ')}.` })
    .default(TAILLE_DE_PAGE_DEFAUT),
});
export type ListeQuery = z.output<typeof listeQuerySchema>;

/**
 * The list's query as an address's query string, what differs from the defaults and without the page: a saved
 * view (src/domain/vues.ts), and the base of the list's own address.
 */
export function requeteDeVue(q: ListeQuery): string {
  const search = new URLSearchParams();
  if (q.q) search.set('q', q.q);
  if (q.status) search.set('status', q.status);
  if (q.expiration) search.set('expiration', q.expiration);
  if (q.suivi) search.set('suivi', q.suivi);
  if (q.onglet) search.set('onglet', q.onglet);
  if (q.correction) search.set('correction', q.correction);
  if (q.etiquette) search.set('etiquette', q.etiquette);
  if (q.sort !== TRI_DEFAUT || q.order !== 'desc') {
    search.set('sort', q.sort);
    search.set('order', q.order);
  }
  if (q.pageSize !== TAILLE_DE_PAGE_DEFAUT) search.set('pageSize', String(q.pageSize));
  return search.toString();
}
export type ListeParams = z.input<typeof listeQuerySchema>;

/**
 * Past this many matches, a searched or filtered list stops counting: `total` is this bound and `totalExact`
 * false, shown « Plus de 1 000 demandes » (docs/decisions/0013). The whole list's total is always exact.
 */
export const TOTAL_BORNE = 1000;

/** A page of the managers' list: `total` is exact when `totalExact`, else more than `total` (= TOTAL_BORNE) match. */
export const listeDemandesSchema = z.object({ data: z.array(ligneDemandeSchema), total: z.number(), totalExact: z.boolean() });
export type ListeDemandes = z.infer<typeof listeDemandesSchema>;

/** The longest reason a refusal or a striking off may carry. */
export const MOTIF_MAX = 1000;
/** The statuses a reason may come with. */
export const STATUTS_AVEC_MOTIF: readonly Statut[] = ['Refusé', 'Radiée'];
export function avecMotif(statut: string): boolean {
  return (STATUTS_AVEC_MOTIF as readonly string[]).includes(statut);
}

/**
 * A manager sets a status (spec: `logementId` is the numéro unique; the request's id is accepted too). A refusal
 * may carry a reason (`motif`), shown to the resident; with another status a reason is refused.
 */
export const changementStatutSchema = z
  .object({
    logementId: z.string({ error: 'logementId est obligatoire.' }).min(1, { error: 'logementId est obligatoire.' }).max(64, { error: 'logementId est trop long.' }),
    newStatus: z.string({ error: 'newStatus est obligatoire.' }).refine(isStatut, { error: `Statut inconnu : choisissez parmi ${STATUTS.join(', ')}.` }),
    motif: z
      .string({ error: 'Le motif doit être un texte.' })
      .trim()
      .max(MOTIF_MAX, { error: `Le motif ne doit pas dépasser ${MOTIF_MAX} caractères.` })
      .optional(),
  })
  .refine((b) => !b.motif || avecMotif(b.newStatus), {
    error: `Un motif ne peut accompagner que les statuts ${STATUTS_AVEC_MOTIF.map((s) => `« ${s} »`).join(' et ')}.`,
    path: ['motif'],
  });
export type ChangementStatut = z.input<typeof changementStatutSchema>;

/** How to undo a status change: its id, until when (ISO-8601; the change's time + 10 s). */
export const annulationSchema = z.object({ id: z.string(), jusqua: z.string() });
export type Annulation = z.infer<typeof annulationSchema>;

/** The answer to a status undo: the status back in place. */
export const statutRestaureSchema = z.object({ numeroUnique: z.string(), statutDeLaDemande: z.enum(STATUTS), updatedAt: z.string() });
export type StatutRestaure = z.infer<typeof statutRestaureSchema>;

/** The answer to a status change; `annulation` is null when nothing changed (the status was already that one). */
export const statutChangeSchema = statutRestaureSchema.extend({ annulation: annulationSchema.nullable() });
export type StatutChange = z.infer<typeof statutChangeSchema>;

/** A manager undoes a status change within its window (`POST /logement/update/status/annuler`). */
export const annulationStatutSchema = z.object({
  id: z.string({ error: 'id est obligatoire.' }).min(1, { error: 'id est obligatoire.' }).max(64, { error: 'id est trop long.' }),
});

/** What a live-event stream (`GET /evenements`, `event: statut`) sends at each status change. */
export interface EvenementDirect {
  numeroUnique: string;
  statutDeLaDemande: Statut;
  /** The previous status; null for a new request. The same as the status when something else changed (`quoi`). */
  de: Statut | null;
  date: string;
  /**
   * What changed when the status did not: the request for corrections, the messages, the applicant's fields, who
   * follows the request (`suivi`: for managers only, see QUOI_GESTION), or its erasure (`effacement`: withdrawn or
   * erased, it is no longer found; `numeroUnique` is the numéro it had).
   */
  quoi?: 'correction' | 'message' | 'modification' | 'suivi' | 'effacement';
}

/** The changes only managers' streams hear of: the handling, which the applicant never sees. */
export const QUOI_GESTION: readonly NonNullable<EvenementDirect['quoi']>[] = ['suivi'];

/**
 * The fields of a request as people read them (docs/produit.md « La demande »): their French label,
 * their options, and how a value reads. This one table feeds the form's options, the detail view,
 * the managers' search text and the CSV export.
 */
type Lecture = 'texte' | 'option' | 'options' | 'montant' | 'jourCivil' | 'instant' | 'enfants';
interface Champ {
  readonly label: string;
  readonly lecture: Lecture;
  readonly options?: readonly Option[];
}
export type ChampLu = Exclude<keyof DemandeComplete, 'acces' | 'id' | 'documents' | 'correction'>;

export const CHAMPS_DEMANDE = {
  numeroUnique: { label: 'Numéro unique', lecture: 'texte' },
  prenom: { label: 'Prénom', lecture: 'texte' },
  nom: { label: 'Nom', lecture: 'texte' },
  email: { label: 'Adresse e-mail', lecture: 'texte' },
  numeroDeTelephone: { label: 'Téléphone', lecture: 'texte' },
  adresse: { label: 'Adresse', lecture: 'texte' },
  adresseComplement: { label: "Complément d’adresse", lecture: 'texte' },
  codePostal: { label: 'Code postal', lecture: 'texte' },
  ville: { label: 'Ville', lecture: 'texte' },
  sexe: { label: 'Sexe', lecture: 'option', options: SEXES },
  dateDeNaissance: { label: 'Date de naissance', lecture: 'jourCivil' },
  situationFamiliale: { label: 'Situation familiale', lecture: 'option', options: SITUATIONS_FAMILIALES },
  nombreDEnfants: { label: "Nombre d’enfants", lecture: 'enfants', options: NOMBRES_D_ENFANTS },
  logementActuel: { label: 'Logement actuel', lecture: 'option', options: LOGEMENTS_ACTUELS },
  typeDeLogementActuel: { label: 'Type de logement actuel', lecture: 'option', options: TYPES_DE_LOGEMENT },
  quartierActuel: { label: 'Quartier actuel', lecture: 'option', options: QUARTIER_OPTIONS },
  bailleurActuel: { label: 'Bailleur actuel', lecture: 'option', options: BAILLEURS },
  typeDeLogementSouhaite: { label: 'Type de logement souhaité', lecture: 'option', options: TYPES_DE_LOGEMENT },
  quartierSouhaite: { label: 'Quartiers souhaités', lecture: 'options', options: QUARTIERS_SOUHAITES },
  salaireBrut: { label: 'Salaire brut mensuel', lecture: 'montant' },
  salaireAvisImpot1: { label: 'Revenu fiscal N-1', lecture: 'montant' },
  salaireAvisImpot2: { label: 'Revenu fiscal N-2', lecture: 'montant' },
  dateDEnregistrement: { label: 'Date d’enregistrement', lecture: 'instant' },
  statutDeLaDemande: { label: 'Statut', lecture: 'texte' },
  motivations: { label: 'Motivations', lecture: 'texte' },
  commentaires: { label: 'Commentaires', lecture: 'texte' },
} as const satisfies Record<ChampLu, Champ>;

export type ValeursDemande = Pick<DemandeComplete, ChampLu>;

const euros = aLaPremiereUtilisation(() => new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR', maximumFractionDigits: 2 }));

/** A field's value as people read it ('' when not given): option labels, dd/mm/yyyy dates, amounts in euros. */
export function valeurLue(champ: ChampLu, d: ValeursDemande): string {
  const def: Champ = CHAMPS_DEMANDE[champ];
  const value = d[champ];
  if (value === null || value === undefined || value === '') return '';
  switch (def.lecture) {
    case 'option':
      return labelOf(def.options!, String(value));
    case 'options':
      return (value as readonly string[]).map((v) => labelOf(def.options!, v)).join(', ');
    case 'montant':
      return euros().format(value as number);
    case 'jourCivil':
      return formatJourCivil(value as string);
    case 'instant':
      return formatJour(value as string);
    case 'enfants':
    case 'texte':
      return String(value);
  }
}

/** The sections of the detail view, each a list of fields of CHAMPS_DEMANDE. */
export const SECTIONS_DEMANDE: readonly { titre: string; champs: readonly ChampLu[] }[] = [
  { titre: 'Identité et coordonnées', champs: ['prenom', 'nom', 'sexe', 'dateDeNaissance', 'email', 'numeroDeTelephone', 'adresse', 'adresseComplement', 'codePostal', 'ville'] },
  { titre: 'Situation', champs: ['situationFamiliale', 'nombreDEnfants', 'logementActuel', 'typeDeLogementActuel', 'quartierActuel', 'bailleurActuel'] },
  { titre: 'Logement souhaité', champs: ['typeDeLogementSouhaite', 'quartierSouhaite'] },
  { titre: 'Ressources', champs: ['salaireBrut', 'salaireAvisImpot1', 'salaireAvisImpot2'] },
  { titre: 'Motivations et commentaires', champs: ['motivations', 'commentaires'] },
];

/** The columns of the managers' export when none are chosen, in order. */
export const COLONNES_CSV: readonly ChampLu[] = [
  'numeroUnique',
  'dateDEnregistrement',
  'statutDeLaDemande',
  'prenom',
  'nom',
  'email',
  'numeroDeTelephone',
  'adresse',
  'adresseComplement',
  'codePostal',
  'ville',
  'nombreDEnfants',
  'typeDeLogementSouhaite',
  'motivations',
  'commentaires',
];

/**
 * The desk's own columns of the export (« Instruction »), not fields of the request: the end of its validity,
 * the open request for corrections, its labels' names and the manager who follows it.
 */
export const COLONNES_INSTRUCTION = {
  valideJusqua: 'Valide jusqu’au',
  correction: 'Corrections',
  etiquettes: 'Étiquettes',
  suiviePar: 'Suivie par',
} as const;
export type ColonneInstruction = keyof typeof COLONNES_INSTRUCTION;
/** A column of the managers' export: a field of the request, or one of the desk's own. */
export type ColonneExport = ChampLu | ColonneInstruction;

export function estColonneInstruction(colonne: ColonneExport): colonne is ColonneInstruction {
  return Object.hasOwn(COLONNES_INSTRUCTION, colonne);
}

/** A column's header in the export and its label in the export dialog. */
export function labelColonne(colonne: ColonneExport): string {
  return estColonneInstruction(colonne) ? COLONNES_INSTRUCTION[colonne] : CHAMPS_DEMANDE[colonne].label;
}

/**
 * Every column an export may carry: the request's numéro, date and status, the desk's own columns, then its
 * fields section by section.
 */
export const COLONNES_EXPORT: readonly ColonneExport[] = [
  'numeroUnique',
  'dateDEnregistrement',
  'statutDeLaDemande',
  ...(Object.keys(COLONNES_INSTRUCTION) as ColonneInstruction[]),
  ...SECTIONS_DEMANDE.flatMap((s) => s.champs),
];

/** An export's query: the list's, and the columns chosen (`colonnes=nom,prenom,…`; none: COLONNES_CSV). */
export const exportQuerySchema = listeQuerySchema.extend({
  colonnes: z
    .string({ error: 'Les colonnes doivent être un texte.' })
    .max(2000, { error: 'La liste des colonnes est trop longue.' })
    .default('')
    .transform((texte, ctx): ColonneExport[] => {
      if (texte === '') return [...COLONNES_CSV];
      const noms = [...new Set(texte.split(','))];
      const inconnue = noms.find((n) => !(COLONNES_EXPORT as readonly string[]).includes(n));
      if (inconnue !== undefined) {
        ctx.addIssue({ code: 'custom', message: `Colonne inconnue : « ${inconnue.slice(0, 40)} ».` });
        return z.NEVER;
      }
      return noms as ColonneExport[];
    }),
});
export type ExportQuery = z.output<typeof exportQuerySchema>;

/** Fields also searched without their spaces, apostrophes and hyphens: « ndiaye » finds N'Diaye, « 0612 » 06 12 34 56 78. */
const CHAMPS_COMPACTES: readonly ChampLu[] = ['prenom', 'nom', 'numeroDeTelephone'];

/**
 * What the managers' search looks into: every field as people read it, plus the raw amounts and
 * birth date as typed, case and accents folded so that "helene" finds "Hélène", and the names and the
 * phone number once more with letters and digits only. Changing this rule: a migration recomputes the
 * stored texts (as 0012 did).
 */
export function texteDeRecherche(d: ValeursDemande): string {
  const parts: string[] = [];
  for (const champ of Object.keys(CHAMPS_DEMANDE) as ChampLu[]) {
    const lu = valeurLue(champ, d);
    if (lu === '') continue;
    const def: Champ = CHAMPS_DEMANDE[champ];
    if (def.lecture === 'montant' || def.lecture === 'jourCivil') parts.push(String(d[champ]));
    parts.push(def.lecture === 'enfants' ? `${lu} ${accord(d.nombreDEnfants, 'enfant', 'enfants')}` : lu);
  }
  for (const champ of CHAMPS_COMPACTES) {
    const folded = foldForSearch(valeurLue(champ, d));
    const compact = compacter(folded);
    if (compact !== folded) parts.push(compact);
  }
  return foldForSearch(parts.join(' ')).replace(/\s+/gu, ' ');
}
