import type { AsyncLocalStorage } from 'node:async_hooks';
import { getCurrentAuthContextAsyncLocalStorage, getCurrentDBAdapterAsyncLocalStorage, getRequestStateAsyncLocalStorage } from '@better-auth/core/context';
import { fromNodeHeaders } from 'better-auth/node';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/index.js';
import type { Auth, AuthDeps } from './index.js';
import { LectureSession, type SessionLue } from './lecture-session.js';
import { type ActiveSession, keepSession, sessionVerdict } from './sessions.js';

/**
 * better-auth's AsyncLocalStorages (its request state, its adapter, its endpoint context) and the calls of it under
 * way, whichever app of the process makes them: the storages are the process's (kept on `globalThis` by
 * @better-auth/core), so is the count. The endpoint context's getter is marked deprecated by better-auth but is the
 * only one that gives its storage.
 */
let contextes: (AsyncLocalStorage<unknown> & { enabled?: boolean })[] = [];
let appelsEnCours = 0;

/**
 * better-auth, loaded and built when first needed (issue 11 point 6): a request to /app/api/auth/*, a sign-up, a
 * request that carries a session cookie. Loaded, it holds some 10 MB that a server answering anonymous visitors
 * (status look-ups, the public pages) never needs. Its first use waits for the load once (~0.2 s). The environment
 * is checked at start (config.ts); what better-auth itself would refuse now shows at that first use, and a failed
 * build is tried again at the next.
 */
export class AuthALaDemande {
  private auth: Promise<Auth> | undefined;
  private lecture: Promise<LectureSession> | undefined;

  constructor(private readonly deps: AuthDeps) {}

  get(): Promise<Auth> {
    this.auth ??= import('./index.js')
      .then(async (module) => {
        const auth = module.createAuth(this.deps);
        contextes = await Promise.all([getRequestStateAsyncLocalStorage(), getCurrentDBAdapterAsyncLocalStorage(), getCurrentAuthContextAsyncLocalStorage()]);
        return auth;
      })
      .catch((error: unknown) => {
        this.auth = undefined;
        throw error;
      });
    return this.auth;
  }

  /**
   * Runs `travail` with better-auth, every call of it (its endpoints, its API, its context's helpers) goes through here.
   * better-auth runs its work inside AsyncLocalStorages; on Node 20, the first `run` of one turns on promise hooks for
   * the whole process, and they stay on: every later request, anonymous status lookups included, paid ~40 % more CPU
   * (53 -> 73 µs, bench/run.ts). When the last call under way ends, they are turned off again (`disable`; the next
   * `run` turns them on). better-auth keeps no work of a call running after it (no background task here: the app's
   * e-mails go to the outbox inside the call; `advanced.backgroundTasks` or a plugin using `runInBackground` would
   * change that). Only the storages built on async hooks (Node 20 and 22: their `enabled` flag) are turned off; Node
   * 24's, built on the context frame, cost nothing and are left alone.
   */
  async avec<T>(travail: (auth: Auth) => Promise<T>): Promise<T> {
    appelsEnCours += 1;
    try {
      return await travail(await this.get());
    } finally {
      appelsEnCours -= 1;
      if (appelsEnCours === 0) for (const contexte of contextes) if (contexte.enabled === true) contexte.disable();
    }
  }

  /**
   * The session read of the app's routes (lecture-session.ts), with better-auth's cookie name and secret. A better-auth
   * whose context failed (its promise stays rejected) is dropped with it: the next request builds both again.
   */
  lectureSession(db: Db): Promise<LectureSession> {
    this.lecture ??= this.get()
      .then((auth) =>
        auth.$context.catch((error: unknown) => {
          this.auth = undefined;
          throw error;
        }),
      )
      .then((context) => new LectureSession(db, { name: context.authCookies.sessionToken.name, secret: context.secret }))
      .catch((error: unknown) => {
        this.lecture = undefined;
        throw error;
      });
    return this.lecture;
  }
}

export interface SessionUser {
  id: string;
  email: string;
  userType: string;
  /** The session of this request, as the limits left it (sessions.ts): its sign-in and its recorded activity. */
  session: ActiveSession;
}

/**
 * This HTTP request's session as the app's own read finds it (lecture-session.ts): null (no session cookie: no
 * database look-up; a bad signature; no such session), the session read, or 'better-auth' when better-auth has a
 * write to make (an expired session to delete, an expiry to move forward).
 */
async function sessionLue(auth: AuthALaDemande, request: FastifyRequest): Promise<SessionLue | 'better-auth' | null> {
  const cookie = request.headers.cookie;
  if (!cookie || !cookie.includes('session_token')) return null;
  return (await auth.lectureSession(request.server.deps.db)).lire(cookie);
}

/** The session's times the limits by role read (sessions.ts). */
const tempsDe = (lue: SessionLue) => ({ id: lue.sessionId, createdAt: lue.createdAt, lastActiveAt: lue.lastActiveAt });

/** better-auth's own getSession, then the limits by role: an ended session is deleted and the request is anonymous. */
async function parBetterAuth(auth: AuthALaDemande, request: FastifyRequest): Promise<SessionUser | null> {
  const session = await auth.avec((betterAuth) => betterAuth.api.getSession({ headers: fromNodeHeaders(request.headers) }));
  if (!session) return null;
  const user = session.user as typeof session.user & { userType?: string };
  const active = await keepSession(request.server.deps.db, session.session, user.userType);
  if (!active) return null;
  return { id: user.id, email: user.email, userType: user.userType ?? 'habitant', session: active };
}

/**
 * The signed-in user of this HTTP request, or null (no cookie: no database look-up). One indexed query
 * (lecture-session.ts); better-auth's own getSession only when it has a write to make (an expired
 * session to delete, an expiry to move forward).
 */
export async function sessionUser(auth: AuthALaDemande, request: FastifyRequest): Promise<SessionUser | null> {
  const lue = await sessionLue(auth, request);
  if (lue === null) return null;
  if (lue === 'better-auth') return parBetterAuth(auth, request);
  // The limits by role (sessions.ts): an ended session is deleted and the request is anonymous.
  const active = await keepSession(request.server.deps.db, tempsDe(lue), lue.userType);
  if (!active) return null;
  return { id: lue.userId, email: lue.email, userType: lue.userType ?? 'habitant', session: active };
}

/**
 * The account of this HTTP request's session read again now, or null when it has ended (signed out, revoked, the
 * account deleted, past its limits): for a request that lasts, a live stream, which asks while it stays open. Its
 * activity is not written: an open page must not keep a session alive past its idle limit.
 */
export async function sessionRelue(auth: AuthALaDemande, request: FastifyRequest): Promise<Pick<SessionUser, 'id' | 'userType'> | null> {
  const lue = await sessionLue(auth, request);
  if (lue === null) return null;
  if (lue === 'better-auth') return parBetterAuth(auth, request);
  if (sessionVerdict(tempsDe(lue), lue.userType) === 'over') return null;
  return { id: lue.userId, userType: lue.userType ?? 'habitant' };
}
