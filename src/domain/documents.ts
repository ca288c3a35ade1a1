/** Document categories of a housing request and the accepted file types (docs/produit.md « Pièces jointes »). */
import { aLaPremiereUtilisation } from './paresseux.js';
import { z } from './zod.js';

export const CATEGORIES = [
  { value: 'livret', label: 'Livret de famille' },
  { value: 'identity', label: "Pièce d’identité" },
  { value: 'tax', label: "Avis d’imposition" },
  { value: 'salary', label: 'Bulletins de salaire' },
  { value: 'other', label: 'Autres documents' },
] as const;
export type Categorie = (typeof CATEGORIES)[number]['value'];
export const CATEGORIE_VALUES = CATEGORIES.map((c) => c.value) as Categorie[];

/** The stored category of a message's attachment: a document of the request, in none of its five blocks. */
export const CATEGORIE_PIECE = 'message';
/** What a stored category is called, for people (the audit of a document opened). */
export function libelleCategorie(category: string): string {
  return category === CATEGORIE_PIECE ? 'Pièce jointe d’un message' : (CATEGORIES.find((c) => c.value === category)?.label ?? category);
}

/**
 * A category in file names (the entries of the documents' zip and of the data export): its label
 * (libelleCategorie) in the singular, without articles, lowercase ASCII words joined by hyphens.
 */
const NOMS_DE_FICHIER: Readonly<Record<Categorie | typeof CATEGORIE_PIECE, string>> = {
  livret: 'livret-famille',
  identity: 'piece-identite',
  tax: 'avis-imposition',
  salary: 'bulletin-salaire',
  other: 'autre-document',
  [CATEGORIE_PIECE]: 'piece-jointe-message',
};

/** A stored category as a file name's first words (`piece-identite`); an unknown one, its label's letters and digits. */
export function nomDeFichierCategorie(category: string): string {
  if (Object.hasOwn(NOMS_DE_FICHIER, category)) return NOMS_DE_FICHIER[category as keyof typeof NOMS_DE_FICHIER];
  const slug = libelleCategorie(category)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/gu, '-')
    .replace(/^-+|-+$/gu, '')
    .slice(0, 40)
    .replace(/-+$/u, '');
  return slug || 'document';
}

export function isCategorie(value: unknown): value is Categorie {
  return typeof value === 'string' && (CATEGORIE_VALUES as string[]).includes(value);
}

/** Accepted content types and the file-name extensions that agree with each. */
export const TYPES_ACCEPTES = {
  'application/pdf': ['.pdf'],
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/png': ['.png'],
} as const;
export type TypeAccepte = keyof typeof TYPES_ACCEPTES;
export const EXTENSIONS_ACCEPTEES = Object.values(TYPES_ACCEPTES).flat();

export function isTypeAccepte(value: unknown): value is TypeAccepte {
  return typeof value === 'string' && value in TYPES_ACCEPTES;
}

/** Lowercased extension of a file name, with its dot ('' when none). */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot <= 0 ? '' : fileName.slice(dot).toLowerCase();
}

/** The accepted type a file name's extension announces, or null. */
export function typeFromExtension(fileName: string): TypeAccepte | null {
  const ext = extensionOf(fileName);
  for (const [type, exts] of Object.entries(TYPES_ACCEPTES) as [TypeAccepte, readonly string[]][]) {
    if (exts.includes(ext)) return type;
  }
  return null;
}

export const MAX_FICHIERS_PAR_ENVOI = 20;

/** The largest document accepted by default, in MB (`UPLOAD_MAX_MB` changes it; the web reads it from /parametres). */
export const UPLOAD_MAX_MO_DEFAUT = 10;

/** A manager's verdict on one document (docs/produit.md « Vérification des documents »); none while unchecked. */
export const AVIS = { accepte: 'Accepté', 'a-remplacer': 'À remplacer' } as const;
export type Avis = keyof typeof AVIS;
export const AVIS_VALUES = Object.keys(AVIS) as [Avis, ...Avis[]];

export const documentInfoSchema = z.object({
  id: z.string(),
  fileUrl: z.string(),
  name: z.string(),
  type: z.enum(Object.keys(TYPES_ACCEPTES) as [TypeAccepte, ...TypeAccepte[]]),
  size: z.number(),
  uploadedAt: z.string(),
  avis: z.enum(AVIS_VALUES).nullable(),
  /** Why it is to be replaced, as the manager wrote it for the applicant. */
  motifAvis: z.string().nullable(),
});
export type DocumentInfo = z.infer<typeof documentInfoSchema>;

export const documentsParCategorieSchema = z.object(
  Object.fromEntries(CATEGORIE_VALUES.map((c) => [c, z.array(documentInfoSchema)])) as Record<Categorie, z.ZodArray<typeof documentInfoSchema>>,
);
export type DocumentsParCategorie = Record<Categorie, DocumentInfo[]>;

/**
 * The state of one block of documents in the request's checklist: missing (none sent; « Autres documents » is
 * optional), one to replace, one not yet checked, or every one accepted.
 */
export const ETATS_BLOC = {
  manquant: 'Manquant',
  facultatif: 'Facultatif',
  'a-remplacer': 'À remplacer',
  'a-verifier': 'À vérifier',
  accepte: 'Accepté',
} as const;
export type EtatBloc = keyof typeof ETATS_BLOC;
export const BLOCS_FACULTATIFS: readonly Categorie[] = ['other'];

export function etatDuBloc(categorie: Categorie, documents: readonly Pick<DocumentInfo, 'avis'>[]): EtatBloc {
  if (documents.length === 0) return BLOCS_FACULTATIFS.includes(categorie) ? 'facultatif' : 'manquant';
  if (documents.some((d) => d.avis === 'a-remplacer')) return 'a-remplacer';
  if (documents.some((d) => d.avis === null)) return 'a-verifier';
  return 'accepte';
}

const tailleFormat = aLaPremiereUtilisation(() => new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 }));
/** A size as people read it: « 350 Ko », « 2,5 Mo ». */
export function formatTaille(octets: number): string {
  if (octets < 1024 * 1024) return `${tailleFormat().format(Math.max(1, octets / 1024))} Ko`;
  return `${tailleFormat().format(octets / (1024 * 1024))} Mo`;
}

/**
 * Why a file is refused, one sentence whichever side refused: the page checks before sending, the server
 * (src/server/features/demandes/upload.ts) again on what it receives.
 */
export const REFUS_FICHIER = {
  type: (nom: string) => `Le fichier « ${nom} » n’est pas accepté : seuls les PDF, JPEG et PNG le sont.`,
  contenu: (nom: string) => `Le contenu du fichier « ${nom} » ne correspond pas à son extension ${extensionOf(nom)}.`,
  vide: (nom: string) => `Le fichier « ${nom} » est vide.`,
  taille: (nom: string, maxOctets: number) => `Le fichier « ${nom} » dépasse la taille maximale de ${formatTaille(maxOctets)}.`,
  nombre: (max: number) => `Vous pouvez envoyer au plus ${max} fichiers à la fois.`,
  /** The per-request quota (docs/produit.md « Documents »): `deja` documents held, `quota` the most a request may hold. */
  quotaFichiers: (quota: number, deja: number) =>
    deja >= quota
      ? `Cette demande a déjà ${documents(deja)}, le maximum par demande : aucun autre ne peut être ajouté.`
      : `Une demande compte au plus ${documents(quota)}${deja > 0 ? ` et celle-ci en a déjà ${deja}` : ''} : envoyez-en au plus ${quota - deja} cette fois.`,
  quotaOctets: (quota: number, deja: number) =>
    deja >= quota
      ? `Les documents de cette demande occupent déjà ${formatTaille(quota)}, le maximum par demande : aucun autre ne peut être ajouté.`
      : `Ces fichiers dépasseraient les ${formatTaille(quota)} de documents permis par demande : il reste ${formatTaille(quota - deja)} pour cette demande.`,
} as const;

const documents = (n: number) => `${n} document${n > 1 ? 's' : ''}`;
