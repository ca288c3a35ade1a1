import { MOT_DE_PASSE_COURANT, MOT_DE_PASSE_COURT, MOT_DE_PASSE_LONG } from '../../domain/compte.js';
import { MESSAGES } from '../../domain/erreurs.js';

/**
 * better-auth's answers in the app's words (docs/produit.md « Messages »: errors reach people): its error
 * codes, by endpoint where one says it better, and the English text of its successes.
 */

interface Traduction {
  /** The status to answer instead of better-auth's. */
  status?: number;
  /** The code to answer instead of better-auth's. */
  code?: string;
  message: string;
  /** The input field the message is about (`fields` of the error body). */
  champ?: string;
}

/** An error as the app answers it (errors.ts `errorBody`). */
export interface ErreurTraduite {
  status: number;
  code: string;
  message: string;
  fields?: Record<string, string>;
}

const EMAIL_INVALIDE = 'L’adresse e-mail n’est pas valide.';
const ORIGINE_INCONNUE = 'Requête refusée : origine inconnue.';
const RETOUR_REFUSE = 'Requête refusée : l’adresse de retour n’appartient pas au site Quartier Vivant.';

/** A reset link opened without its end (the part after « ? » lost when copied). */
export const LIEN_MOT_DE_PASSE_INCOMPLET =
  'Ce lien est incomplet : ouvrez en entier celui reçu par e-mail, ou demandez-en un nouveau depuis «\u00a0Mot de passe oublié\u00a0».';

/** The answer to « Mot de passe oublié », the same whether an account has the address or not. */
export const LIEN_MOT_DE_PASSE_ENVOYE =
  'Si un compte existe avec cette adresse, un e-mail vient de lui être envoyé, avec un lien valable une heure pour choisir un nouveau mot de passe.';

/** better-auth's error codes, whatever the endpoint. */
const PAR_CODE: Record<string, Traduction> = {
  INVALID_EMAIL_OR_PASSWORD: { status: 401, message: 'E-mail ou mot de passe incorrect' },
  INVALID_EMAIL: { message: EMAIL_INVALIDE },
  INVALID_PASSWORD: { status: 401, message: 'Mot de passe incorrect' },
  PASSWORD_TOO_SHORT: { message: MOT_DE_PASSE_COURT },
  PASSWORD_TOO_LONG: { message: MOT_DE_PASSE_LONG },
  PASSWORD_TOO_COMMON: { message: MOT_DE_PASSE_COURANT },
  USER_ALREADY_EXISTS: { status: 409, message: 'Un compte existe déjà avec cette adresse e-mail.' },
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: { status: 409, message: 'Un compte existe déjà avec cette adresse e-mail.' },
  EMAIL_NOT_VERIFIED: { message: 'Confirmez d’abord votre adresse e-mail grâce au lien reçu.' },
  INVALID_TOKEN: { message: 'Ce lien n’est plus valide. Demandez-en un nouveau.' },
  TOKEN_EXPIRED: { message: 'Ce lien a expiré. Demandez-en un nouveau.' },
  USER_NOT_FOUND: { message: 'Ce compte n’existe pas, ou plus.' },
  EMAIL_CAN_NOT_BE_UPDATED: { message: 'L’adresse e-mail ne peut pas être modifiée.' },
  EMAIL_ALREADY_VERIFIED: { message: 'Votre adresse e-mail est déjà confirmée : rien à faire de plus.' },
  EMAIL_MISMATCH: { message: 'Cette adresse n’est pas celle de votre compte : le lien de confirmation part à l’adresse du compte.' },
  VERIFICATION_EMAIL_NOT_ENABLED: { message: 'L’envoi des e-mails de confirmation est indisponible pour le moment.' },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { message: 'Ce compte n’a pas de mot de passe : connectez-vous avec Google.' },
  // better-auth's origin check (src/server/auth/index.ts): a sign-in from another site, a form of another site.
  MISSING_OR_NULL_ORIGIN: { message: ORIGINE_INCONNUE },
  INVALID_ORIGIN: { message: ORIGINE_INCONNUE },
  CROSS_SITE_NAVIGATION_LOGIN_BLOCKED: { message: ORIGINE_INCONNUE },
  INVALID_CALLBACK_URL: { message: RETOUR_REFUSE },
  INVALID_REDIRECT_URL: { message: RETOUR_REFUSE },
  INVALID_ERROR_CALLBACK_URL: { message: RETOUR_REFUSE },
  INVALID_NEW_USER_CALLBACK_URL: { message: RETOUR_REFUSE },
  FAILED_TO_GET_SESSION: { message: 'Session introuvable : reconnectez-vous.' },
  VALIDATION_ERROR: { message: MESSAGES.requeteInvalide },
  // better-call's own answers to a body it cannot read.
  BAD_REQUEST: { message: 'Le contenu envoyé n’est pas un JSON valide.' },
  UNSUPPORTED_MEDIA_TYPE: { message: 'Ce type de contenu n’est pas accepté.' },
};

const LIEN_PERIME: Traduction = { status: 400, code: 'INVALID_TOKEN', message: MESSAGES.lienMotDePassePerime };

/**
 * Where an endpoint says it better, keyed by code, or by `VALIDATION_ERROR:<field>` for an input field
 * better-auth's schema refused. The reset flow: a used, expired or made-up link says what to do next,
 * always with 400 (never better-auth's other statuses).
 */
const PAR_ENDPOINT: Record<string, Record<string, Traduction>> = {
  'request-password-reset': {
    'VALIDATION_ERROR:email': { message: EMAIL_INVALIDE, champ: 'email' },
  },
  'send-verification-email': {
    'VALIDATION_ERROR:email': { message: EMAIL_INVALIDE, champ: 'email' },
  },
  'reset-password': {
    INVALID_TOKEN: LIEN_PERIME,
    TOKEN_EXPIRED: LIEN_PERIME,
    // The account was deleted since the link was sent.
    USER_NOT_FOUND: LIEN_PERIME,
    'VALIDATION_ERROR:token': LIEN_PERIME,
    'VALIDATION_ERROR:newPassword': { message: 'Saisissez votre nouveau mot de passe.', champ: 'newPassword' },
  },
  // The link of the e-mail, opened: better-auth redirects to the page with the token, or with ?error=INVALID_TOKEN.
  'reset-password/:token': {
    'VALIDATION_ERROR:callbackURL': { status: 400, message: LIEN_MOT_DE_PASSE_INCOMPLET },
  },
};

/** What better-auth answers without a JSON body (an unknown path, a wrong method), in the app's words. */
const PAR_STATUT: Record<number, { code: string; message: string }> = {
  404: { code: 'NOT_FOUND', message: MESSAGES.apiIntrouvable },
  405: { code: 'METHOD_NOT_ALLOWED', message: 'Cette méthode n’est pas acceptée à cette adresse.' },
};

const INCONNUE = 'L’opération n’a pas abouti. Réessayez dans un instant.';

/** better-auth's endpoint for a path under /auth/ (no query): `reset-password/abc` is `reset-password/:token`. */
export function endpointDe(chemin: string): string {
  const path = chemin.split(/[?#]/u)[0]!.replace(/^\/+|\/+$/gu, '');
  return path.startsWith('reset-password/') ? 'reset-password/:token' : path;
}

/** The input field better-call names at the start of a validation message: `[body.email] …` is `email`. */
function champDe(message: unknown): string | undefined {
  return typeof message === 'string' ? /^\[(?:body|query)\.([\w]+)[\].]/u.exec(message)?.[1] : undefined;
}

/** An error answer of better-auth (`status`, its JSON body if any), as the app answers it, in French. */
export function traduireErreur(chemin: string, status: number, body: { code?: unknown; message?: unknown } | null): ErreurTraduite {
  const parStatut = PAR_STATUT[status];
  const code = typeof body?.code === 'string' ? body.code : (parStatut?.code ?? 'AUTH_ERROR');
  const propres = PAR_ENDPOINT[endpointDe(chemin)] ?? {};
  const champ = code === 'VALIDATION_ERROR' ? champDe(body?.message) : undefined;
  const traduction = (champ ? propres[`${code}:${champ}`] : undefined) ?? propres[code] ?? PAR_CODE[code];
  const message = traduction?.message ?? parStatut?.message ?? INCONNUE;
  return {
    status: traduction?.status ?? status,
    code: traduction?.code ?? code,
    message,
    ...(traduction?.champ ? { fields: { [traduction.champ]: message } } : {}),
  };
}

/** The English text some successes carry (`message`), in French; the body otherwise unchanged. */
const SUCCES: Record<string, string> = {
  'request-password-reset': LIEN_MOT_DE_PASSE_ENVOYE,
};

/** Whether a success of this endpoint carries text to translate (its body is then read as JSON). */
export function succesATraduire(chemin: string): boolean {
  return endpointDe(chemin) in SUCCES;
}

export function traduireSucces(chemin: string, body: unknown): unknown {
  const message = SUCCES[endpointDe(chemin)];
  return message && body !== null && typeof body === 'object' && 'message' in body ? { ...body, message } : body;
}
