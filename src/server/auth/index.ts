import { betterAuth, type BetterAuthPlugin } from 'better-auth';
import { APIError, createAuthMiddleware, getOAuthState, getSessionFromCtx } from 'better-auth/api';
import { deleteSessionCookie } from 'better-auth/cookies';
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
import type { FastifyBaseLogger } from 'fastify';
import { MOT_DE_PASSE_COURANT, MOT_DE_PASSE_MAX, MOT_DE_PASSE_MIN, nomsDepuisNomAffiche } from '../../domain/compte.js';
import { MESSAGES } from '../../domain/erreurs.js';
import type { Config } from '../config.js';
import type { Db, DbKind } from '../db/index.js';
import { ApiError } from '../errors.js';
import { mailConfirmationAdresse, mailNouveauMotDePasse } from '../features/compte/mails.js';
import { CompteRepository } from '../features/compte/repository.js';
import type { Mailer } from '../mail/index.js';
import type { Personne } from './motsDePasse.js';
import { AccountThrottle, messageVerrouillage, ThrottleRepository, type ThrottleRule, type ThrottleScope } from './throttle.js';
import { cookieOptions, keepSession, SESSION_OPTIONS, type SessionTimes } from './sessions.js';
import { isCommonPassword } from './courant.js';
import { authSecret } from './secret.js';
import { withHashedSessionTokens } from './sessions-tokens.js';


/** Endpoints that set a password: the common-password rule applies to each. */
const PASSWORD_PATHS = new Set(['/sign-up/email', '/reset-password', '/change-password']);

type HookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/**
 * Who is setting the password, so that their e-mail and names are refused as one: the sign-up's body, the
 * signed-in user changing it, the owner of a reset link. Unknown (a bad link): the list rules alone.
 */
async function personneOf(ctx: HookContext): Promise<Personne | undefined> {
  const body = (ctx.body ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  try {
    if (ctx.path === '/sign-up/email') return { email: text(body.email), nom: text(body.nom), prenom: text(body.prenom), name: text(body.name) };
    if (ctx.path === '/change-password') {
      const session = await getSessionFromCtx(ctx);
      return session ? (session.user as Personne) : undefined;
    }
    const lien = await lienDeReinitialisation(ctx);
    const user = lien ? await ctx.context.internalAdapter.findUserById(lien.value) : null;
    return user ? (user as Personne) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The reset link a /reset-password call carries (its token, in the body or the query), while it may still
 * be used: null when it is missing, made up, already used or expired, as better-auth judges it.
 */
async function lienDeReinitialisation(ctx: HookContext): Promise<{ value: string } | null> {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const token = text((ctx.body as Record<string, unknown> | undefined)?.token) ?? text((ctx.query as Record<string, unknown> | undefined)?.token);
  if (!token) return null;
  const verification = await ctx.context.internalAdapter.findVerificationValue(`reset-password:${token}`);
  return verification && new Date(verification.expiresAt).getTime() >= Date.now() ? verification : null;
}

/** The account's first name, as better-auth hands its user over (an additional field, absent from its types). */
function prenomDe(user: object): string | undefined {
  const prenom = (user as { prenom?: unknown }).prenom;
  return typeof prenom === 'string' ? prenom : undefined;
}

export interface AuthRateLimits {
  signIn: { window: number; max: number } | false;
  /** Per-account throttling (throttle.ts), always on; its defaults are DEFAULT_THROTTLE. */
  account?: Partial<Record<ThrottleScope, ThrottleRule>>;
}

/** Endpoints counted per e-mail address (throttle.ts), on top of the per-IP limit. */
const THROTTLED_PATHS: Record<string, ThrottleScope> = {
  '/sign-in/email': 'sign-in',
  '/request-password-reset': 'reset',
  '/send-verification-email': 'verification',
  // Counted on the new address, which the link goes to.
  '/change-email': 'verification',
};

/**
 * Where the e-mailed link that confirms an address lands: the sign-in screen's « Votre adresse e-mail est
 * confirmée » (src/web/features/compte/ConfirmationAdresse.tsx); better-auth appends `&error=TOKEN_EXPIRED`
 * (or INVALID_TOKEN, USER_NOT_FOUND) when the link no longer works, and the page then offers a new one.
 */
export const RETOUR_CONFIRMATION_ADRESSE = '/connexion?confirmation=adresse';

/**
 * Where the link that confirms a change of address lands: « Votre adresse e-mail est changée », or, with better-auth's
 * `&error=` (TOKEN_EXPIRED, INVALID_TOKEN, USER_NOT_FOUND, INVALID_USER), why not and how to ask a new link.
 */
export const RETOUR_CHANGEMENT_ADRESSE = '/connexion?confirmation=changement';

/** Endpoints that e-mail such a link, and its landing: the server's to say, whatever the caller sent. */
const RETOURS: Record<string, string> = {
  '/sign-up/email': RETOUR_CONFIRMATION_ADRESSE,
  '/send-verification-email': RETOUR_CONFIRMATION_ADRESSE,
  '/change-email': RETOUR_CHANGEMENT_ADRESSE,
};

/** The hook's answer that sets the link's landing, for the endpoints that send one. */
function retourDeConfirmation(ctx: HookContext) {
  const retour = ctx.path ? RETOURS[ctx.path] : undefined;
  if (retour === undefined) return undefined;
  return { context: { body: { ...((ctx.body ?? {}) as Record<string, unknown>), callbackURL: retour } } };
}

/**
 * The same landing set on an HTTP call's body before better-auth reads it: its origin check (below) runs before
 * any hook, and would refuse a landing on another site (403 INVALID_CALLBACK_URL) that the server replaces anyway.
 */
function retourDeConfirmationHttp(basePath: string): BetterAuthPlugin {
  return {
    id: 'qv-retour-confirmation',
    onRequest: async (request) => {
      const retour = request.method === 'POST' ? RETOURS[new URL(request.url).pathname.slice(basePath.length)] : undefined;
      if (retour === undefined) return;
      const body = (await request
        .clone()
        .json()
        .catch(() => null)) as unknown;
      if (body === null || typeof body !== 'object' || Array.isArray(body) || !('callbackURL' in body)) return;
      const headers = new Headers(request.headers);
      headers.delete('content-length');
      return { request: new Request(request, { headers, body: JSON.stringify({ ...body, callbackURL: retour }) }) };
    },
  };
}

/**
 * better-auth's side of the session rules:
 * - every request to /app/api/auth/* carrying a session cookie first applies the limits, so that
 *   /get-session, /change-password, /update-user… see an ended session as absent (the app's own routes
 *   apply them in `sessionUser`, on the session they read anyway: no second look-up there);
 * - /change-password always ends the account's other sessions, whatever the client sends
 *   (`revokeOtherSessions`); the browser that changed it gets a new session cookie.
 */
function sessionRules(db: Db): BetterAuthPlugin {
  return {
    id: 'qv-sessions',
    hooks: {
      before: [
        {
          // HTTP requests only: the server's own auth.api.getSession (sessionUser) applies the limits itself.
          matcher: (ctx) => ctx.request !== undefined,
          handler: createAuthMiddleware(async (ctx) => {
            const token = await ctx.getSignedCookie(ctx.context.authCookies.sessionToken.name, ctx.context.secret);
            if (!token) return;
            const found = await ctx.context.internalAdapter.findSession(token);
            if (!found) return;
            const user = found.user as typeof found.user & { userType?: string };
            if (!(await keepSession(db, found.session as SessionTimes, user.userType))) deleteSessionCookie(ctx);
          }),
        },
        {
          matcher: (ctx) => ctx.path === '/change-password',
          handler: createAuthMiddleware(async (ctx) => {
            const body = ctx.body as Record<string, unknown> | undefined;
            if (!body || typeof body !== 'object') return;
            return { context: { body: { ...body, revokeOtherSessions: true } } };
          }),
        },
      ],
    },
  };
}

/** Where better-auth answers (routes.ts mounts it there). */
const BASE_PATH = '/app/api/auth';

export interface AuthDeps {
  config: Config;
  db: Db;
  kind: DbKind;
  mailer: Mailer;
  rateLimit: AuthRateLimits;
  /** The app's logger: better-auth's messages go there (JSON, levels), never straight to the console. */
  log: FastifyBaseLogger;
  /** An account was just created through Google, maybe from an invitation link. */
  onOAuthSignUp: (userId: string, inviterUid: string | undefined) => Promise<void>;
  /** How passwords are hashed and checked; by default better-auth's (scrypt, N = 16384, on libuv's threads). */
  motsDePasse?: HachageDesMotsDePasse;
}

/** better-auth's password hashing, replaceable (`AppOptions.motsDePasse`: the tests' cheaper one, test/helpers.ts). */
export interface HachageDesMotsDePasse {
  hash(password: string): Promise<string>;
  verify(data: { hash: string; password: string }): Promise<boolean>;
}

/** better-auth as the app configures it; built by AuthALaDemande (a-la-demande.ts) when first needed. */
export function createAuth(deps: AuthDeps) {
  const { config, mailer } = deps;
  const origin = new URL(config.publicUrl).origin;
  const secret = authSecret(config);
  const throttle = new AccountThrottle({ repository: new ThrottleRepository(deps.db), secret, rules: deps.rateLimit.account });
  const google = config.google;
  return betterAuth({
    appName: 'Quartier Vivant',
    logger: {
      log: (level, message) => deps.log[level === 'warn' || level === 'error' || level === 'debug' ? level : 'info']({ source: 'better-auth' }, message),
    },
    baseURL: origin,
    basePath: BASE_PATH,
    secret,
    // The app's own Kysely instance: better-auth's camelCase names become snake_case columns; session
    // tokens are stored hashed on the way (sessions-tokens.ts, docs/decisions/0011-session-tokens.md).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    database: { db: withHashedSessionTokens(deps.db) as any, type: deps.kind, transaction: true },
    trustedOrigins: [origin],
    // Sign-up goes through /app/api/user/inscription (French validation, invitation, relations).
    // Profiles change through PATCH /user/me and POST /user/me/pic (French validation, the picture's path
    // kept in its owner's folder): better-auth's own writers of user and session fields are closed.
    disabledPaths: ['/sign-up/email', '/update-user', '/update-session'],
    emailAndPassword: {
      enabled: true,
      minPasswordLength: MOT_DE_PASSE_MIN,
      maxPasswordLength: MOT_DE_PASSE_MAX,
      requireEmailVerification: false,
      autoSignIn: true,
      revokeSessionsOnPasswordReset: true,
      ...(deps.motsDePasse ? { password: deps.motsDePasse } : {}),
      // The owner proved they read the address's mail: a lock on signing in to it ends.
      onPasswordReset: async ({ user }) => {
        await throttle.forget('sign-in', user.email);
      },
      sendResetPassword: async ({ user, url }) => {
        await mailer.enqueue(mailNouveauMotDePasse({ email: user.email, prenom: prenomDe(user) }, url));
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      // The link confirms the address and signs nobody in: opened from a link another site gave (a plain GET), it would
      // sign the visitor in to the link's account, theirs replaced (login CSRF). The browser that signed up has its
      // session already; another one signs in after the page « Votre adresse e-mail est confirmée ».
      autoSignInAfterVerification: false,
      expiresIn: 24 * 3600,
      sendVerificationEmail: async ({ user, url }) => {
        await mailer.enqueue(mailConfirmationAdresse({ email: user.email, prenom: prenomDe(user) }, url));
      },
    },
    user: {
      // The address changes only once the link sent to the new one is opened (never straight away, unverified).
      changeEmail: { enabled: true, updateEmailWithoutVerification: false },
      additionalFields: {
        nom: { type: 'string', required: false, defaultValue: '' },
        prenom: { type: 'string', required: false, defaultValue: '' },
        userType: { type: 'string', required: false, input: false, defaultValue: 'habitant' },
      },
    },
    // Idle and absolute limits by role, and the password change ending other sessions: sessions.ts.
    session: SESSION_OPTIONS,
    plugins: [
      sessionRules(deps.db),
      retourDeConfirmationHttp(BASE_PATH),
      ...(google
        ? [
            genericOAuth({
              config: [
                {
                  providerId: 'google',
                  clientId: google.clientId,
                  clientSecret: google.clientSecret,
                  discoveryUrl: google.discoveryUrl,
                  scopes: ['openid', 'email', 'profile'],
                  pkce: true,
                  // docs/produit.md « Comptes »: the display name's first word goes to nom, the second to prenom.
                  // Cleaned like the profile form's names: capitalised, no control characters or <>, 100 characters at most.
                  mapProfileToUser: (profile) => {
                    const { nom, prenom } = nomsDepuisNomAffiche(profile.name);
                    return { nom, prenom, name: `${prenom} ${nom}`.trim() || 'Habitant' };
                  },
                },
              ],
            }),
          ]
        : []),
    ],
    rateLimit: deps.rateLimit.signIn
      ? {
          enabled: true,
          storage: 'database',
          window: 60,
          max: 100,
          customRules: {
            '/sign-in/email': deps.rateLimit.signIn,
            '/request-password-reset': deps.rateLimit.signIn,
            '/change-password': deps.rateLimit.signIn,
            '/send-verification-email': deps.rateLimit.signIn,
            '/change-email': deps.rateLimit.signIn,
          },
        }
      : { enabled: false },
    advanced: {
      ...cookieOptions(config.publicUrl),
      ipAddress: { ipAddressHeaders: ['x-qv-client-ip'] },
      /*
       * Origins are checked in two layers, both on in every environment: better-auth turns its own check
       * off by itself under a test runner (NODE_ENV=test, Vitest) unless told otherwise, and the tests must
       * run the check production runs.
       * - securite/origine.ts (a hook before every route under /app/api, /auth/* included): a POST, PUT,
       *   PATCH or DELETE that carries the session cookie must come from PUBLIC_URL's origin (Origin, else a
       *   Referer of the site), else `403 ORIGIN_REFUSED`. It runs first, so a signed-in caller from elsewhere
       *   never reaches better-auth. Requests without the cookie pass.
       * - better-auth's check (here, /auth/* only), for what that hook leaves out: a sign-in without a
       *   cookie sent from another site (login CSRF: its Origin or Referer must be trusted, a cross-site
       *   form navigation is refused) answers `403 INVALID_ORIGIN` / `MISSING_OR_NULL_ORIGIN`
       *   (traduction.ts: « Requête refusée : origine inconnue. »); and the addresses a call asks to be
       *   sent back to (callbackURL, redirectTo, errorCallbackURL, newUserCallbackURL) must be of this site
       *   (`403 INVALID_CALLBACK_URL`…: no open redirect).
       * Neither refuses a request with no Origin and no Referer and no cookie (a client that is not a browser),
       * nor a GET. Sign-up is not better-auth's endpoint (/sign-up/email is closed): /user/inscription has its own
       * check (features/compte/routes.ts).
       */
      disableOriginCheck: false,
    },
    databaseHooks: {
      user: {
        // The address changes only when the link mailed to the new one is opened (changeEmail above): that proves it,
        // so it is confirmed, even where the former one was not (better-auth keeps the former state).
        update: {
          before: async (data, context) => {
            if (typeof data.email !== 'string') return undefined;
            // Taken by another account since the link was sent (a sign-up with it meanwhile): the link's page says so,
            // rather than the unique index's 500.
            if (context && (await new CompteRepository(deps.db).adressePrise(data.email))) throw context.redirect(`${RETOUR_CHANGEMENT_ADRESSE}&error=EMAIL_TAKEN`);
            return { data: { ...data, emailVerified: true } };
          },
        },
        create: {
          after: async (user) => {
            // Only Google sign-ups carry OAuth state; e-mail sign-ups go through /user/inscription.
            const state = (await getOAuthState().catch(() => null)) as { inviterUid?: unknown } | null;
            if (!state) return;
            try {
              await deps.onOAuthSignUp(user.id, typeof state.inviterUid === 'string' ? state.inviterUid : undefined);
            } catch {
              // The account exists either way; relations are a bonus that must not fail the sign-in.
            }
          },
        },
      },
    },
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        if (!ctx.path) return;
        const scope = THROTTLED_PATHS[ctx.path];
        const adresses = ctx.body as { email?: unknown; newEmail?: unknown } | undefined;
        const email = ctx.path === '/change-email' ? adresses?.newEmail : adresses?.email;
        if (scope && typeof email === 'string') {
          const verdict = await throttle.attempt(scope, email);
          if (!verdict.allowed) {
            throw new APIError(
              'TOO_MANY_REQUESTS',
              { message: messageVerrouillage(scope, verdict.retryAfterSeconds), code: 'ACCOUNT_LOCKED' },
              { 'retry-after': String(verdict.retryAfterSeconds) },
            );
          }
        }
        // A used, expired or made-up reset link is said first, whatever the password typed: another one would not help.
        if (ctx.path === '/reset-password' && !(await lienDeReinitialisation(ctx))) {
          throw new APIError('BAD_REQUEST', { message: MESSAGES.lienMotDePassePerime, code: 'INVALID_TOKEN' });
        }
        if (!PASSWORD_PATHS.has(ctx.path)) return retourDeConfirmation(ctx);
        const body = ctx.body as { password?: unknown; newPassword?: unknown } | undefined;
        const password = body?.newPassword ?? body?.password;
        if (typeof password === 'string' && (await isCommonPassword(password, await personneOf(ctx)))) {
          // The app's own services (sign-up calls auth.api) get the app's error, with the field named.
          if (!ctx.request) throw new ApiError(400, 'PASSWORD_TOO_COMMON', MOT_DE_PASSE_COURANT, { password: MOT_DE_PASSE_COURANT });
          throw new APIError('BAD_REQUEST', { message: MOT_DE_PASSE_COURANT, code: 'PASSWORD_TOO_COMMON' });
        }
        return retourDeConfirmation(ctx);
      }),
      after: createAuthMiddleware(async (ctx) => {
        // A successful sign-in forgets the address's failures.
        const email = (ctx.body as { email?: unknown } | undefined)?.email;
        if (ctx.path === '/sign-in/email' && ctx.context.newSession && typeof email === 'string') await throttle.forget('sign-in', email);
      }),
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

