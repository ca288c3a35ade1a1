import type { Generated, Insertable, Selectable } from 'kysely';

/** Tables as Kysely sees them (camelCase here, snake_case in the database through CamelCasePlugin). */
export interface HousingRequestTable {
  id: string;
  numeroUnique: string;
  accessKeyHash: string;
  prenom: string;
  nom: string;
  sexe: string | null;
  dateDeNaissance: string | null;
  email: string;
  numeroDeTelephone: string;
  adresse: string;
  adresseComplement: string;
  codePostal: string;
  ville: string;
  salaireBrut: number | null;
  salaireAvisImpot1: number | null;
  salaireAvisImpot2: number | null;
  situationFamiliale: string;
  nombreDEnfants: number;
  logementActuel: string;
  typeDeLogementActuel: string;
  quartierActuel: string | null;
  bailleurActuel: string;
  typeDeLogementSouhaite: string;
  /** JSON array of desired-quartier keys. */
  quartierSouhaite: string;
  dateDEnregistrement: string;
  statutDeLaDemande: string;
  motivations: string;
  commentaires: string;
  updatedAt: string;
  /** The account that submitted the request while signed in, if any. */
  ownerUserId: string | null;
  /** Every searchable field, case and accents folded (managers' search). */
  searchText: string;
  /** nom and prenom folded, for sorting. */
  nomTri: string;
  prenomTri: string;
  /** The status's explicit sort rank (src/domain/statut.ts, migration 0004), for sorting. */
  statutRang: number;
  /** When the request was withdrawn or erased: the row is then an anonymous tombstone (migration 0010). */
  effaceeLe: string | null;
  /** The life cycle (migration 0009, features/demandes/cycleDeVie.ts): end of the validity, last renewal,
   * reminders sent for this validity ("30,7"), struck off by the job, closed (Radiée, Refusé, Attribué). */
  valideJusqua: string;
  dernierRenouvellement: string | null;
  rappelsEnvoyes: Generated<string>;
  radieeLe: string | null;
  clotureeLe: string | null;
  /** The manager who follows the request (« Suivie par », migration 0013), null when none. */
  suiviePar: Generated<string | null>;
  /** The state of the open request for corrections (migration 0015): demandee, faite; null when none. */
  correction: Generated<string | null>;
  /** The applicant's messages no manager has read yet (migration 0017). */
  messagesNonLus: Generated<number>;
}

/** The scheduler's lease, one row per job (migration 0009). */
export interface TacheTable {
  nom: string;
  bailJusqua: string;
  derniereFin: string | null;
}

export interface DocumentTable {
  id: string;
  housingRequestId: string;
  category: string;
  /** 1, 2, 3… within the request's category, in upload order. */
  position: number;
  storageKey: string;
  originalName: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedAt: string;
  /** A manager's review (migration 0015): accepte, a-remplacer, null while unchecked; its reason, who, when. */
  avis: Generated<string | null>;
  avisMotif: Generated<string | null>;
  avisPar: Generated<string | null>;
  avisLe: Generated<string | null>;
  /** The message this file is attached to (category 'message', migration 0018); null for the request's documents. */
  messageId: Generated<string | null>;
}

export interface StatusEventTable {
  id: string;
  housingRequestId: string;
  fromStatus: string | null;
  toStatus: string;
  actorUserId: string | null;
  at: string;
  /** The reason given with a refusal (migration 0005). */
  motif: string | null;
  /** Until when the change may be undone (its e-mail waits in the outbox till then). */
  undoUntil: string | null;
  /** Set when the change was undone: the history no longer shows it; the row stays as a trace. */
  undoneAt: string | null;
  undoneBy: string | null;
  /** A manager's change that may be undone: the request's retention start and striking off before it (migration 0034). */
  avantClotureeLe: string | null;
  avantRadieeLe: string | null;
}

/** The durable outbox of e-mails (migration 0005, src/server/mail/index.ts). */
export interface MailOutboxTable {
  id: string;
  /** Names a mail that may be withdrawn before it leaves (a status change's), else null. */
  key: string | null;
  recipient: string;
  subject: string;
  /** The text; emptied once sent (it may hold a link with a token). */
  body: string;
  createdAt: string;
  sendAfter: string;
  attempts: number;
  lastError: string | null;
  claimedAt: string | null;
  claimToken: string | null;
  sentAt: string | null;
  /** The request the mail is about, so that erasing it withdraws the mail (migration 0010). */
  housingRequestId: string | null;
  /** Attachments as JSON references resolved at send time (migration 0009), e.g. [{"type":"attestation","demandeId":"…"}]. */
  piecesJointes: string | null;
}

/** better-auth's user row plus the profile (docs/produit.md « Comptes »). Dates are Date on PostgreSQL, ISO text on SQLite. */
export interface UserTable {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean | number;
  image: string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
  nom: string;
  prenom: string;
  gender: string;
  birthday: string | null;
  pays: string;
  ville: string;
  villeSlug: string;
  quartier: string;
  quartierSlug: string;
  residence: string;
  rue: string;
  userType: string;
  /** Who sees the name and photo: 'voisins' | 'quartier' | 'tous' (src/domain/compte.ts VISIBILITES). */
  visibilite: string;
}

export interface FollowTable {
  followerId: string;
  followeeId: string;
  createdAt: string;
}

export interface SessionTable {
  id: string;
  /** SHA-256 of the cookie's token, in hex (migration 0008, src/server/auth/sessions-tokens.ts). */
  token: string;
  userId: string;
  expiresAt: Date | string;
  createdAt: Date | string;
  updatedAt: Date | string;
  /** The last request's time, written at most once a minute (migration 0008, src/server/auth/sessions.ts). */
  lastActiveAt: Date | string | null;
}

/**
 * Per-account throttling (migration 0007, src/server/auth/throttle.ts): a row per scope and e-mail address
 * tried (an HMAC, never the address). Times in milliseconds; PostgreSQL answers bigint as a string.
 */
export interface AuthThrottleTable {
  key: string;
  failures: number;
  lastFailureAt: number | string;
  lockedUntil: number | string;
}

/** better-auth's link between a user and a way of signing in ('credential', 'google'). */
export interface AccountTable {
  id: string;
  userId: string;
  providerId: string;
  accountId: string;
}

/** A manager's private note on a request (migration 0013). */
export interface NoteInterneTable {
  id: string;
  housingRequestId: string;
  auteurUserId: string | null;
  texte: string;
  le: string;
}

/** What a manager did (migration 0013): the audit, without personal data. */
export interface JournalGestionTable {
  id: string;
  housingRequestId: string | null;
  acteurUserId: string | null;
  action: string;
  detail: string | null;
  le: string;
}

/** A request for corrections (migration 0015): asked by a manager, done by the applicant, closed by a manager. */
export interface CorrectionTable {
  id: string;
  housingRequestId: string;
  motif: string;
  demandeePar: string | null;
  demandeeLe: string;
  faiteLe: string | null;
  closePar: string | null;
  closeLe: string | null;
}

/** A message of a request's thread (migration 0017). */
export interface MessageTable {
  id: string;
  housingRequestId: string;
  de: string;
  auteurUserId: string | null;
  texte: string;
  le: string;
  luLe: string | null;
}

/** A label (migration 0016), and which request carries it. */
export interface EtiquetteTable {
  id: string;
  nom: string;
  /** cleEtiquette(nom), unique (migration 0033). */
  nomCle: string;
  couleur: string;
  creeLe: string;
}
export interface DemandeEtiquetteTable {
  housingRequestId: string;
  etiquetteId: string;
  posePar: string | null;
  poseLe: string;
}

/** A manager's saved view of the list (migration 0014). */
export interface VueEnregistreeTable {
  id: string;
  userId: string;
  nom: string;
  requete: string;
  creeLe: string;
}

export interface Database {
  housingRequests: HousingRequestTable;
  documents: DocumentTable;
  statusEvents: StatusEventTable;
  mailOutbox: MailOutboxTable;
  user: UserTable;
  follows: FollowTable;
  session: SessionTable;
  account: AccountTable;
  authThrottle: AuthThrottleTable;
  taches: TacheTable;
  notesInternes: NoteInterneTable;
  journalGestion: JournalGestionTable;
  vuesEnregistrees: VueEnregistreeTable;
  corrections: CorrectionTable;
  etiquettes: EtiquetteTable;
  demandeEtiquettes: DemandeEtiquetteTable;
  messages: MessageTable;
  signalementCategories: SignalementCategorieTable;
  signalementCompteurs: SignalementCompteurTable;
  signalements: SignalementTable;
  signalementPhotos: SignalementPhotoTable;
  signalementMisesAJour: SignalementMiseAJourTable;
  signalementSuiveurs: SignalementSuiveurTable;
  signalementAlertes: SignalementAlerteTable;
  open311Cles: Open311CleTable;
}

export type UserRow = Selectable<UserTable>;

/** A housing request ("demande") as stored. */
export type DemandeRow = Selectable<HousingRequestTable>;
export type NewDemande = Insertable<HousingRequestTable>;
export type DocumentRow = Selectable<DocumentTable>;
export type CorrectionRow = Selectable<CorrectionTable>;

/** Technical reports (migration 0019, features/signalements). Booleans are integers 0/1 on both databases. */
export interface SignalementCategorieTable {
  /** Also the Open311 `service_code`. */
  code: string;
  libelle: string;
  description: string;
  /** The service that receives the category's reports, or null. */
  emailService: string | null;
  active: number;
  /** Order in the form's list. */
  rang: number;
}

/** The last number given in a year (`2026-00042` is the 42nd of 2026). */
export interface SignalementCompteurTable {
  annee: number;
  dernier: number;
}

export interface SignalementTable {
  id: string;
  numero: string;
  categorie: string;
  titre: string;
  description: string;
  lat: number;
  lon: number;
  adresse: string;
  email: string;
  nom: string;
  nomMasque: number;
  etat: string;
  /** 1 while `etat` is an open state (src/domain/signalements.ts ETATS_OUVERTS). */
  ouvert: number;
  /** For a duplicate, the original's id. */
  doublonDe: string | null;
  accessKeyHash: string;
  /** The signed-in account that made the report, if any. */
  ownerUserId: string | null;
  creeLe: string;
  misAJourLe: string;
  /** Moderation: the title or the description withdrawn from the public view. */
  titreMasque: number;
  descriptionMasquee: number;
}

export interface SignalementPhotoTable {
  id: string;
  signalementId: string;
  storageKey: string;
  largeur: number;
  hauteur: number;
  /** Bytes of the stored (re-encoded) JPEG. */
  taille: number;
  masquee: number;
  creeLe: string;
}

/** A public update: a change of state (`etat`, from `etatPrecedent`), a text, or both; `par` mairie or signalant. */
export interface SignalementMiseAJourTable {
  id: string;
  signalementId: string;
  le: string;
  etat: string | null;
  etatPrecedent: string | null;
  texte: string | null;
  par: string;
  auteurUserId: string | null;
  masquee: number;
}

/** Who is e-mailed each public update; `jetonHash`: SHA-256 of the unsubscribe link's token. */
export interface SignalementSuiveurTable {
  id: string;
  signalementId: string;
  email: string;
  jetonHash: string;
  creeLe: string;
}

/** An alert for new reports in the district, active once confirmed from the e-mailed link. */
export interface SignalementAlerteTable {
  id: string;
  email: string;
  jetonHash: string;
  confirmeLe: string | null;
  creeLe: string;
}

export type SignalementRow = Selectable<SignalementTable>;
export type SignalementCategorieRow = Selectable<SignalementCategorieTable>;
export type SignalementPhotoRow = Selectable<SignalementPhotoTable>;
export type SignalementMiseAJourRow = Selectable<SignalementMiseAJourTable>;
export type SignalementSuiveurRow = Selectable<SignalementSuiveurTable>;
export type SignalementAlerteRow = Selectable<SignalementAlerteTable>;

/**
 * An Open311 API key (migration 0021, features/open311): issued and revoked by admins. Only the SHA-256 of the
 * key is stored (`cleHash`); the key itself is shown once, at its creation.
 */
export interface Open311CleTable {
  id: string;
  libelle: string;
  cleHash: string;
  /** The admin who issued it. */
  creePar: string | null;
  creeLe: string;
  revoqueeLe: string | null;
  revoqueePar: string | null;
  /** The last time a request was posted with it. */
  utiliseeLe: string | null;
}
export type Open311CleRow = Selectable<Open311CleTable>;

// --- Technical reports, the managers' side (migration 0020, features/signalements) ------------------------------
// Interface merging: these columns join SignalementTable and these tables join Database above. Written by the
// repository with the report (insert optional: the database's defaults hold until it does).

/** A column the database fills by default until the repository writes it. */
type ParDefaut<T> = Generated<T>;

/** Columns migration 0020 adds to `signalements`. */
export interface SignalementTable {
  /** The folded search text (texteDeRechercheSignalement), searched by the managers' list. */
  recherche: ParDefaut<string>;
  /** The state's place in ETATS_SIGNALEMENT (rangEtat): the sort by state. */
  etatRang: ParDefaut<number>;
  /** 1 while moderation hides something of the report (title, description, a photo, an update). */
  contenuMasque: ParDefaut<number>;
}

/** A manager's private note on a report: never public, never e-mailed. */
export interface SignalementNoteTable {
  id: string;
  signalementId: string;
  auteurUserId: string | null;
  texte: string;
  le: string;
}

/** One moderation act: `action` masquer or afficher, `cible` titre, description, photo or mise-a-jour (`cibleId`). */
export interface SignalementModerationTable {
  id: string;
  signalementId: string;
  acteurUserId: string | null;
  action: string;
  cible: string;
  cibleId: string | null;
  motif: string | null;
  le: string;
}

/** The column migration 0022 adds to `signalements` (features/open311). */
export interface SignalementTable {
  /** The Open311 API key (`open311_cles.id`) the report was posted with, or null for a report made otherwise. */
  open311CleId: string | null;
}

export interface Database {
  signalementNotes: SignalementNoteTable;
  signalementModerations: SignalementModerationTable;
}
export type SignalementNoteRow = Selectable<SignalementNoteTable>;
export type SignalementModerationRow = Selectable<SignalementModerationTable>;

/** A rate-limit counter on PostgreSQL without Redis (migration 0023, src/server/partage/limites.ts). */
export interface LimiteFrequenceTable {
  cle: string;
  compte: number;
  /** The window's end, in ms since the epoch (PostgreSQL's bigint comes back as a string). */
  finMs: number | string;
}

/** A bulk action's progress (migration 0023, features/lots): `fini` and `interrompu` are 0 or 1. */
export interface LotTable {
  id: string;
  proprietaire: string;
  total: number;
  faits: number;
  inchanges: number;
  /** Requests a label addition left as they were: they carry the most labels a request may (migration 0028). */
  completes: number;
  echecs: number;
  fini: number;
  interrompu: number;
  bailJusqua: string;
  creeLe: string;
}

export interface Database {
  limitesFrequence: LimiteFrequenceTable;
  lots: LotTable;
}
