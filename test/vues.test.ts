import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VUES_MAX } from '../src/domain/vues.js';
import { createAccount, createTestApp, type TestContext } from './helpers.js';

// A manager's saved views of the list (issue 12 point 2).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let autre: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager');
  autre = await createAccount(ctx, 'manager');
  habitant = await createAccount(ctx);
});
afterAll(async () => ctx.close());

const ajouter = (cookie: string, payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/app/api/vues', headers: { cookie }, payload });
const lister = async (cookie: string) => (await ctx.app.inject({ method: 'GET', url: '/app/api/vues', headers: { cookie } })).json().data as { id: string; nom: string; requete: string }[];

describe('saved views', () => {
  it('are refused to anonymous callers (401) and residents (403)', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/vues' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/vues', headers: { cookie: habitant.cookie } })).statusCode).toBe(403);
    expect((await ajouter(habitant.cookie, { nom: 'x', requete: '' })).statusCode).toBe(403);
    expect(await ctx.app.deps.db.selectFrom('vuesEnregistrees').select('id').execute()).toEqual([]);
  });

  it('keep a name and the list’s query in its canonical form (no page, no defaults), for their manager only', async () => {
    const res = await ajouter(manager.cookie, { nom: '  Refus à revoir ', requete: 'q=martin&status=Refus%C3%A9&sort=dateDEnregistrement&order=desc&page=4&pageSize=10' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ id: expect.any(String), nom: 'Refus à revoir', requete: 'q=martin&status=Refus%C3%A9' });
    expect((await ajouter(manager.cookie, { nom: 'Par nom', requete: 'onglet=a-traiter&sort=nom&order=asc' })).json().data.requete).toBe('onglet=a-traiter&sort=nom&order=asc');
    expect((await lister(manager.cookie)).map((v) => v.nom)).toEqual(['Refus à revoir', 'Par nom']);
    expect(await lister(autre.cookie)).toEqual([]);
  });

  it('are deleted by their manager only', async () => {
    const [vue] = await lister(manager.cookie);
    const refused = await ctx.app.inject({ method: 'DELETE', url: `/app/api/vues/${vue!.id}`, headers: { cookie: autre.cookie } });
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.message).toBe("Cette vue n’existe pas.");
    expect(await lister(manager.cookie)).toHaveLength(2);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/app/api/vues/${vue!.id}`, headers: { cookie: manager.cookie } })).statusCode).toBe(204);
    expect((await lister(manager.cookie)).map((v) => v.nom)).toEqual(['Par nom']);
  });

  it('refuses a view without a name, one that is not a list, and one past the limit, in French, storing nothing', async () => {
    const sans = await ajouter(autre.cookie, { nom: '  ', requete: '' });
    expect(sans.statusCode).toBe(400);
    expect(sans.json().error.fields.nom).toBe('Donnez un nom à la vue.');
    const fausse = await ajouter(autre.cookie, { nom: 'Mots de passe', requete: 'sort=motDePasse' });
    expect(fausse.statusCode).toBe(400);
    expect(fausse.json().error.fields.requete).toBe('Cette vue ne décrit pas une liste valable.');
    expect(await lister(autre.cookie)).toEqual([]);
    for (let i = 0; i < VUES_MAX; i += 1) expect((await ajouter(autre.cookie, { nom: `Vue ${i}`, requete: `q=v${i}` })).statusCode).toBe(201);
    const trop = await ajouter(autre.cookie, { nom: 'Une de trop', requete: '' });
    expect(trop.statusCode).toBe(409);
    expect(trop.json().error).toMatchObject({ code: 'TROP_DE_VUES', message: expect.stringMatching(/^Vous avez déjà 30 vues enregistrées/u) });
    expect(await lister(autre.cookie)).toHaveLength(VUES_MAX);
  });
});
