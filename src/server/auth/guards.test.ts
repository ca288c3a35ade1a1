import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, type TestContext } from '../../../test/helpers.js';
import { z } from '../../domain/zod.js';
import { compteDe, garde, reserve } from './guards.js';

/**
 * Guards are declared, not called (docs/decisions/0010): a scope made with `reserve(acces, routes)`
 * refuses whoever may not call its routes, before anything else of the route runs. Real app, real
 * sign-ups and session cookies; a few routes of our own are added to the app to observe the guards.
 */

type Compte = Awaited<ReturnType<typeof createAccount>>;
let ctx: TestContext;
let habitant: Compte;
let manager: Compte;
let admin: Compte;
let ephemere: Compte;

const NIVEAUX = ['compte', 'gestionnaire', 'admin'] as const;

/** What a route sees: its access level, its own config, and the signed-in account. */
async function vu(request: FastifyRequest) {
  const config = request.routeOptions.config as { acces?: string; etiquette?: string };
  return { acces: config.acces ?? null, etiquette: config.etiquette ?? null, compte: (await compteDe(request))?.id ?? null };
}

beforeAll(async () => {
  ctx = await createTestApp();
  // Our routes are added before the app is ready (the first sign-up below makes it ready).
  for (const acces of NIVEAUX) {
    await ctx.app.register(
      reserve(acces, async (scope) => {
        scope.get(`/essai/${acces}`, { config: { etiquette: `route ${acces}` } as object }, vu);
        scope.post(`/essai/${acces}`, { schema: { body: z.object({ n: z.number() }) } }, vu);
      }),
    );
  }
  ctx.app.get('/essai/public', vu);
  ctx.app.get('/essai/garde/gestionnaire', { onRequest: garde('gestionnaire') }, vu);
  ctx.app.get('/essai/garde/admin', { onRequest: garde('admin') }, vu);
  ctx.app.get('/essai/garde/compte', { onRequest: garde('compte') }, vu);
  // Looks the account up, ends its sessions in the database, then looks it up again.
  ctx.app.get('/essai/deux-fois', async (request) => {
    const avant = await compteDe(request);
    if (avant) await ctx.app.deps.db.deleteFrom('session').where('userId', '=', avant.id).execute();
    const apres = await compteDe(request);
    return { avant: avant?.id ?? null, apres: apres?.id ?? null };
  });
  habitant = await createAccount(ctx, 'habitant');
  manager = await createAccount(ctx, 'manager');
  admin = await createAccount(ctx, 'admin');
  ephemere = await createAccount(ctx, 'habitant');
});

afterAll(async () => {
  await ctx.close();
});

const get = (url: string, who?: Compte) => ctx.app.inject({ method: 'GET', url, headers: who ? { cookie: who.cookie } : {} });

const CONNEXION = { error: { code: 'UNAUTHENTICATED', message: 'Connectez-vous pour continuer.' } };
const CONNEXION_GESTIONNAIRE = { error: { code: 'UNAUTHENTICATED', message: 'Connectez-vous avec un compte de gestionnaire.' } };
const RESERVE_GESTIONNAIRES = { error: { code: 'FORBIDDEN', message: 'Accès réservé aux gestionnaires de la mairie annexe.' } };
const RESERVE_ADMINISTRATEURS = { error: { code: 'FORBIDDEN', message: 'Accès réservé aux administrateurs.' } };

/** Who gets what, per access level: [status, body] for anonymous, habitant, manager, admin. */
const MATRICE: Record<(typeof NIVEAUX)[number], [number, object | null][]> = {
  compte: [[401, CONNEXION], [200, null], [200, null], [200, null]],
  gestionnaire: [[401, CONNEXION_GESTIONNAIRE], [403, RESERVE_GESTIONNAIRES], [200, null], [200, null]],
  admin: [[401, CONNEXION], [403, RESERVE_ADMINISTRATEURS], [403, RESERVE_ADMINISTRATEURS], [200, null]],
};

describe('reserve(acces, routes)', () => {
  it.each(NIVEAUX)('lets only the right accounts into a scope reserved to « %s », in French', async (acces) => {
    const qui = [undefined, habitant, manager, admin];
    for (const [i, [status, body]] of MATRICE[acces].entries()) {
      const res = await get(`/essai/${acces}`, qui[i]);
      expect(res.statusCode, `${acces} / ${qui[i]?.email ?? 'anonyme'}`).toBe(status);
      if (body) expect(res.json()).toEqual(body);
      else expect(res.json()).toEqual({ acces, etiquette: `route ${acces}`, compte: qui[i]!.uid });
    }
  });

  it('refuses before reading the body: a broken body gets 401 or 403, not 400', async () => {
    const post = (acces: string, who?: Compte) =>
      ctx.app.inject({ method: 'POST', url: `/essai/${acces}`, payload: '{"n":', headers: { 'content-type': 'application/json', ...(who ? { cookie: who.cookie } : {}) } });
    expect((await post('compte')).statusCode).toBe(401);
    expect((await post('gestionnaire', habitant)).statusCode).toBe(403);
    expect((await post('admin', manager)).statusCode).toBe(403);
    const admis = await post('admin', admin);
    expect([admis.statusCode, admis.json().error.code]).toEqual([400, 'INVALID_JSON']);
  });

  it('tags each route of the scope with its access level, keeping its own config', () => {
    for (const acces of NIVEAUX) {
      const routes = ctx.app.routeTable.filter((r) => r.url === `/essai/${acces}`);
      expect(routes.map((r) => r.method)).toEqual(['GET', 'HEAD', 'POST']);
      for (const route of routes) expect((route.config as { acces?: string }).acces).toBe(acces);
      expect((routes[0]!.config as { etiquette?: string }).etiquette).toBe(`route ${acces}`);
    }
  });

  it('protects nothing outside its scope', async () => {
    expect((await get('/essai/public')).json()).toEqual({ acces: null, etiquette: null, compte: null });
    expect((await get('/essai/public', habitant)).json()).toEqual({ acces: null, etiquette: null, compte: habitant.uid });
    expect(ctx.app.routeTable.find((r) => r.url === '/essai/public')?.config).toBeUndefined();
  });

  it("protects the app's own scopes: managers' list, the account's requests, administration", async () => {
    const cas: [string, number[]][] = [
      ['/app/api/logement', [401, 403, 200, 200]],
      ['/app/api/logement/mine', [401, 200, 200, 200]],
      ['/app/api/admin/users', [401, 403, 403, 200]],
    ];
    for (const [url, statuses] of cas) {
      const seen = [];
      for (const who of [undefined, habitant, manager, admin]) seen.push((await get(url, who)).statusCode);
      expect(seen, url).toEqual(statuses);
    }
  });
});

describe('garde(acces)', () => {
  it('gives the same guard to a single route', async () => {
    for (const acces of NIVEAUX) {
      const qui = [undefined, habitant, manager, admin];
      for (const [i, [status, body]] of MATRICE[acces].entries()) {
        const res = await get(`/essai/garde/${acces}`, qui[i]);
        expect(res.statusCode, `${acces} / ${i}`).toBe(status);
        if (body) expect(res.json()).toEqual(body);
        else expect(res.json().compte).toBe(qui[i]!.uid);
      }
    }
  });
});

describe('compteDe(request)', () => {
  it('is null for a request without a session, or with a session that does not exist', async () => {
    expect((await get('/essai/public')).json().compte).toBeNull();
    const faux = await ctx.app.inject({ method: 'GET', url: '/essai/public', headers: { cookie: 'qv.session_token=inconnu.signature' } });
    expect(faux.json().compte).toBeNull();
    const autre = await ctx.app.inject({ method: 'GET', url: '/essai/public', headers: { cookie: 'theme=sombre' } });
    expect(autre.json().compte).toBeNull();
  });

  it('looks the account up once per request', async () => {
    // The sessions end between the two look-ups: the request keeps the account it started with…
    expect((await get('/essai/deux-fois', ephemere)).json()).toEqual({ avant: ephemere.uid, apres: ephemere.uid });
    // …and the next request has none.
    expect((await get('/essai/deux-fois', ephemere)).json()).toEqual({ avant: null, apres: null });
    expect((await get('/essai/compte', ephemere)).statusCode).toBe(401);
  });
});
