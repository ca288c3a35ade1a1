import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, mailsTo, type TestContext } from './helpers.js';

// Messages between the town hall and the applicant (issue 12 point 5).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let voisin: Awaited<ReturnType<typeof createAccount>>;
let key = '';
const EMAIL = 'awa.diallo@example.org';

const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
const nonLus = async () =>
  ((await call('GET', '/logement?q=017msg000001', { cookie: manager.cookie })).json().data as { messagesNonLus: number }[])[0]!.messagesNonLus;

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  habitant = await createAccount(ctx);
  voisin = await createAccount(ctx);
  const res = await call('POST', '/logement', { cookie: habitant.cookie }, demande({ numeroUnique: '017msg000001', prenom: 'Awa', email: EMAIL }));
  expect(res.statusCode).toBe(201);
  key = res.json().data.accessKey;
});
afterAll(async () => ctx.close());

describe('messages', () => {
  it('are refused to whoever does not see the request in full, storing nothing', async () => {
    expect((await call('GET', '/logement/017msg000001/messages')).statusCode).toBe(403);
    expect((await call('POST', '/logement/017msg000001/messages', { cookie: voisin.cookie }, { texte: 'Bonjour' })).statusCode).toBe(403);
    expect((await call('POST', '/logement/017msg000001/messages', {}, { texte: 'Bonjour' })).statusCode).toBe(403);
    expect(await ctx.app.deps.db.selectFrom('messages').select('id').execute()).toEqual([]);
  });

  it('go from the town hall to the applicant by e-mail, and back, with unread counts for managers', async () => {
    const ecrit = await call('POST', '/logement/017msg000001/messages', { cookie: manager.cookie }, { texte: '  Pouvez-vous passer a la mairie mardi ?  ' });
    expect(ecrit.statusCode).toBe(201);
    expect(ecrit.json().data).toMatchObject({ de: 'mairie', texte: 'Pouvez-vous passer a la mairie mardi ?', lu: false });
    const mail = (await mailsTo(ctx, EMAIL)).at(-1)!;
    expect(mail).toContain('Pouvez-vous passer a la mairie mardi ?');
    expect(mail).toContain('http://quartier.test/logement/017msg000001');
    expect(mail).not.toContain(key);

    // The applicant reads it (by the private link): read; the manager's name is not shown to them.
    const lus = (await call('GET', '/logement/017msg000001/messages', { 'x-access-key': key })).json().data;
    expect(lus).toEqual([{ id: expect.any(String), de: 'mairie', texte: 'Pouvez-vous passer a la mairie mardi ?', le: expect.any(String), lu: false }]);
    const vuParLaMairie = (await call('GET', '/logement/017msg000001/messages', { cookie: manager.cookie })).json().data;
    expect(vuParLaMairie[0]).toMatchObject({ auteur: 'Camille Durand', lu: true });

    // The applicant answers (by the account); the manager who follows the request is told, without the text.
    expect((await call('PUT', '/logement/017msg000001/suivi', { cookie: manager.cookie }, { suivre: true })).statusCode).toBe(200);
    expect((await call('POST', '/logement/017msg000001/messages', { cookie: habitant.cookie }, { texte: 'Oui, à 10 h.' })).statusCode).toBe(201);
    expect((await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: 'Avec mon fils.' })).statusCode).toBe(201);
    expect(await nonLus()).toBe(2);
    const avis = await mailsTo(ctx, manager.email);
    expect(avis.filter((m) => m.includes('017msg000001'))).toHaveLength(2);
    expect(avis.join('\n')).not.toContain('Avec mon fils');

    // The manager opens the thread: read, the count goes to 0.
    const fil = (await call('GET', '/logement/017msg000001/messages', { cookie: manager.cookie })).json().data as { de: string; texte: string }[];
    expect(fil.map((m) => [m.de, m.texte])).toEqual([
      ['mairie', 'Pouvez-vous passer a la mairie mardi ?'],
      ['demandeur', 'Oui, à 10 h.'],
      ['demandeur', 'Avec mon fils.'],
    ]);
    expect(await nonLus()).toBe(0);
  });

  it('refuse an empty message and one over 4,000 characters, in French', async () => {
    const vide = await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: '   ' });
    expect(vide.statusCode).toBe(400);
    expect(vide.json().error.fields.texte).toBe('Le message est vide.');
    expect((await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: 'x'.repeat(4001) })).statusCode).toBe(400);
  });

  it('go with the request when it is withdrawn', async () => {
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '017msg000001').executeTakeFirstOrThrow()).id;
    expect((await call('POST', '/logement/017msg000001/retirer', { 'x-access-key': key })).statusCode).toBe(200);
    expect(await ctx.app.deps.db.selectFrom('messages').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
  });
});
