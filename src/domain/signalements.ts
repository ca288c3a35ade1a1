/**
 * Technical reports (issue 14; docs/produit.md « Signalements techniques »): a problem in the district's public
 * space, placed on the map, routed by its category to a service, followed by its reporter and by neighbours.
 * The states are FixMyStreet's, in French; Open311 GeoReport v2 reads them as `open` or `closed`.
 */
import { instantAParis } from './dates.js';
import { polygoneSchema } from './geometrie.js';
import { compacter, foldForSearch, normaliseEmail } from './normalise.js';
import { numeroDePageSchema, rechercheSchema } from './pagination.js';
import { z } from './zod.js';

/** The states of a report, in their usual order. */
export const ETATS_SIGNALEMENT = [
  'nouveau',
  'confirme',
  'planifie',
  'en_cours',
  'resolu',
  'ferme',
  'impossible',
  'hors_competence',
  'doublon',
] as const;
export type EtatSignalement = (typeof ETATS_SIGNALEMENT)[number];

export const ETAT_SIGNALEMENT_LIBELLES: Record<EtatSignalement, string> = {
  nouveau: 'Nouveau',
  confirme: 'Confirmé',
  planifie: 'Planifié',
  en_cours: 'En cours',
  resolu: 'Résolu',
  ferme: 'Fermé',
  impossible: 'Impossible à résoudre',
  hors_competence: 'Hors compétence de la mairie',
  doublon: 'Doublon',
};

/** What each state tells the public, beside its name. */
export const ETAT_SIGNALEMENT_EXPLICATIONS: Record<EtatSignalement, string> = {
  nouveau: 'Le signalement est arrivé ; la mairie ne l’a pas encore examiné.',
  confirme: 'La mairie a vérifié le problème et l’a transmis au service concerné.',
  planifie: 'Une intervention est prévue.',
  en_cours: 'Le service concerné intervient.',
  resolu: 'La mairie considère le problème comme réglé. S’il ne l’est pas, la personne qui l’a signalé peut le dire.',
  ferme: 'Le signalement est clos sans autre suite.',
  impossible: 'La mairie ne peut pas régler ce problème ; la mise à jour dit pourquoi.',
  hors_competence: 'Ce problème relève d’un autre organisme (Métropole, département, bailleur, gestionnaire du réseau) ; la mise à jour dit lequel.',
  doublon: 'Le même problème avait déjà été signalé : il se suit sur le signalement d’origine.',
};

/** Open states: the problem is still to be dealt with. The others are closed. */
export const ETATS_OUVERTS: readonly EtatSignalement[] = ['nouveau', 'confirme', 'planifie', 'en_cours'];

export function estOuvert(etat: EtatSignalement): boolean {
  return ETATS_OUVERTS.includes(etat);
}

/** Open311 GeoReport v2 knows two statuses. */
export function statutOpen311(etat: EtatSignalement): 'open' | 'closed' {
  return estOuvert(etat) ? 'open' : 'closed';
}

/** The one state the reporter may go back from: « Toujours pas résolu » on a resolved report reopens it as this. */
export const ETAT_REOUVERTURE: EtatSignalement = 'confirme';

/** Reports within this distance of a new point are shown first, as maybe the same problem. */
export const DISTANCE_DOUBLON_M = 50;
export const PHOTOS_MAX = 3;
/** The reporter may add photos this long after the report, and later while it is still « nouveau ». */
export const PHOTO_DELAI_MS = 60 * 60_000;
/** What a photo may be, checked on its content (the stored photo is always a JPEG). */
export const PHOTO_TYPES = ['image/jpeg', 'image/png'] as const;
/** A stored photo's longest side, in pixels, after resizing. */
export const PHOTO_COTE_MAX = 1600;
export const TITRE_MAX = 80;
export const DESCRIPTION_MAX = 2000;
export const MISE_A_JOUR_MAX = 2000;

/** A report's number: the year, a dash, five digits or more (`2026-00042`). */
export const NUMERO_SIGNALEMENT = /^\d{4}-\d{5,}$/;
export const numeroSignalementSchema = z
  .string({ error: 'Le numéro du signalement est obligatoire.' })
  .trim()
  .regex(NUMERO_SIGNALEMENT, { error: 'Un numéro de signalement s’écrit comme 2026-00042 (l’année, un tiret, cinq chiffres).' });
export const numeroSignalementParamsSchema = z.object({ numero: numeroSignalementSchema });

/** The states a filter of the public list may name: all open ones, all closed ones, or one state. */
export const FILTRES_ETAT = ['ouverts', 'fermes', ...ETATS_SIGNALEMENT] as const;
export type FiltreEtat = (typeof FILTRES_ETAT)[number];

/** A category code: lowercase letters, digits and dashes (it is also the Open311 `service_code`). */
export const codeCategorieSchema = z
  .string({ error: 'La catégorie est obligatoire.' })
  .trim()
  .regex(/^[a-z0-9-]{2,40}$/, { error: 'Ce code de catégorie n’est pas valable (lettres minuscules, chiffres et tirets).' });

/** The categories an installation starts with; admins edit the list (name, service e-mail, in use or not). */
export const CATEGORIES_PAR_DEFAUT = [
  { code: 'voirie', libelle: 'Voirie', description: 'Chaussée ou trottoir abîmé, nid-de-poule, signalisation au sol' },
  { code: 'eclairage', libelle: 'Éclairage public', description: 'Lampadaire éteint, allumé le jour ou endommagé' },
  { code: 'proprete', libelle: 'Propreté', description: 'Dépôt sauvage, tags, déchets, encombrants' },
  { code: 'espaces-verts', libelle: 'Espaces verts', description: 'Arbre, haie, pelouse, aire de jeux' },
  { code: 'mobilier-urbain', libelle: 'Mobilier urbain', description: 'Banc, abribus, potelet, poubelle de rue' },
  { code: 'autre', libelle: 'Autre', description: 'Un autre problème dans l’espace public' },
] as const;

export const categorieSchema = z.object({
  code: codeCategorieSchema,
  libelle: z.string(),
  description: z.string(),
  /** Whether residents may choose it for a new report (older reports keep theirs). */
  active: z.boolean(),
});
export type Categorie = z.infer<typeof categorieSchema>;

/** For admins: a category with the service e-mail that receives its reports. */
export const categorieAdminSchema = categorieSchema.extend({ emailService: z.string().nullable() });
export type CategorieAdmin = z.infer<typeof categorieAdminSchema>;


/**
 * A number, or a number written as text (a query string, a form): a blank text, null, an array or a boolean is no
 * number (zod's coerce made 0 of '' and null, and 43.5 of [43.5]).
 */
export const nombre = (schema: z.ZodNumber) => z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), schema);

/** A point in WGS 84 degrees. */
export const latitudeSchema = nombre(
  z.number({ error: 'La latitude doit être un nombre.' }).min(-90, { error: 'La latitude est entre -90 et 90.' }).max(90, { error: 'La latitude est entre -90 et 90.' }),
);
export const longitudeSchema = nombre(
  z.number({ error: 'La longitude doit être un nombre.' }).min(-180, { error: 'La longitude est entre -180 et 180.' }).max(180, { error: 'La longitude est entre -180 et 180.' }),
);
export const pointSchema = z.object({ lat: latitudeSchema, lon: longitudeSchema });
export type Point = z.infer<typeof pointSchema>;

/** A one-line text as typed: line breaks, tabs and control characters become one space; trimmed. */
export function uneLigne(texte: string): string {
  return texte.replace(/[\p{Cc}\s]+/gu, ' ').trim();
}

/** An e-mail address as typed: trimmed and lowercased (DESIGN.md « What people typed is kept »). */
export const emailSignalementSchema = z
  .string({ error: 'L’adresse e-mail est obligatoire : elle sert à vous tenir au courant.' })
  .transform(normaliseEmail)
  .refine((v) => v.length > 0, { error: 'L’adresse e-mail est obligatoire : elle sert à vous tenir au courant.' })
  .pipe(z.email({ error: 'L’adresse e-mail n’est pas valable.' }).max(254, { error: 'L’adresse e-mail est trop longue.' }));

/** What a person types to report a problem (the photos follow, one call each, with the private key). */
export const nouveauSignalementSchema = z.object({
  categorie: codeCategorieSchema,
  titre: z
    .string({ error: 'Le titre est obligatoire.' })
    .transform(uneLigne)
    .pipe(
      z
        .string()
        .min(1, { error: 'Le titre est obligatoire.' })
        .min(3, { error: 'Le titre est trop court : dites le problème en quelques mots.' })
        .max(TITRE_MAX, { error: `Le titre dépasse ${TITRE_MAX} caractères.` }),
    ),
  description: z.string().trim().max(DESCRIPTION_MAX, { error: `La description dépasse ${DESCRIPTION_MAX} caractères.` }).default(''),
  lat: latitudeSchema,
  lon: longitudeSchema,
  /** The address near the point, as the address search or the person gave it. */
  adresse: z.string({ error: 'L’adresse doit être un texte.' }).transform(uneLigne).pipe(z.string().max(200, { error: 'L’adresse dépasse 200 caractères.' })).default(''),
  email: emailSignalementSchema,
  nom: z.string({ error: 'Le nom doit être un texte.' }).transform(uneLigne).pipe(z.string().max(100, { error: 'Le nom dépasse 100 caractères.' })).default(''),
  /** « Ne pas afficher mon nom publiquement ». */
  nomMasque: z.boolean().default(false),
});
export type NouveauSignalement = z.infer<typeof nouveauSignalementSchema>;

export const photoSchema = z.object({ id: z.string(), url: z.string(), largeur: z.number().int(), hauteur: z.number().int() });
export type Photo = z.infer<typeof photoSchema>;

/** A public update: a change of state, a text, or both. */
export const miseAJourSchema = z.object({
  le: z.string(),
  /** The state it set, if it changed it. */
  etat: z.enum(ETATS_SIGNALEMENT).nullable(),
  texte: z.string().nullable(),
  /** « mairie », or « signalant » for « Toujours pas résolu ». */
  par: z.enum(['mairie', 'signalant']),
});
export type MiseAJour = z.infer<typeof miseAJourSchema>;

/** A report as anyone sees it (moderated text and photos are left out). */
export const signalementPublicSchema = z.object({
  numero: z.string(),
  categorie: categorieSchema.pick({ code: true, libelle: true }),
  /** The title, or the category's name when moderation withdrew it (`titreMasque`). */
  titre: z.string(),
  /** The description, or '' when moderation withdrew it (`descriptionMasquee`). */
  description: z.string(),
  titreMasque: z.boolean(),
  descriptionMasquee: z.boolean(),
  lat: z.number(),
  lon: z.number(),
  adresse: z.string(),
  etat: z.enum(ETATS_SIGNALEMENT),
  creeLe: z.string(),
  misAJourLe: z.string(),
  /** The reporter's name, or null when hidden or not given. */
  auteur: z.string().nullable(),
  photos: z.array(photoSchema),
  miseAJours: z.array(miseAJourSchema),
  /** For a duplicate, the original's number. */
  doublonDe: z.string().nullable(),
  suiveurs: z.number().int(),
});
export type SignalementPublic = z.infer<typeof signalementPublicSchema>;

/** A point on the public map and a row of the public list. */
export const signalementResumeSchema = signalementPublicSchema.pick({
  numero: true,
  categorie: true,
  titre: true,
  lat: true,
  lon: true,
  adresse: true,
  etat: true,
  creeLe: true,
  misAJourLe: true,
});
export type SignalementResume = z.infer<typeof signalementResumeSchema>;

/** The answer to a new report: its number and, once, the private key of its follow link. */
export const signalementCreeSchema = z.object({ numero: z.string(), cle: z.string() });
export type SignalementCree = z.infer<typeof signalementCreeSchema>;

/** A report as its page shows it: the public view, and what the person asking may do. */
export const signalementVueSchema = signalementPublicSchema.extend({
  /** The person holds the private follow link (or is the signed-in reporter): the page offers « Toujours pas résolu ». */
  estSignalant: z.boolean(),
  /** The reporter may still add photos (PHOTO_DELAI_MS, or still « nouveau », and fewer than PHOTOS_MAX). */
  peutAjouterPhotos: z.boolean(),
});
export type SignalementVue = z.infer<typeof signalementVueSchema>;

/** A report near a point (« C’est peut-être le même problème »), with its distance in metres. */
export const signalementProcheSchema = signalementResumeSchema.extend({ distanceM: z.number() });
export type SignalementProche = z.infer<typeof signalementProcheSchema>;

/** At most this many reports near a point are listed, nearest first. */
export const PROCHES_MAX = 20;

/** The public list's page sizes. */
export const PAR_PAGE_DEFAUT = 50;
export const PAR_PAGE_MAX = 200;
/** Past this many matches the public list stops counting: `total` is this bound and `totalExact` false. */
export const TOTAL_SIGNALEMENTS_BORNE = 10_000;

/** The public list and map: filters by category, state (or open / closed), age in days, and the page. */
export const listeSignalementsQuerySchema = z.object({
  categorie: z
    .string({ error: 'La catégorie doit être un texte.' })
    .trim()
    .default('')
    .refine((v) => v === '' || /^[a-z0-9-]{2,40}$/u.test(v), { error: 'Ce code de catégorie n’est pas valable.' }),
  etat: z.enum(['', ...FILTRES_ETAT], { error: `L’état doit être ouverts, fermes ou l’un de : ${ETATS_SIGNALEMENT.join(', ')}.` }).default(''),
  /** Only the reports made in the last `depuis` days. */
  depuis: z.coerce
    .number({ error: 'La période doit être un nombre de jours.' })
    .int({ error: 'La période doit être un nombre entier de jours.' })
    .min(1, { error: 'La période compte au moins 1 jour.' })
    .max(3650, { error: 'La période compte au plus 3650 jours.' })
    .optional(),
  page: numeroDePageSchema,
  parPage: z.coerce
    .number({ error: 'La taille de page doit être un nombre.' })
    .int({ error: 'La taille de page doit être un nombre entier.' })
    .min(1, { error: 'La taille de page est d’au moins 1.' })
    .max(PAR_PAGE_MAX, { error: `La taille de page est d’au plus ${PAR_PAGE_MAX}.` })
    .default(PAR_PAGE_DEFAUT),
});
export type ListeSignalementsQuery = z.infer<typeof listeSignalementsQuerySchema>;

export const listeSignalementsSchema = z.object({
  data: z.array(signalementResumeSchema),
  /** Matches in all (bounded by TOTAL_SIGNALEMENTS_BORNE: then `totalExact` is false). */
  total: z.number().int(),
  totalExact: z.boolean(),
  page: z.number().int(),
  parPage: z.number().int(),
});
export type ListeSignalements = z.infer<typeof listeSignalementsSchema>;

/** « Suivre ce signalement », « C’est le même problème », « Prévenez-moi des nouveaux signalements ». */
export const suivreSchema = z.object({ email: emailSignalementSchema });
export type Suivre = z.infer<typeof suivreSchema>;

/** The token of an e-mailed link (unsubscribe, confirm an alert), carried in the page's fragment. */
export const jetonSchema = z.object({
  jeton: z
    .string({ error: 'Le lien est incomplet : ouvrez-le de nouveau depuis l’e-mail reçu.' })
    .trim()
    .regex(/^[A-Za-z0-9_-]{20,128}$/u, { error: 'Le lien est incomplet : ouvrez-le de nouveau depuis l’e-mail reçu.' }),
});

/** « Toujours pas résolu »: the reporter may say what is still wrong. */
export const toujoursPasResoluSchema = z.object({
  texte: z.string({ error: 'Le texte doit être un texte.' }).trim().max(MISE_A_JOUR_MAX, { error: `Le texte dépasse ${MISE_A_JOUR_MAX} caractères.` }).default(''),
});

/** What an unsubscribe link stopped: following one report, or the district's alerts. */
export const desabonnementSchema = z.object({ quoi: z.enum(['suivi', 'alerte']), numero: z.string().nullable() });
export type Desabonnement = z.infer<typeof desabonnementSchema>;

/** The district's boundary for the map (the same polygon refuses points outside). */
export const perimetreSchema = z.object({
  perimetre: polygoneSchema,
  centre: pointSchema,
  /** Traced by hand from the boundary roads, until the town hall gives its official perimeter. */
  approximatif: z.boolean(),
});
export type Perimetre = z.infer<typeof perimetreSchema>;

/** Refusal of a point outside the district. */
export const HORS_PERIMETRE =
  'Ce point est hors du quartier du Jas de Bouffan : placez-le dans le périmètre tracé sur la carte. Pour un problème ailleurs à Aix-en-Provence, adressez-vous à la mairie ou à la Métropole.';

/**
 * A live event of the technical reports (the event bus's « signalement » topic): a new report (`de` null), a
 * change of state, or another public change (`quoi`: a photo, a text update) with the state unchanged.
 */
export interface EvenementSignalement {
  numero: string;
  etat: EtatSignalement;
  de: EtatSignalement | null;
  date: string;
  /**
   * What changed, the state unchanged: a photo, a public text, moderation (something hidden or shown again), or
   * a managers' private note — `note` goes to the managers' guarded stream only, never to the public one.
   */
  quoi?: 'photo' | 'mise-a-jour' | 'moderation' | 'note';
}

/** Events the public stream never carries (QUOI_PRIVES): the managers' stream does. */
export const QUOI_PRIVES: readonly NonNullable<EvenementSignalement['quoi']>[] = ['note'];

/** The year of a report's number: the calendar year in Paris at its creation. */
export function anneeDuNumero(instant: Date): number {
  return Number(new Intl.DateTimeFormat('en', { year: 'numeric', timeZone: 'Europe/Paris' }).format(instant));
}

/** A report's number from its year and its rank in that year: `2026-00042`. */
export function formatNumeroSignalement(annee: number, rang: number): string {
  return `${annee}-${String(rang).padStart(5, '0')}`;
}

/** Whether photos may still be added: within PHOTO_DELAI_MS of the report, or while it is « nouveau »; at most PHOTOS_MAX. */
export function photosOuvertes(signalement: { etat: EtatSignalement; creeLe: string }, nbPhotos: number, now: Date): boolean {
  if (nbPhotos >= PHOTOS_MAX) return false;
  return signalement.etat === 'nouveau' || now.getTime() - Date.parse(signalement.creeLe) < PHOTO_DELAI_MS;
}

export function estEtatSignalement(value: unknown): value is EtatSignalement {
  return typeof value === 'string' && (ETATS_SIGNALEMENT as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------------------------
// Managers (issue 14 point 4; docs/produit.md « Signalements techniques », « Côté mairie »)

/** A state's place in ETATS_SIGNALEMENT (the managers' sort by state; the open states are ranks 0 to 3). */
export function rangEtat(etat: EtatSignalement): number {
  return ETATS_SIGNALEMENT.indexOf(etat);
}

/**
 * The managers' search text of a report: its number, title, description, address, the reporter's e-mail and
 * name, folded (accents and case removed, every apostrophe written '), and the name and the address once more
 * with letters and digits only, so that « ndiaye » finds « N’Diaye » and « dornano » « d’Ornano ». Hidden text is
 * searched too: managers see it.
 */
export function texteDeRechercheSignalement(s: { numero: string; titre: string; description: string; adresse: string; email: string; nom: string }): string {
  const parts = [s.numero, s.titre, s.description, s.adresse, s.email, s.nom];
  for (const champ of [s.nom, s.adresse]) {
    const folded = foldForSearch(champ);
    const compact = compacter(folded);
    if (compact !== '' && compact !== folded) parts.push(compact);
  }
  return foldForSearch(parts.join(' ')).replace(/\s+/gu, ' ').trim();
}

/** The words of a managers' search, folded like the stored text; the first 8 count, each must match. */
export function motsDeRecherche(q: string): string[] {
  return foldForSearch(q).split(/\s+/u).filter(Boolean).slice(0, 8);
}

/** The managers' list sorts; `categorie` sorts by the category's code (made from its first name). */
export const TRIS_SIGNALEMENTS = ['numero', 'creeLe', 'misAJourLe', 'etat', 'categorie'] as const;
export type TriSignalements = (typeof TRIS_SIGNALEMENTS)[number];
export const TRI_SIGNALEMENTS_DEFAUT: TriSignalements = 'creeLe';
export const TRI_SIGNALEMENTS_LIBELLES: Record<TriSignalements, string> = {
  numero: 'Numéro',
  creeLe: 'Date du signalement',
  misAJourLe: 'Dernière mise à jour',
  etat: 'État',
  categorie: 'Catégorie',
};

/**
 * Past this many matches a searched or filtered managers' list stops counting: `total` is this bound and
 * `totalExact` false (« Plus de 1 000 signalements »), as the housing list does (docs/decisions/0013). The whole
 * list, without search or filter, is counted exactly.
 */
export const TOTAL_GESTION_SIGNALEMENTS_BORNE = 1000;

const JOUR = /^\d{4}-\d{2}-\d{2}$/u;
const estJour = (v: string) => JOUR.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);
const jourSchema = (quoi: string) =>
  z
    .string({ error: `La date ${quoi} doit être un texte.` })
    .trim()
    .default('')
    .refine((v) => v === '' || estJour(v), { error: `La date ${quoi} s’écrit AAAA-MM-JJ (par exemple 2026-03-31).` });

/** The managers' list (GET /technique/gestion/signalements): search, filters, sort and pages, all in the address. */
export const listeGestionSignalementsQuerySchema = z.object({
  /** Words found anywhere in the number, title, description, address, e-mail or name (folded). */
  q: rechercheSchema,
  categorie: listeSignalementsQuerySchema.shape.categorie,
  etat: listeSignalementsQuerySchema.shape.etat,
  /** `oui`: reports with something hidden by moderation (title, description, a photo or an update); `non`: none. */
  masque: z.enum(['', 'oui', 'non'], { error: 'Le filtre de modération doit être oui ou non.' }).default(''),
  /** Made on or after this day, and on or before that one (days in Paris time, inclusive). */
  du: jourSchema('de début'),
  au: jourSchema('de fin'),
  tri: z.enum(TRIS_SIGNALEMENTS, { error: `Le tri doit être l’un de : ${TRIS_SIGNALEMENTS.join(', ')}.` }).default(TRI_SIGNALEMENTS_DEFAUT),
  ordre: z.enum(['asc', 'desc'], { error: 'L’ordre doit être asc ou desc.' }).default('desc'),
  page: numeroDePageSchema,
  parPage: listeSignalementsQuerySchema.shape.parPage,
});
export type ListeGestionSignalementsQuery = z.output<typeof listeGestionSignalementsQuerySchema>;
export type ListeGestionSignalementsParams = z.input<typeof listeGestionSignalementsQuerySchema>;

/** Why a period cannot be, or null: its end before its start (answered 400 with `fields.au`). */
export function erreurPeriode(q: Pick<ListeGestionSignalementsQuery, 'du' | 'au'>): string | null {
  return q.du && q.au && q.au < q.du ? 'La date de fin précède la date de début.' : null;
}

/** The list's query as an address's query string: what differs from the defaults, without the page (the web's URL state). */
export function requeteGestionSignalements(q: ListeGestionSignalementsQuery): string {
  const search = new URLSearchParams();
  for (const cle of ['q', 'categorie', 'etat', 'masque', 'du', 'au'] as const) if (q[cle]) search.set(cle, q[cle]);
  if (q.tri !== TRI_SIGNALEMENTS_DEFAUT || q.ordre !== 'desc') {
    search.set('tri', q.tri);
    search.set('ordre', q.ordre);
  }
  if (q.parPage !== PAR_PAGE_DEFAUT) search.set('parPage', String(q.parPage));
  return search.toString();
}

/** The instant a day begins in Paris (`2026-03-29` → `2026-03-28T23:00:00.000Z`), for the period filters. */
export function debutDuJourAParis(jour: string): string {
  const [annee, mois, j] = jour.split('-').map(Number) as [number, number, number];
  return instantAParis(annee, mois, j).toISOString();
}

/** The day after `jour` (`au` is inclusive: the list keeps reports made before the next day begins). */
export function lendemain(jour: string): string {
  return new Date(Date.parse(`${jour}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** A row of the managers' list: the summary with the real title, the reporter's contact and moderation's mark. */
export const ligneGestionSignalementSchema = signalementResumeSchema.extend({
  /** The title as typed, even when moderation withdrew it from the public (`titreMasque`). */
  titre: z.string(),
  titreMasque: z.boolean(),
  /** Something of the report is hidden from the public: its title, its description, a photo or an update. */
  contenuMasque: z.boolean(),
  email: z.string(),
  nom: z.string(),
  nomMasque: z.boolean(),
  doublonDe: z.string().nullable(),
});
export type LigneGestionSignalement = z.infer<typeof ligneGestionSignalementSchema>;

export const listeGestionSignalementsSchema = z.object({
  data: z.array(ligneGestionSignalementSchema),
  /** Matches in all: exact for the whole list, else up to TOTAL_GESTION_SIGNALEMENTS_BORNE (then `totalExact` false). */
  total: z.number().int(),
  totalExact: z.boolean(),
  page: z.number().int(),
  parPage: z.number().int(),
});
export type ListeGestionSignalements = z.infer<typeof listeGestionSignalementsSchema>;

/** A photo as managers see it: hidden ones too, marked, served by the managers' route. */
export const photoGestionSchema = photoSchema.extend({ masquee: z.boolean() });
export type PhotoGestion = z.infer<typeof photoGestionSchema>;

/** A public update as managers see it: hidden ones too, marked, with its id (to moderate it) and who wrote it. */
export const miseAJourGestionSchema = miseAJourSchema.extend({
  id: z.string(),
  masquee: z.boolean(),
  /** The manager's name for the town hall's updates; null for the reporter's. */
  auteur: z.string().nullable(),
});
export type MiseAJourGestion = z.infer<typeof miseAJourGestionSchema>;

export const NOTE_SIGNALEMENT_MAX = 4000;
/** A private note: managers only, never shown to the public, never e-mailed. */
export const nouvelleNoteSignalementSchema = z.object({
  texte: z
    .string({ error: 'La note est obligatoire.' })
    .trim()
    .min(1, { error: 'La note est vide.' })
    .max(NOTE_SIGNALEMENT_MAX, { error: `La note dépasse ${NOTE_SIGNALEMENT_MAX} caractères.` }),
});
export const noteSignalementSchema = z.object({ id: z.string(), texte: z.string(), auteur: z.string(), le: z.string() });
export type NoteSignalement = z.infer<typeof noteSignalementSchema>;

/** What moderation hides or shows again. */
export const CIBLES_MODERATION = ['titre', 'description', 'photo', 'mise-a-jour'] as const;
export type CibleModeration = (typeof CIBLES_MODERATION)[number];
export const CIBLE_MODERATION_LIBELLES: Record<CibleModeration, string> = { titre: 'le titre', description: 'la description', photo: 'une photo', 'mise-a-jour': 'une mise à jour' };
export const MOTIF_MODERATION_MAX = 500;

/** Hide or show again one thing of a report; a photo or an update is named by its id. */
export const moderationSchema = z
  .object({
    cible: z.enum(CIBLES_MODERATION, { error: 'Indiquez quoi modérer : titre, description, photo ou mise-a-jour.' }),
    id: z.uuid({ error: 'Cette photo ou cette mise à jour n’existe pas pour ce signalement.' }).optional(),
    masquer: z.boolean({ error: 'Indiquez « masquer » : true pour masquer, false pour afficher de nouveau.' }),
    /** Why (kept in the moderation log, for managers only). */
    motif: z.string({ error: 'Le motif doit être un texte.' }).trim().max(MOTIF_MODERATION_MAX, { error: `Le motif dépasse ${MOTIF_MODERATION_MAX} caractères.` }).optional(),
  })
  .superRefine((m, ctx) => {
    const avecId = m.cible === 'photo' || m.cible === 'mise-a-jour';
    if (avecId && !m.id) ctx.addIssue({ code: 'custom', path: ['id'], message: 'Indiquez laquelle (son identifiant).' });
    if (!avecId && m.id) ctx.addIssue({ code: 'custom', path: ['id'], message: 'Un identifiant ne sert que pour une photo ou une mise à jour.' });
  });
export type Moderation = z.infer<typeof moderationSchema>;

/** One line of a report's moderation log: who hid or showed what, when, and why. */
export const entreeModerationSchema = z.object({
  id: z.string(),
  le: z.string(),
  par: z.string(),
  action: z.enum(['masquer', 'afficher']),
  cible: z.enum(CIBLES_MODERATION),
  /** The photo's or the update's id. */
  cibleId: z.string().nullable(),
  motif: z.string().nullable(),
});
export type EntreeModeration = z.infer<typeof entreeModerationSchema>;

/** A report as managers see it: everything, hidden text and photos included (marked), the reporter's contact, notes, moderation log. */
export const signalementGestionSchema = z.object({
  numero: z.string(),
  categorie: categorieSchema.pick({ code: true, libelle: true }),
  /** As typed, even when hidden from the public (`titreMasque`, `descriptionMasquee`). */
  titre: z.string(),
  description: z.string(),
  titreMasque: z.boolean(),
  descriptionMasquee: z.boolean(),
  contenuMasque: z.boolean(),
  lat: z.number(),
  lon: z.number(),
  adresse: z.string(),
  etat: z.enum(ETATS_SIGNALEMENT),
  creeLe: z.string(),
  misAJourLe: z.string(),
  email: z.string(),
  nom: z.string(),
  nomMasque: z.boolean(),
  /** Made by a signed-in account. */
  parUnCompte: z.boolean(),
  photos: z.array(photoGestionSchema),
  miseAJours: z.array(miseAJourGestionSchema),
  /** For a duplicate, the original's number. */
  doublonDe: z.string().nullable(),
  /** The reports marked as duplicates of this one (their numbers, oldest first). */
  doublons: z.array(z.string()),
  suiveurs: z.number().int(),
  notes: z.array(noteSignalementSchema),
  moderation: z.array(entreeModerationSchema),
  /** Posted through Open311 (POST /open311/v2/requests.json): the name of the API key it came with; else null. */
  viaOpen311: z.string().nullable(),
});
export type SignalementGestion = z.infer<typeof signalementGestionSchema>;

/**
 * A manager's public update: a new state, a text, or both (at least one). « doublon » names the original
 * (`doublonDe`: another report, not itself a duplicate); its followers move there.
 */
export const miseAJourGestionCorpsSchema = z
  .object({
    etat: z.enum(ETATS_SIGNALEMENT, { error: `L’état doit être l’un de : ${ETATS_SIGNALEMENT.join(', ')}.` }).optional(),
    texte: z.string({ error: 'Le message doit être un texte.' }).trim().max(MISE_A_JOUR_MAX, { error: `Le message dépasse ${MISE_A_JOUR_MAX} caractères.` }).optional(),
    doublonDe: numeroSignalementSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.etat === undefined && !b.texte) ctx.addIssue({ code: 'custom', path: [], message: 'Indiquez un nouvel état, un message public, ou les deux.' });
    if (b.etat === 'doublon' && !b.doublonDe) ctx.addIssue({ code: 'custom', path: ['doublonDe'], message: 'Indiquez le numéro du signalement d’origine.' });
    if (b.etat !== 'doublon' && b.doublonDe) ctx.addIssue({ code: 'custom', path: ['doublonDe'], message: 'Le numéro d’origine ne sert que pour l’état « Doublon ».' });
  });
export type MiseAJourGestionCorps = z.infer<typeof miseAJourGestionCorpsSchema>;

// --- Categories, for admins -------------------------------------------------------------------------------------

export const LIBELLE_CATEGORIE_MAX = 60;
const libelleCategorieSchema = z
  .string({ error: 'Le nom de la catégorie est obligatoire.' })
  .transform(uneLigne)
  .pipe(
    z
      .string()
      .min(1, { error: 'Le nom de la catégorie est obligatoire.' })
      .min(2, { error: 'Le nom de la catégorie est trop court.' })
      .max(LIBELLE_CATEGORIE_MAX, { error: `Le nom de la catégorie dépasse ${LIBELLE_CATEGORIE_MAX} caractères.` }),
  );
const descriptionCategorieSchema = z
  .string({ error: 'La description doit être un texte.' })
  .transform(uneLigne)
  .pipe(z.string().max(200, { error: 'La description dépasse 200 caractères.' }));
const emailServiceSchema = z
  .union([z.literal(''), z.null(), z.string().trim().toLowerCase().pipe(z.email({ error: 'L’adresse e-mail du service n’est pas valable.' }).max(254))], {
    error: 'L’adresse e-mail du service n’est pas valable.',
  })
  .transform((v) => (v === '' ? null : v));
const rangCategorieSchema = z
  .number({ error: 'Le rang doit être un nombre.' })
  .int({ error: 'Le rang doit être un nombre entier.' })
  .min(0, { error: 'Le rang est positif.' })
  .max(1_000_000, { error: 'Le rang est trop grand.' });

/** A new category (admins): its code is made from its name, once, and never changes (it is the Open311 `service_code`). */
export const nouvelleCategorieSchema = z.object({
  libelle: libelleCategorieSchema,
  description: descriptionCategorieSchema.default(''),
  emailService: emailServiceSchema.default(null),
  active: z.boolean({ error: '« active » doit être true ou false.' }).default(true),
  /** Its place in the form's list; after the last one when absent. */
  rang: rangCategorieSchema.optional(),
});
export type NouvelleCategorie = z.infer<typeof nouvelleCategorieSchema>;

/** A change of a category (admins): any of its fields but the code. */
export const modificationCategorieSchema = z
  .object({
    libelle: libelleCategorieSchema.optional(),
    description: descriptionCategorieSchema.optional(),
    emailService: emailServiceSchema.optional(),
    active: z.boolean({ error: '« active » doit être true ou false.' }).optional(),
    rang: rangCategorieSchema.optional(),
  })
  .refine((m) => Object.values(m).some((v) => v !== undefined), { error: 'Indiquez ce qui change : libelle, description, emailService, active ou rang.' });
export type ModificationCategorie = z.infer<typeof modificationCategorieSchema>;

export const codeCategorieParamsSchema = z.object({ code: codeCategorieSchema });

/** A category as admins manage it: its service e-mail, its rank, and how many reports use it (then it cannot be deleted). */
export const categorieGestionSchema = categorieAdminSchema.extend({ rang: z.number().int(), signalements: z.number().int() });
export type CategorieGestion = z.infer<typeof categorieGestionSchema>;

/** The code of a new category from its name: folded, letters and digits joined by dashes, 2 to 40 characters. */
export function codeDeCategorie(libelle: string): string {
  const base = foldForSearch(libelle)
    .replace(/[^a-z0-9]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, 36)
    .replace(/-+$/u, '');
  return base.length >= 2 ? base : `categorie${base ? `-${base}` : ''}`;
}
