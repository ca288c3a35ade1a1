import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MESSAGES } from '../src/domain/erreurs.js';
import { LectureSession } from '../src/server/auth/lecture-session.js';
import { hashSessionToken } from '../src/server/auth/sessions-tokens.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { toComplete, toStatutVue } from '../src/server/features/demandes/vues.js';
import { niveauRequete, REQUETE_LENTE_MS } from '../src/server/securite/journal.js';
import { createAccount, createTestApp, demande, multipart, SAMPLES, type TestContext } from './helpers.js';

/**
 * The status lookup, GET /logement/:numeroUnique (issue 11, item 3): a lean read of six columns by a
 * statement prepared once, the whole row only for a full view; the session read by one query, none
 * without a cookie or with the private key; one log line per request, none for a success at `info`.
 * Each answer must be the one the whole-row read gave before.
 */

type Compte = Awaited<ReturnType<typeof createAccount>>;
let ctx: TestContext;
let repository: DemandesRepository;
let owner: Compte;
let voisin: Compte;
let manager: Compte;
let possedee: { numeroUnique: string; accessKey: string };
let anonyme: { numeroUnique: string; accessKey: string };
const written: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callback();
    },
  });
  ctx = await createTestApp({}, { logger: { level: 'info', stream } });
  repository = new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind);
  owner = await createAccount(ctx, 'habitant');
  voisin = await createAccount(ctx, 'habitant');
  manager = await createAccount(ctx, 'manager');
  const create = async (cookie?: string) =>
    (await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande(), headers: cookie ? { cookie } : {} })).json().data as { numeroUnique: string; accessKey: string };
  possedee = await create(owner.cookie);
  anonyme = await create();
  // Two in one category and one in another: the full view lists each category's documents in upload order.
  const body = await multipart([
    { field: 'tax', name: 'avis.pdf', content: SAMPLES.pdf, type: 'application/pdf' },
    { field: 'other', name: 'autre.pdf', content: SAMPLES.pdf, type: 'application/pdf' },
    { field: 'tax', name: 'avis-2.pdf', content: SAMPLES.pdf, type: 'application/pdf' },
  ]);
  const up = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${possedee.numeroUnique}`, headers: { ...body.headers, 'x-access-key': possedee.accessKey }, payload: body.payload });
  expect(up.statusCode, up.body).toBe(201);
});

afterAll(async () => {
  await ctx.close();
});

afterEach(() => {
  vi.restoreAllMocks();
});

const lookup = (numero: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}`, headers });

/** The answer the whole-row read gave (before issue 11): the status view, or the full view with its documents. */
async function attendu(numero: string, complet: boolean): Promise<unknown> {
  const row = (await repository.findByNumero(numero))!;
  const vue = complet ? toComplete(row, await repository.listDocuments(row.id)) : toStatutVue(row);
  return JSON.parse(JSON.stringify({ data: vue }));
}

describe('GET /logement/:numeroUnique answers as the whole-row read did', () => {
  it('the status view to anyone, and to other inhabitants', async () => {
    for (const headers of [{}, { cookie: voisin.cookie }, { 'x-access-key': anonyme.accessKey }] as Record<string, string>[]) {
      const res = await lookup(possedee.numeroUnique, headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(await attendu(possedee.numeroUnique, false));
      expect(Object.keys(res.json().data).sort()).toEqual(['acces', 'dateDEnregistrement', 'numeroUnique', 'statutDeLaDemande']);
    }
  });

  it('the full view, documents included, to the key holder, the owner and managers', async () => {
    // Another request's key beside the owner's cookie: the cookie still opens it.
    for (const headers of [
      { 'x-access-key': possedee.accessKey },
      { cookie: owner.cookie },
      { cookie: manager.cookie },
      { 'x-access-key': possedee.accessKey, cookie: voisin.cookie },
      { 'x-access-key': anonyme.accessKey, cookie: owner.cookie },
    ] as Record<string, string>[]) {
      const res = await lookup(possedee.numeroUnique, headers);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(await attendu(possedee.numeroUnique, true));
      expect(res.json().data.documents.tax.map((d: { name: string }) => d.name)).toEqual(['avis.pdf', 'avis-2.pdf']);
    }
    expect((await lookup(anonyme.numeroUnique, { cookie: manager.cookie })).json()).toEqual(await attendu(anonyme.numeroUnique, true));
    // No document, no correction: the same through the key's single read.
    expect((await lookup(anonyme.numeroUnique, { 'x-access-key': anonyme.accessKey })).json()).toEqual(await attendu(anonyme.numeroUnique, true));
  });

  it('404 in French for an unknown numéro and for an erased request, whoever asks', async () => {
    const efface = (await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() })).json().data as { numeroUnique: string; accessKey: string };
    await ctx.app.deps.db.updateTable('housingRequests').set({ effaceeLe: new Date().toISOString() }).where('numeroUnique', '=', efface.numeroUnique).execute();
    for (const numero of ['013inconnu00', efface.numeroUnique]) {
      for (const headers of [{}, { 'x-access-key': efface.accessKey }, { cookie: manager.cookie }] as Record<string, string>[]) {
        const res = await lookup(numero, headers);
        expect(res.statusCode).toBe(404);
        expect(res.json().error).toMatchObject({ code: 'NOT_FOUND', message: MESSAGES.demandeIntrouvable });
      }
    }
  });

  it('never shows a change not yet committed (a transaction open meanwhile is waited for)', async () => {
    const before = (await lookup(anonyme.numeroUnique)).json().data.statutDeLaDemande as string;
    let pending: ReturnType<typeof lookup> | undefined;
    await expect(
      ctx.app.deps.db.transaction().execute(async (trx) => {
        await trx.updateTable('housingRequests').set({ statutDeLaDemande: 'Refusé' }).where('numeroUnique', '=', anonyme.numeroUnique).execute();
        pending = lookup(anonyme.numeroUnique);
        await new Promise((r) => setTimeout(r, 50));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect((await pending!).json().data.statutDeLaDemande).toBe(before);
  });
});

describe('the session read of the lookup', () => {
  const acces = async (numero: string, headers: Record<string, string>) => (await lookup(numero, headers)).json().data.acces as string;
  const tokenHash = (cookie: string) => hashSessionToken(decodeURIComponent(cookie.split('=')[1]!).split('.')[0]!);

  it('reads no session without a cookie, nor when the private key already opens the request', async () => {
    const lire = vi.spyOn(LectureSession.prototype, 'lire');
    expect(await acces(possedee.numeroUnique, {})).toBe('statut');
    expect(await acces(possedee.numeroUnique, { 'x-access-key': possedee.accessKey, cookie: voisin.cookie })).toBe('complet');
    expect(lire).not.toHaveBeenCalled();
    expect(await acces(possedee.numeroUnique, { cookie: voisin.cookie })).toBe('statut');
    expect(lire).toHaveBeenCalledTimes(1);
  });

  it("reads a live session with one query, without better-auth's getSession", async () => {
    const getSession = vi.spyOn((await ctx.app.deps.auth.get()).api, 'getSession');
    expect(await acces(possedee.numeroUnique, { cookie: owner.cookie })).toBe('complet');
    expect(await acces(possedee.numeroUnique, { cookie: manager.cookie })).toBe('complet');
    expect(getSession).not.toHaveBeenCalled();
  });

  it('a signed-out, revoked or demoted session stops giving the full view at the very next request', async () => {
    const moi = await createAccount(ctx, 'habitant');
    const mienne = (await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande(), headers: { cookie: moi.cookie } })).json().data as { numeroUnique: string };
    expect(await acces(mienne.numeroUnique, { cookie: moi.cookie })).toBe('complet');
    const out = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-out', headers: { cookie: moi.cookie }, payload: {} });
    expect(out.statusCode).toBe(200);
    expect(await acces(mienne.numeroUnique, { cookie: moi.cookie })).toBe('statut');

    // A session deleted from elsewhere (another device's « revoke », an account's deletion).
    const gerant = await createAccount(ctx, 'manager');
    expect(await acces(anonyme.numeroUnique, { cookie: gerant.cookie })).toBe('complet');
    await ctx.app.deps.db.updateTable('user').set({ userType: 'habitant' }).where('email', '=', gerant.email).execute();
    expect(await acces(anonyme.numeroUnique, { cookie: gerant.cookie })).toBe('statut');
    await ctx.app.deps.db.updateTable('user').set({ userType: 'manager' }).where('email', '=', gerant.email).execute();
    expect(await acces(anonyme.numeroUnique, { cookie: gerant.cookie })).toBe('complet');
    await ctx.app.deps.db.deleteFrom('session').where('token', '=', tokenHash(gerant.cookie)).execute();
    expect(await acces(anonyme.numeroUnique, { cookie: gerant.cookie })).toBe('statut');
  });

  it('refuses a cookie whose signature is wrong', async () => {
    const [name, value] = [owner.cookie.split('=')[0]!, decodeURIComponent(owner.cookie.split('=')[1]!)];
    const token = value.slice(0, value.lastIndexOf('.'));
    const forged = `${name}=${encodeURIComponent(`${token}.${'A'.repeat(43)}=`)}`;
    expect(await acces(possedee.numeroUnique, { cookie: forged })).toBe('statut');
    expect(await acces(possedee.numeroUnique, { cookie: `${name}=${encodeURIComponent(token)}` })).toBe('statut');
    expect(await acces(possedee.numeroUnique, { cookie: owner.cookie })).toBe('complet');
    // The signature's other spellings (the last of its 43 characters carries two unused bits) decode alike: read as
    // better-auth reads them, twice (the second time from what the first remembered, if anything).
    const signature = value.slice(value.lastIndexOf('.') + 1);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const autre = `${signature.slice(0, 42)}${alphabet[alphabet.indexOf(signature[42]!) ^ 1]}=`;
    expect(autre).not.toBe(signature);
    const autreCookie = `${name}=${encodeURIComponent(`${token}.${autre}`)}`;
    expect(await acces(possedee.numeroUnique, { cookie: autreCookie })).toBe('complet');
    expect(await acces(possedee.numeroUnique, { cookie: autreCookie })).toBe('complet');
  });

  it("leaves an expired session, and one whose expiry is due to move, to better-auth (deleted; moved forward)", async () => {
    const moi = await createAccount(ctx, 'habitant');
    const mienne = (await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande(), headers: { cookie: moi.cookie } })).json().data as { numeroUnique: string };
    const hash = tokenHash(moi.cookie);
    const expiry = async () => (await ctx.app.deps.db.selectFrom('session').select('expiresAt').where('token', '=', hash).executeTakeFirst())?.expiresAt;
    const date = (ms: number) => (ctx.app.deps.dbKind === 'postgres' ? new Date(ms) : new Date(ms).toISOString());

    // 10 days left of 30: better-auth moves the expiry forward (its updateAge is one day).
    await ctx.app.deps.db.updateTable('session').set({ expiresAt: date(Date.now() + 10 * 86_400_000) }).where('token', '=', hash).execute();
    expect(await acces(mienne.numeroUnique, { cookie: moi.cookie })).toBe('complet');
    expect(new Date((await expiry())!).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    await ctx.app.deps.db.updateTable('session').set({ expiresAt: date(Date.now() - 1000) }).where('token', '=', hash).execute();
    expect(await acces(mienne.numeroUnique, { cookie: moi.cookie })).toBe('statut');
    expect(await expiry()).toBeUndefined();
  });
});

describe('the request log', () => {
  /** The lines written about requests (the mail queue and better-auth may log meanwhile). */
  const lines = () =>
    written
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; reqId?: string; req?: { method: string; url: string }; res?: { statusCode: number }; responseTime?: number })
      .filter((l) => l.reqId !== undefined);

  it('writes nothing for a successful lookup at info, one line for a 404, and never the key or the cookie', async () => {
    written.length = 0;
    expect((await lookup(possedee.numeroUnique, { 'x-access-key': possedee.accessKey, cookie: owner.cookie })).statusCode).toBe(200);
    expect((await lookup(possedee.numeroUnique)).statusCode).toBe(200);
    expect(lines()).toEqual([]);

    expect((await lookup('013absent000', { 'x-access-key': possedee.accessKey, cookie: owner.cookie })).statusCode).toBe(404);
    const logged = lines();
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', url: '/app/api/logement/013absent000' }, res: { statusCode: 404 } });
    expect(logged[0]!.responseTime).toEqual(expect.any(Number));
    const text = written.join('');
    expect(text).not.toContain(possedee.accessKey);
    expect(text).not.toContain(owner.cookie.split('=')[1]!);
    expect(text).not.toContain(decodeURIComponent(owner.cookie.split('=')[1]!).split('.')[0]!);
  });

  it('logs successes at debug, one line each, with the method, the URL, the status and the time, and no secret', async () => {
    written.length = 0;
    ctx.app.log.level = 'debug';
    try {
      await lookup(possedee.numeroUnique, { 'x-access-key': possedee.accessKey, cookie: owner.cookie });
    } finally {
      ctx.app.log.level = 'info';
    }
    const logged = lines().filter((l) => l.msg === 'request completed');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 20, req: { method: 'GET', url: `/app/api/logement/${possedee.numeroUnique}` }, res: { statusCode: 200 } });
    expect(lines().some((l) => l.msg === 'incoming request')).toBe(false);
    const text = written.join('');
    expect(text).not.toContain(possedee.accessKey);
    expect(text).not.toContain(decodeURIComponent(owner.cookie.split('=')[1]!).split('.')[0]!);
  });

  it('puts failures and 5xx at error, slow requests at warn, 4xx at info, the rest at debug', () => {
    expect(niveauRequete(new Error('x'), 200, 1)).toBe('error');
    expect(niveauRequete(null, 500, 1)).toBe('error');
    expect(niveauRequete(null, 503, REQUETE_LENTE_MS * 2)).toBe('error');
    expect(niveauRequete(null, 200, REQUETE_LENTE_MS)).toBe('warn');
    expect(niveauRequete(null, 404, REQUETE_LENTE_MS + 1)).toBe('warn');
    expect(niveauRequete(null, 429, 3)).toBe('info');
    expect(niveauRequete(null, 400, 3)).toBe('info');
    expect(niveauRequete(null, 304, 3)).toBe('debug');
    expect(niveauRequete(undefined, 200, REQUETE_LENTE_MS - 1)).toBe('debug');
  });
});
