import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/index.js';
import { RequetePreparee } from '../db/preparee.js';
import { hashSessionToken } from './sessions-tokens.js';
import { SESSION_EXPIRES_IN_S, SESSION_UPDATE_AGE_S } from './sessions.js';

/**
 * The session read of the app's own routes, without better-auth's endpoint machinery (0.9 ms per
 * request, issue 11): the cookie's signature checked as better-auth checks it, then one indexed query on
 * the session's hashed token joined to its account. The session table stays the only authority: a
 * sign-out, a revocation or an account's deletion removes the row, and the very next request is anonymous
 * (one made by another process, the `user` CLI on SQLite, from the next turn of the event loop: db/lectures-groupees.ts).
 * Whatever better-auth would do more than read (delete an expired session, push the expiry forward) is
 * left to better-auth itself: `lireSession` then answers 'better-auth' and the caller asks it.
 */

export interface SessionLue {
  sessionId: string;
  userId: string;
  email: string;
  userType: string | null;
  createdAt: Date | string;
  lastActiveAt: Date | string | null;
  expiresAt: Date | string;
}

const SELECT = `select s.id as "sessionId", s.user_id as "userId", u.email as "email", u.user_type as "userType", s.created_at as "createdAt", s.last_active_at as "lastActiveAt", s.expires_at as "expiresAt" from "session" s join "user" u on u.id = s.user_id`;

/**
 * The value of cookie `name` in a Cookie header, as better-call reads it (the first one of that name,
 * trimmed, unquoted, percent-decoded), or null.
 */
export function valeurCookie(header: string, name: string): string | null {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1 || part.slice(0, eq).trim() !== name) continue;
    let value = part.slice(eq + 1).trim();
    if (value.charCodeAt(0) === 34) value = value.slice(1, -1);
    if (!value.includes('%')) return value;
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return null;
}

const SIGNATURE = /^[A-Za-z0-9+/]{43}=$/u;

/** The token of a signed cookie value (`token.base64(HMAC-SHA256(secret, token))`), or null when the signature is wrong. */
export function jetonSigne(value: string, secret: string): string | null {
  const dot = value.lastIndexOf('.');
  if (dot < 1) return null;
  const token = value.slice(0, dot);
  const signature = value.slice(dot + 1);
  if (!SIGNATURE.test(signature)) return null;
  const expected = createHmac('sha256', secret).update(token, 'utf8').digest();
  const given = Buffer.from(signature, 'base64');
  return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
}

function ms(value: Date | string | null): number {
  if (value === null) return Number.NaN;
  return (value instanceof Date ? value : new Date(value)).getTime();
}

/** How many verified cookie values a LectureSession remembers (~2 MB at most); past it, it starts again empty. */
export const JETONS_RETENUS = 10_000;

/** better-auth's signed values are ~77 characters (a 32-character token, a dot, 44 of signature); longer ones are not remembered. */
const VALEUR_RETENUE_MAX = 200;

/**
 * Whether a signed value may be remembered: short, and its signature in base64's one spelling (the last character
 * of 43 carries two unused bits, so four spellings decode alike; only the one better-auth writes is kept).
 */
function retenable(value: string): boolean {
  if (value.length > VALEUR_RETENUE_MAX) return false;
  const signature = value.slice(value.lastIndexOf('.') + 1);
  return Buffer.from(signature, 'base64').toString('base64') === signature;
}

export class LectureSession {
  private readonly requete: RequetePreparee<SessionLue>;
  /**
   * Cookie values whose signature was checked, with their token's hash: a signed-in person's every request
   * would otherwise pay an HMAC and a SHA-256 again (~25 µs of a lookup's ~320). Keyed by the whole value,
   * signature included, and only for good signatures: a forged one is checked every time. The session row is
   * still read at each request, so a sign-out or a revocation acts at once.
   */
  private readonly verifies = new Map<string, string>();

  constructor(
    db: Db,
    /** better-auth's session cookie name and secret (its `$context`). */
    private readonly cookie: { name: string; secret: string },
  ) {
    this.requete = new RequetePreparee<SessionLue>(db, 'qv_session_par_jeton', `${SELECT} where s.token = ?`, `${SELECT} where s.token = $1`);
  }

  /**
   * The session of this Cookie header: null (no session cookie, a bad signature, no such session),
   * the session read, or 'better-auth' when better-auth has more to do than read it (expired: to delete;
   * its expiry due to move forward).
   */
  async lire(header: string, now = Date.now()): Promise<SessionLue | 'better-auth' | null> {
    const value = valeurCookie(header, this.cookie.name);
    if (!value) return null;
    let tokenHash = this.verifies.get(value);
    if (tokenHash === undefined) {
      const token = jetonSigne(value, this.cookie.secret);
      if (!token) return null;
      tokenHash = hashSessionToken(token);
      if (retenable(value)) {
        if (this.verifies.size >= JETONS_RETENUS) this.verifies.clear();
        // A copy: a slice of the Cookie header would keep the whole header in memory.
        this.verifies.set(Buffer.from(value, 'utf8').toString('utf8'), tokenHash);
      }
    }
    const session = await this.requete.first(tokenHash);
    if (!session) return null;
    const expiresAt = ms(session.expiresAt);
    // better-auth's getSession: expired → deleted; within updateAge of its start → expiry moved forward.
    if (!(expiresAt > now) || expiresAt - SESSION_EXPIRES_IN_S * 1000 + SESSION_UPDATE_AGE_S * 1000 <= now) return 'better-auth';
    return session;
  }
}
