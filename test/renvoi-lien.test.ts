import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, demande, lienRecu, mailsTo, type TestContext } from './helpers.js';

const SANS_LIMITES = { create: false, upload: false, adresses: false, inscription: false, auth: false, renvoiLien: false, renvoiLienNumero: false } as const;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({}, { logger: false, rateLimits: SANS_LIMITES });
});
afterAll(async () => {
  await ctx.close();
});

async function create(numeroUnique: string, email: string) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique, email }) });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: string; accessKey: string };
}

const renvoyer = (c: TestContext, numero: string, email: string, headers: Record<string, string> = {}) =>
  c.app.inject({ method: 'POST', url: `/app/api/logement/${numero}/renvoyer-lien`, payload: { email }, headers });
const voir = (numero: string, key: string) => ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}`, headers: { 'x-access-key': key } });
const accessHash = async (id: string) => (await ctx.app.deps.db.selectFrom('housingRequests').select('accessKeyHash').where('id', '=', id).executeTakeFirstOrThrow()).accessKeyHash;

describe('POST /logement/:numeroUnique/renvoyer-lien', () => {
  it('sends a new private link to the request’s address; the old key stops working, the new one works', async () => {
    const { accessKey } = await create('013lien000001', 'lien.perdu@example.org');
    expect((await voir('013lien000001', accessKey)).json().data.acces).toBe('complet');
    const first = await lienRecu(ctx, 'lien.perdu@example.org', '/logement/');

    // Case and spaces do not matter.
    const res = await renvoyer(ctx, '013lien000001', '  Lien.Perdu@EXAMPLE.org ');
    expect(res.statusCode).toBe(202);

    expect((await voir('013lien000001', accessKey)).json().data.acces).toBe('statut');
    const link = await lienRecu(ctx, 'lien.perdu@example.org', '/logement/');
    expect(link).not.toBe(first);
    expect(link).toMatch(/^http:\/\/quartier\.test\/logement\/013lien000001#cle=[\w-]{43}$/u);
    const nouvelle = link.split('#cle=')[1]!;
    expect((await voir('013lien000001', nouvelle)).json().data.acces).toBe('complet');
    const mails = await mailsTo(ctx, 'lien.perdu@example.org');
    expect(mails).toHaveLength(2);
    expect(mails[1]).toContain('ne fonctionne plus');
  });

  it('answers the same, changes nothing and sends nothing for another address or an unknown numéro', async () => {
    const { id, accessKey } = await create('013lien000002', 'vraie.adresse@example.org');
    await mailsTo(ctx, 'vraie.adresse@example.org');
    const before = await accessHash(id);
    const outbox = async () => (await ctx.app.deps.db.selectFrom('mailOutbox').select('id').execute()).length;
    const mailsBefore = await outbox();

    const match = await create('013lien000003', 'autre@example.org');
    await mailsTo(ctx, 'autre@example.org');
    const outboxAfterCreate = await outbox();
    expect(outboxAfterCreate).toBe(mailsBefore + 1);

    const wrong = await renvoyer(ctx, '013lien000002', 'autre@example.org');
    const unknown = await renvoyer(ctx, '013lien999999', 'vraie.adresse@example.org');
    expect(await accessHash(id)).toBe(before);
    expect((await voir('013lien000002', accessKey)).json().data.acces).toBe('complet');
    expect(await outbox()).toBe(outboxAfterCreate);
    expect(await mailsTo(ctx, 'vraie.adresse@example.org')).toHaveLength(1);
    expect(await mailsTo(ctx, 'autre@example.org')).toHaveLength(1);

    const right = await renvoyer(ctx, '013lien000003', 'autre@example.org');
    expect(await mailsTo(ctx, 'autre@example.org')).toHaveLength(2);
    expect(await accessHash(match.id)).not.toBe(await accessHash(id));

    // One answer for all: status, body, headers that matter; the address is never in it.
    for (const res of [wrong, unknown, right]) {
      expect(res.statusCode).toBe(202);
      expect(res.headers['cache-control']).toBe('private, no-store');
    }
    expect(wrong.body).toBe(right.body);
    expect(unknown.body).toBe(right.body);
    expect(right.body).not.toContain('@');
  });

  it('sends nothing for a withdrawn request, with the same answer', async () => {
    const { accessKey } = await create('013lien000004', 'retrait@example.org');
    expect((await mailsTo(ctx, 'retrait@example.org')).filter((m) => m.includes('#cle='))).toHaveLength(1);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013lien000004/retirer', headers: { 'x-access-key': accessKey } })).statusCode).toBe(200);
    const res = await renvoyer(ctx, '013lien000004', 'retrait@example.org');
    expect(res.statusCode).toBe(202);
    expect(res.json().data.message).toContain('Si cette adresse est celle de la demande');
    // Only the creation's link: no new one leaves for a withdrawn request.
    expect((await mailsTo(ctx, 'retrait@example.org')).filter((m) => m.includes('#cle='))).toHaveLength(1);
  });
});

describe('limits', () => {
  async function codes(rateLimits: Record<string, unknown>, numeros: string[]) {
    const limited = await createTestApp({}, { logger: false, rateLimits: { ...SANS_LIMITES, ...rateLimits } });
    try {
      const out: number[] = [];
      let last;
      for (const n of numeros) {
        last = await renvoyer(limited, n, 'x@example.org');
        out.push(last.statusCode);
      }
      expect(last!.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.' });
      return out;
    } finally {
      await limited.close();
    }
  }

  it('limits one numéro, with a French 429, without limiting the others', async () => {
    const limite = { renvoiLienNumero: { max: 2, timeWindow: '1 minute' } };
    expect(await codes(limite, ['013lim0000001', '013lim0000001', '013lim0000002', '013lim0000001'])).toEqual([202, 202, 202, 429]);
  });

  it('limits one address whatever the numéros, with a French 429', async () => {
    const limite = { renvoiLien: { max: 2, timeWindow: '1 minute' } };
    expect(await codes(limite, ['013lim0000001', '013lim0000002', '013lim0000003'])).toEqual([202, 202, 429]);
  });
});
