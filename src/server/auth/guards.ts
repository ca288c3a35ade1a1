import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { isGestionnaire } from '../../domain/compte.js';
import { MESSAGES } from '../../domain/erreurs.js';
import { ApiError } from '../errors.js';
import { sessionRelue, sessionUser, type SessionUser } from './a-la-demande.js';

/**
 * Authorisation declared, not called: a guard is an `onRequest` hook of an encapsulated scope, so
 * every route registered in that scope is protected without a check of its own (docs/produit.md
 * « Rôles »). Routes read the signed-in account with `compteDe(request)`.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in account, once looked up (undefined: not looked up yet). */
    compte: SessionUser | null | undefined;
  }
  interface FastifyContextConfig {
    /** Who may call the route; set by the guard of its scope, read by the route-table tests. */
    acces?: Acces;
  }
}

export type Acces = 'public' | 'compte' | 'gestionnaire' | 'admin';

/** The signed-in account of this HTTP request, or null; looked up once per request. */
export async function compteDe(request: FastifyRequest): Promise<SessionUser | null> {
  if (request.compte === undefined) request.compte = await sessionUser(request.server.deps.auth, request);
  return request.compte;
}

/**
 * Whether this request's session is still a manager's, read again now (a live stream open since the guard let it in:
 * sign-out, revocation, deletion and a role taken back end it).
 */
export async function encoreGestionnaire(request: FastifyRequest): Promise<boolean> {
  const compte = await sessionRelue(request.server.deps.auth, request);
  return compte !== null && isGestionnaire(compte.userType);
}

const GUARDS: Record<Exclude<Acces, 'public'>, onRequestAsyncHookHandler> = {
  async compte(request) {
    if (!(await compteDe(request))) throw new ApiError(401, 'UNAUTHENTICATED', MESSAGES.connexionRequise);
  },
  async gestionnaire(request) {
    const compte = await compteDe(request);
    if (!compte) throw new ApiError(401, 'UNAUTHENTICATED', MESSAGES.connexionGestionnaire);
    if (!isGestionnaire(compte.userType)) throw new ApiError(403, 'FORBIDDEN', MESSAGES.reserveGestionnaires);
  },
  async admin(request) {
    const compte = await compteDe(request);
    if (!compte) throw new ApiError(401, 'UNAUTHENTICATED', MESSAGES.connexionRequise);
    if (compte.userType !== 'admin') throw new ApiError(403, 'FORBIDDEN', MESSAGES.reserveAdministrateurs);
  },
};

export function registerRequestDecorations(app: FastifyInstance): void {
  app.decorateRequest('compte', undefined);
}

/** The guard of one access level, for a route whose access depends on its input (see /evenements). */
export function garde(acces: Exclude<Acces, 'public'>): onRequestAsyncHookHandler {
  return GUARDS[acces];
}

/**
 * A scope whose every route requires `acces`: the guard runs on each request before anything else of
 * the route (body parsing included), and each route is tagged with its access level.
 */
export function reserve(acces: Exclude<Acces, 'public'>, routes: FastifyPluginAsync): FastifyPluginAsync {
  return async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), acces } as typeof route.config;
    });
    scope.addHook('onRequest', GUARDS[acces]);
    await scope.register(routes);
  };
}
