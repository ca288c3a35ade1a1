import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dictionary } from '@zxcvbn-ts/language-common';
import { betterAuth } from 'better-auth';
import { APIError, createAuthMiddleware, getOAuthState } from 'better-auth/api';
import { fromNodeHeaders } from 'better-auth/node';
import { genericOAuth } from 'better-auth/plugins/generic-oauth';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { MOT_DE_PASSE_COURANT, MOT_DE_PASSE_MAX, MOT_DE_PASSE_MIN } from '../../domain/compte.js';
import type { Config } from '../config.js';
import type { Db, DbKind } from '../db/index.js';
import { mailConfirmationAdresse, mailNouveauMotDePasse } from '../features/compte/mails.js';
import type { Mailer } from '../mail/index.js';

/** 49,000 most common passwords (zxcvbn's list), compared in lowercase. */
const COMMON_PASSWORDS = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));
export const COMMON_PASSWORD_COUNT = COMMON_PASSWORDS.size;

export function isCommonPassword(password: string): boolean {
  return COMMON_PASSWORDS.has(password.toLowerCase());
}

/** Endpoints that set a password: the common-password rule applies to each. */
const PASSWORD_PATHS = new Set(['/sign-up/email', '/reset-password', '/change-password']);

/** The secret that signs sessions and e-mail links: AUTH_SECRET, else one generated once and kept in DATA_DIR. */
export function authSecret(config: Config): string {
  if (config.authSecret) return config.authSecret;
  const file = path.join(config.dataDir, 'auth-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    const secret = randomBytes(48).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
    return fs.readFileSync(file, 'utf8').trim();
  }
}

export interface AuthRateLimits {
  signIn: { window: number; max: number } | false;
}

export function createAuth(deps: {
  config: Config;
  db: Db;
  kind: DbKind;
  mailer: Mailer;
  rateLimit: AuthRateLimits;
  /** The app's logger: better-auth's messages go there (JSON, levels), never straight to the console. */
  log: FastifyBaseLogger;
  /** An account was just created through Google, maybe from an invitation link. */
  onOAuthSignUp: (userId: string, inviterUid: string | undefined) => Promise<void>;
}) {
  const { config, mailer } = deps;
  const origin = new URL(config.publicUrl).origin;
  const google = config.google;
  return betterAuth({
    appName: 'Quartier Vivant',
    logger: {
      log: (level, message) => deps.log[level === 'warn' || level === 'error' || level === 'debug' ? level : 'info']({ source: 'better-auth' }, message),
    },
    baseURL: origin,
    basePath: '/app/api/auth',
    secret: authSecret(config),
    // The app's own Kysely instance: better-auth's camelCase names become snake_case columns.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    database: { db: deps.db as any, type: deps.kind, transaction: true },
    trustedOrigins: [origin],
    // Sign-up goes through /app/api/user/inscription (French validation, invitation, relations).
    disabledPaths: ['/sign-up/email'],
    emailAndPassword: {
      enabled: true,
      minPasswordLength: MOT_DE_PASSE_MIN,
      maxPasswordLength: MOT_DE_PASSE_MAX,
      requireEmailVerification: false,
      autoSignIn: true,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, url }) => {
        mailer.send(mailNouveauMotDePasse(user.email, url));
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: true,
      expiresIn: 24 * 3600,
      sendVerificationEmail: async ({ user, url }) => {
        mailer.send(mailConfirmationAdresse(user.email, url));
      },
    },
    user: {
      changeEmail: { enabled: true },
      additionalFields: {
        nom: { type: 'string', required: false, defaultValue: '' },
        prenom: { type: 'string', required: false, defaultValue: '' },
        userType: { type: 'string', required: false, input: false, defaultValue: 'habitant' },
      },
    },
    session: { expiresIn: 30 * 24 * 3600, updateAge: 24 * 3600 },
    plugins: google
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
                mapProfileToUser: (profile) => {
                  const words = (typeof profile.name === 'string' ? profile.name : '').trim().split(/\s+/u);
                  return { nom: words[0] ?? '', prenom: words[1] ?? '' };
                },
              },
            ],
          }),
        ]
      : [],
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
          },
        }
      : { enabled: false },
    advanced: {
      cookiePrefix: 'qv',
      ipAddress: { ipAddressHeaders: ['x-qv-client-ip'] },
    },
    databaseHooks: {
      user: {
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
        if (!ctx.path || !PASSWORD_PATHS.has(ctx.path)) return;
        const body = ctx.body as { password?: unknown; newPassword?: unknown } | undefined;
        const password = body?.newPassword ?? body?.password;
        if (typeof password === 'string' && isCommonPassword(password)) {
          throw new APIError('BAD_REQUEST', { message: MOT_DE_PASSE_COURANT, code: 'PASSWORD_TOO_COMMON' });
        }
      }),
    },
  });
}

export type Auth = ReturnType<typeof createAuth>;

export interface SessionUser {
  id: string;
  email: string;
  userType: string;
}

/** The signed-in user of this HTTP request, or null (no cookie: no database look-up). */
export async function sessionUser(auth: Auth, request: FastifyRequest): Promise<SessionUser | null> {
  const cookie = request.headers.cookie;
  if (!cookie || !cookie.includes('session_token')) return null;
  const session = await auth.api.getSession({ headers: fromNodeHeaders(request.headers) });
  if (!session) return null;
  const user = session.user as typeof session.user & { userType?: string };
  return { id: user.id, email: user.email, userType: user.userType ?? 'habitant' };
}
