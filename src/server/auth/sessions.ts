import type { BetterAuthOptions } from 'better-auth';
import { isGestionnaire } from '../../domain/compte.js';
import type { Db } from '../db/index.js';

/**
 * How long a session lives (docs/produit.md « Comptes », ASVS 3.3): a manager's or an admin's session
 * ends after 30 minutes without a request and 12 hours after the sign-in whatever its activity; a
 * resident's after 30 days without a request and 90 days after the sign-in. The role read is the
 * account's role now, so a promotion takes the shorter limits at the next request.
 */
export const SESSION_LIMITS = {
  gestion: { idleMs: 30 * 60_000, absoluteMs: 12 * 3600_000 },
  habitant: { idleMs: 30 * 24 * 3600_000, absoluteMs: 90 * 24 * 3600_000 },
} as const;

/** The activity time is written at most once a minute per session (not on every request). */
export const ACTIVITY_WRITE_EVERY_MS = 60_000;

/** better-auth's own sliding expiry: the residents' idle limit; its refresh writes at most once a day. */
export const SESSION_EXPIRES_IN_S = SESSION_LIMITS.habitant.idleMs / 1000;
export const SESSION_UPDATE_AGE_S = 24 * 3600;

/** The session fields the limits read (better-auth's session, with lastActiveAt of migration 0008). */
export interface SessionTimes {
  id: string;
  createdAt: Date | string;
  lastActiveAt?: Date | string | null;
}

function time(value: Date | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  const ms = (value instanceof Date ? value : new Date(value)).getTime();
  return Number.isFinite(ms) ? ms : null;
}

export type SessionVerdict = 'over' | 'touch' | 'keep';

/** The limits of an account's role now (`userType`). */
export function limitsOf(userType: string | null | undefined): { idleMs: number; absoluteMs: number } {
  return isGestionnaire(userType) ? SESSION_LIMITS.gestion : SESSION_LIMITS.habitant;
}

/** Whether a session has ended by the limits of `userType`, or its activity time is due for a write. */
export function sessionVerdict(session: SessionTimes, userType: string | null | undefined, now = Date.now()): SessionVerdict {
  const limits = limitsOf(userType);
  const created = time(session.createdAt);
  if (created === null || now - created > limits.absoluteMs) return 'over';
  const lastActive = Math.max(created, time(session.lastActiveAt) ?? created);
  if (now - lastActive > limits.idleMs) return 'over';
  return now - lastActive >= ACTIVITY_WRITE_EVERY_MS ? 'touch' : 'keep';
}

/** A session still running, once the limits were applied: its sign-in and its activity as recorded now (ms). */
export interface ActiveSession {
  createdAt: number;
  lastActiveAt: number;
}

/**
 * Applies the limits to a session just read: an ended session is deleted (null: the request is
 * anonymous), an active one gets its activity time written when due. Answers the times the limits will
 * read at the next request (`lastActiveAt` is the one just written, if any).
 */
export async function keepSession(db: Db, session: SessionTimes, userType: string | null | undefined, now = Date.now()): Promise<ActiveSession | null> {
  const verdict = sessionVerdict(session, userType, now);
  if (verdict === 'over') {
    await db.deleteFrom('session').where('id', '=', session.id).execute();
    return null;
  }
  const createdAt = time(session.createdAt)!;
  if (verdict === 'touch') {
    // ISO text: what better-auth writes for dates on SQLite; PostgreSQL reads it into its timestamptz.
    await db.updateTable('session').set({ lastActiveAt: new Date(now).toISOString() }).where('id', '=', session.id).execute();
    return { createdAt, lastActiveAt: now };
  }
  return { createdAt, lastActiveAt: Math.max(createdAt, time(session.lastActiveAt) ?? createdAt) };
}

/**
 * When a running session ends by the limits of `userType` (GET /user/session, docs/api.md « Accounts »):
 * with no further request, `idleMs` after its recorded activity; whatever happens, `absoluteMs` after the
 * sign-in. The recorded activity moves only when a request comes `ACTIVITY_WRITE_EVERY_MS` or more after
 * it: a client reckons the idle end from it, not from its own last request.
 */
export function sessionEnds(session: ActiveSession, userType: string | null | undefined): { lastActiveAt: number; idleEnd: number; absoluteEnd: number; idleMs: number } {
  const limits = limitsOf(userType);
  return {
    lastActiveAt: session.lastActiveAt,
    idleEnd: session.lastActiveAt + limits.idleMs,
    absoluteEnd: session.createdAt + limits.absoluteMs,
    idleMs: limits.idleMs,
  };
}

/** The session fields better-auth reads and returns beside its own. */
export const SESSION_OPTIONS = {
  expiresIn: SESSION_EXPIRES_IN_S,
  updateAge: SESSION_UPDATE_AGE_S,
  additionalFields: {
    lastActiveAt: { type: 'date', required: false, input: false },
  },
} satisfies BetterAuthOptions['session'];

/**
 * Cookie names and attributes. Over http (localhost, tests) the session cookie is `qv.session_token`.
 * Behind HTTPS it is `__Host-qv.session_token`: Secure, Path=/, no Domain, so neither a sibling
 * sub-domain nor a plain-http page can set or shadow it (better-auth would only say `__Secure-`).
 */
export function cookieOptions(publicUrl: string): Pick<NonNullable<BetterAuthOptions['advanced']>, 'cookiePrefix' | 'useSecureCookies' | 'cookies' | 'defaultCookieAttributes'> {
  const https = new URL(publicUrl).protocol === 'https:';
  if (!https) return { cookiePrefix: 'qv' };
  const host = (name: string) => ({ name: `__Host-qv.${name}`, attributes: { secure: true, path: '/' } });
  return {
    cookiePrefix: 'qv',
    // The prefix is ours (`__Host-`), so better-auth's own (`__Secure-`) is turned off; every cookie stays Secure.
    useSecureCookies: false,
    defaultCookieAttributes: { secure: true },
    cookies: { session_token: host('session_token'), session_data: host('session_data'), dont_remember: host('dont_remember') },
  };
}
