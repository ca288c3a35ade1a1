import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, type TestContext } from '../../../../test/helpers.js';
import type { DemandeRow } from '../../db/schema.js';
import { ACCESS_KEY_HEADER, CLES_RETENUES, hashAccessKey, holdsPrivateKey, newAccessKey, privateLink } from './access.js';

/**
 * Who sees a housing request in full (docs/produit.md « Confidentialité »): the holder of its private
 * link, its owner, managers and admins; anyone else sees its status only.
 */

describe('private keys', () => {
  it('draws 256 random bits, URL-safe, never twice the same', () => {
    const keys = Array.from({ length: 20 }, newAccessKey);
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/u);
    expect(new Set(keys).size).toBe(20);
  });

  it('stores the SHA-256 of the key, in hex, of its UTF-8 bytes', () => {
    expect(hashAccessKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hashAccessKey('clé')).toBe('51cbcf30514d0802eb5c60a018f384ea3fb9b69307c554ee63ecb43177594de4');
  });

  it('puts the key in the fragment of the link, the numéro escaped in the path', () => {
    expect(ACCESS_KEY_HEADER).toBe('x-access-key');
    expect(privateLink('https://quartier.example', '013abc123', 'k_E-y')).toBe('https://quartier.example/logement/013abc123#cle=k_E-y');
    expect(privateLink('http://x', 'a b/c', 'k')).toBe('http://x/logement/a%20b%2Fc#cle=k');
  });
});

describe('holdsPrivateKey', () => {
  const key = newAccessKey();
  const row = { accessKeyHash: hashAccessKey(key) } as DemandeRow;
  const avec = (header: string | string[] | undefined) => ({ headers: header === undefined ? {} : { [ACCESS_KEY_HEADER]: header } }) as unknown as FastifyRequest;

  it("recognises the request's own key, and only it", () => {
    expect(holdsPrivateKey(avec(key), row)).toBe(true);
    expect(holdsPrivateKey(avec(newAccessKey()), row)).toBe(false);
    expect(holdsPrivateKey(avec(`${key} `), row)).toBe(false);
    expect(holdsPrivateKey(avec(undefined), row)).toBe(false);
    expect(holdsPrivateKey({ headers: { 'x-other': key } } as unknown as FastifyRequest, row)).toBe(false);
  });

  it('reads the first of repeated headers', () => {
    expect(holdsPrivateKey(avec([key, 'autre']), row)).toBe(true);
    expect(holdsPrivateKey(avec(['autre', key]), row)).toBe(false);
    expect(holdsPrivateKey(avec([]), row)).toBe(false);
  });

  it('ignores an empty key and keys over 128 characters, whatever is stored', () => {
    expect(holdsPrivateKey(avec(''), { accessKeyHash: hashAccessKey('') } as DemandeRow)).toBe(false);
    const longue = 'k'.repeat(128);
    expect(holdsPrivateKey(avec(longue), { accessKeyHash: hashAccessKey(longue) } as DemandeRow)).toBe(true);
    const tropLongue = 'k'.repeat(129);
    expect(holdsPrivateKey(avec(tropLongue), { accessKeyHash: hashAccessKey(tropLongue) } as DemandeRow)).toBe(false);
  });

  it('remembers a key that matched only as its hash: a new key for the request, or another request, is not opened by it', () => {
    const cle = newAccessKey();
    const demande = { accessKeyHash: hashAccessKey(cle) } as DemandeRow;
    expect(holdsPrivateKey(avec(cle), demande)).toBe(true);
    expect(holdsPrivateKey(avec(cle), demande)).toBe(true);
    // « Renvoyer le lien »: the request now stores a new key's hash.
    const renvoyee = { accessKeyHash: hashAccessKey(newAccessKey()) } as DemandeRow;
    expect(holdsPrivateKey(avec(cle), renvoyee)).toBe(false);
    expect(holdsPrivateKey(avec(cle), row)).toBe(false);
    expect(holdsPrivateKey(avec(key), row)).toBe(true);
  });

  it('keeps answering right past the number of keys it remembers', () => {
    const cles = Array.from({ length: CLES_RETENUES + 2 }, (_, i) => `cle-${i}`);
    for (const cle of cles) expect(holdsPrivateKey(avec(cle), { accessKeyHash: hashAccessKey(cle) } as DemandeRow)).toBe(true);
    for (const cle of [cles[0]!, cles.at(-1)!]) {
      expect(holdsPrivateKey(avec(cle), { accessKeyHash: hashAccessKey(cle) } as DemandeRow)).toBe(true);
      expect(holdsPrivateKey(avec(cle), row)).toBe(false);
    }
  });

  it('answers false, without throwing, when the stored hash is not a SHA-256', () => {
    expect(holdsPrivateKey(avec(key), { accessKeyHash: '' } as DemandeRow)).toBe(false);
    expect(holdsPrivateKey(avec(key), { accessKeyHash: hashAccessKey(key).slice(0, 62) } as DemandeRow)).toBe(false);
  });
});

describe('hasFullAccess, through GET /logement/:numeroUnique', () => {
  type Compte = Awaited<ReturnType<typeof createAccount>>;
  let ctx: TestContext;
  let owner: Compte;
  let voisin: Compte;
  let manager: Compte;
  let admin: Compte;
  let possedee: { numeroUnique: string; accessKey: string };
  let anonyme: { numeroUnique: string; accessKey: string };

  beforeAll(async () => {
    ctx = await createTestApp();
    owner = await createAccount(ctx, 'habitant');
    voisin = await createAccount(ctx, 'habitant');
    manager = await createAccount(ctx, 'manager');
    admin = await createAccount(ctx, 'admin');
    const create = async (cookie?: string) =>
      (await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande(), headers: cookie ? { cookie } : {} })).json().data as { numeroUnique: string; accessKey: string };
    possedee = await create(owner.cookie);
    anonyme = await create();
  });

  afterAll(async () => {
    await ctx.close();
  });

  const vue = async (numero: string, headers: Record<string, string> = {}) => {
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}`, headers });
    expect(res.statusCode).toBe(200);
    return res.json().data.acces as string;
  };

  it('gives the status only to anyone without the key', async () => {
    expect(await vue(possedee.numeroUnique)).toBe('statut');
    expect(await vue(possedee.numeroUnique, { [ACCESS_KEY_HEADER]: anonyme.accessKey })).toBe('statut');
  });

  it('gives the full view to the holder of the key, signed in or not', async () => {
    expect(await vue(possedee.numeroUnique, { [ACCESS_KEY_HEADER]: possedee.accessKey })).toBe('complet');
    expect(await vue(anonyme.numeroUnique, { [ACCESS_KEY_HEADER]: anonyme.accessKey, cookie: voisin.cookie })).toBe('complet');
  });

  it('gives the full view to the owner, and the status to other inhabitants', async () => {
    expect(await vue(possedee.numeroUnique, { cookie: owner.cookie })).toBe('complet');
    expect(await vue(possedee.numeroUnique, { cookie: voisin.cookie })).toBe('statut');
    expect(await vue(anonyme.numeroUnique, { cookie: owner.cookie })).toBe('statut');
  });

  it('gives the full view of every request to managers and admins', async () => {
    for (const who of [manager, admin]) {
      expect(await vue(possedee.numeroUnique, { cookie: who.cookie })).toBe('complet');
      expect(await vue(anonyme.numeroUnique, { cookie: who.cookie })).toBe('complet');
    }
  });
});
