/**
 * The error contract of the API (docs/api.md): every error is `{ error: { code, message, fields? } }`,
 * `message` in French for a person, `fields` per input field. The web reads the same shape. This module
 * stays free of zod, so that the web's first screen does not load it; the body's schema is in corpsErreur.ts.
 */
export const CODES_ERREUR = [
  'BAD_REQUEST',
  'VALIDATION',
  'INVALID_NUMERO',
  'INVALID_JSON',
  'NUL_BYTE',
  'UNKNOWN_CATEGORY',
  'EMPTY_FILE',
  'NO_FILE',
  'PASSWORD_TOO_COMMON',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'ORIGIN_REFUSED',
  'NOT_FOUND',
  'DOCUMENT_NOT_FOUND',
  'NO_DOCUMENT',
  'METHOD_NOT_ALLOWED',
  'TIMEOUT',
  'DUPLICATE',
  'EMAIL_TAKEN',
  'LAST_ADMIN',
  'EMAIL_NON_CONFIRME',
  'TOO_LARGE',
  'FILE_TOO_LARGE',
  'TOO_MANY_FILES',
  'TOO_MANY_PARTS',
  'URI_TOO_LONG',
  'HEADERS_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNSUPPORTED_FILE_TYPE',
  'FILE_TYPE_MISMATCH',
  'PDF_ACTIVE_CONTENT',
  'PDF_PROTECTED',
  'PDF_UNREADABLE',
  'QUOTA_FICHIERS',
  'QUOTA_OCTETS',
  'UNREADABLE_IMAGE',
  'RATE_LIMITED',
  'TROP_TARD',
  'DOCUMENT_VERROUILLE',
  'INVALID_PASSWORD',
  'ROLE_PROTEGE',
  'INTERNAL',
  'DISK_FULL',
  'STORAGE_UNAVAILABLE',
  'NON_PRET',
  'NON_RENOUVELABLE',
  'PAS_ENCORE_RENOUVELABLE',
  'NON_REACTIVABLE',
  'DELAI_REACTIVATION_DEPASSE',
  'TROP_DE_VUES',
  'DEMANDE_CLOSE',
  'CORRECTION_EN_COURS',
  'AUCUNE_CORRECTION',
  'MODIFICATION_FERMEE',
  'LOT_EN_COURS',
  'LOT_TROP_GRAND',
  'TROP_D_ETIQUETTES',
  'HORS_PERIMETRE',
  'CATEGORIE_INCONNUE',
  'PHOTOS_FERMEES',
  'PHOTOS_MAX_ATTEINT',
  'ETAT_INCOMPATIBLE',
  'CATEGORIE_UTILISEE',
  'DERNIERE_CATEGORIE',
  'GESTIONNAIRE_INCONNU',
] as const;
/** The app's own codes; better-auth's codes (INVALID_EMAIL_OR_PASSWORD…) pass through as they are. */
export type CodeErreur = (typeof CODES_ERREUR)[number];

export interface CorpsErreur {
  error: { code: string; message: string; fields?: Record<string, string> };
}

/** The messages people read, written once for the server and the web. */
export const MESSAGES = {
  validation: 'Le formulaire contient des erreurs : corrigez les champs signalés.',
  requeteInvalide: 'La requête contient des valeurs invalides.',
  requeteIncorrecte: 'La requête est incorrecte.',
  octetNul: 'La requête contient un caractère nul, refusé.',
  doublon: 'Une demande existe déjà pour ce numéro unique !',
  demandeIntrouvable: "Il n’existe pas de demande de logement pour ce numéro unique",
  accesComplet:
    "Accès refusé : ouvrez le lien privé reçu lors de l’enregistrement de la demande (ou par e-mail) pour accéder à ses informations et à ses documents.",
  connexionGestionnaire: 'Connectez-vous avec un compte de gestionnaire.',
  reserveGestionnaires: 'Accès réservé aux gestionnaires de la mairie annexe.',
  connexionRequise: 'Connectez-vous pour continuer.',
  reserveAdministrateurs: 'Accès réservé aux administrateurs.',
  habitantIntrouvable: "Cet habitant n’existe pas.",
  apiIntrouvable: "Cette adresse de l’API n’existe pas.",
  pageIntrouvable: "Cette page n’existe pas.",
  tropDeTentatives: 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.',
  inattendue: 'Une erreur inattendue est survenue. Réessayez dans un instant.',
  reseau: 'Impossible de joindre le serveur. Vérifiez votre connexion internet puis réessayez.',
  enregistre: 'Formulaire enregistré !',
  televerse: 'Pièces jointes téléversées avec succès !',
  tropTardPourAnnuler: "Trop tard pour annuler : l’e-mail est déjà parti.",
  changementIntrouvable: "Ce changement de statut n’existe pas.",
  modificationFermee:
    'Cette demande ne peut plus être modifiée : la mairie annexe a commencé à la traiter. Si une information a changé, écrivez-lui un message depuis la page de la demande.',
  origineRefusee: 'Requête refusée : elle ne vient pas du site Quartier Vivant. Rechargez la page puis réessayez.',
  corpsTropLent: "L’envoi est trop lent ou interrompu : la requête a été abandonnée. Vérifiez votre connexion puis réessayez.",
  /** The client left while its request waited its turn (server/exploitation/tours.ts): nothing was done. */
  connexionCoupee: 'La connexion a été coupée avant que la requête soit traitée : rien n’a été fait. Réessayez.',
  disquePlein: "Le serveur manque d’espace pour enregistrer votre envoi. Rien n’a été enregistré ; réessayez plus tard ou prévenez la mairie annexe.",
  /** A password-reset link already used, expired, or made up: what to do next (« Mot de passe oublié »). */
  lienMotDePassePerime: 'Ce lien n’est plus valable : il a déjà servi ou a expiré. Demandez-en un nouveau depuis «\u00a0Mot de passe oublié\u00a0».',
  signalementIntrouvable: "Il n’existe pas de signalement sous ce numéro.",
  /** A technical report's private follow link is needed (features/signalements). */
  reserveSignalant:
    'Seule la personne qui a fait le signalement peut faire cela : ouvrez le lien de suivi reçu par e-mail lors du signalement, ou connectez-vous avec le compte qui l’a fait.',
  /** A category that reports use cannot be deleted (features/signalements, admins). */
  categorieUtilisee: 'Des signalements utilisent cette catégorie : elle ne peut pas être supprimée. Retirez-la plutôt de la liste proposée (« active » à false) ; les anciens signalements la gardent.',
  derniereCategorie: 'C’est la dernière catégorie proposée aux habitants : ajoutez-en ou réactivez-en une autre avant de la retirer.',
  /** « Confier à… » an account that is not (or no longer) a manager's or an admin's (features/instruction, lots). */
  gestionnaireInconnu: 'Ce compte n’est pas (ou plus) celui d’un gestionnaire : choisissez un collègue dans la liste.',
  lienDesabonnementInvalide:
    'Ce lien n’est pas (ou plus) valable : il a peut-être déjà servi. Si vous recevez encore des e-mails, utilisez le lien du dernier reçu.',
  stockageIndisponible:
    "Le serveur ne peut rien enregistrer pour le moment (son stockage est en lecture seule ou indisponible). Rien n’a été enregistré ; réessayez plus tard ou prévenez la mairie annexe.",
  stockageDistantIndisponible:
    'Les documents sont momentanément inaccessibles : leur service de stockage ne répond pas. Rien n’a été perdu ni enregistré ; réessayez dans quelques minutes ou prévenez la mairie annexe.',
} as const;

/** Per-field French messages from a zod error, keyed by the first path segment ('_' for the whole). */
export function fieldMessages(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? String(issue.path[0]) : '_';
    fields[key] ??= issue.message;
  }
  return fields;
}
