import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, type TestContext } from './helpers.js';

// Labels (issue 12 point 6): admins keep the set, managers put them on requests and filter on them.
let ctx: TestContext;
let admin: Awaited<ReturnType<typeof createAccount>>;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let key = '';

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

beforeAll(async () => {
  ctx = await createTestApp();
  Object.assign(ctx.config, { delaiAnnulationMs: 0 });
  admin = await createAccount(ctx, 'admin');
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  habitant = await createAccount(ctx);
  for (const n of ['016eti000001', '016eti000002', '016eti000003']) {
    const res = await call('POST', '/logement', {}, demande({ numeroUnique: n }));
    expect(res.statusCode).toBe(201);
    if (n === '016eti000001') key = res.json().data.accessKey;
  }
});
afterAll(async () => ctx.close());

async function creer(nom: string, couleur = 'bleu'): Promise<string> {
  const res = await call('POST', '/etiquettes', { cookie: admin.cookie }, { nom, couleur });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

describe('the set of labels', () => {
  it('is kept by admins only; managers read it; residents and anonymous callers get nothing', async () => {
    expect((await call('POST', '/etiquettes', { cookie: manager.cookie }, { nom: 'Urgent', couleur: 'rouge' })).statusCode).toBe(403);
    expect((await call('GET', '/etiquettes', { cookie: habitant.cookie })).statusCode).toBe(403);
    expect((await call('GET', '/etiquettes')).statusCode).toBe(401);
    const urgent = await creer('Urgent', 'rouge');
    await creer('Dossier DALO', 'violet');
    const liste = (await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data;
    expect(liste).toEqual([
      { id: expect.any(String), nom: 'Dossier DALO', couleur: 'violet' },
      { id: urgent, nom: 'Urgent', couleur: 'rouge' },
    ]);
  });

  it('refuses a second label of the same name (any case), an unknown colour, in French', async () => {
    const dup = await call('POST', '/etiquettes', { cookie: admin.cookie }, { nom: ' urgent ', couleur: 'vert' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toMatchObject({ code: 'DUPLICATE', message: 'Une étiquette porte déjà ce nom.' });
    const couleur = await call('POST', '/etiquettes', { cookie: admin.cookie }, { nom: 'Autre', couleur: 'fuchsia' });
    expect(couleur.statusCode).toBe(400);
    expect(couleur.json().error.fields.couleur).toMatch(/La couleur doit être/u);
    expect((await ctx.app.deps.db.selectFrom('etiquettes').select('id').execute()).length).toBe(2);
  });
});

describe('labels on requests', () => {
  it('are set by managers, shown in the list, filtered on, recorded in the audit, never shown to the resident', async () => {
    const urgent = await creer('Prioritaire', 'orange');
    const dalo = (await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data.find((e: { nom: string }) => e.nom === 'Dossier DALO').id;
    expect((await call('PUT', '/logement/016eti000001/etiquettes', { cookie: habitant.cookie }, { ids: [urgent] })).statusCode).toBe(403);
    const set = await call('PUT', '/logement/016eti000001/etiquettes', { cookie: manager.cookie }, { ids: [urgent, dalo, urgent] });
    expect(set.statusCode).toBe(200);
    expect(set.json().data.sort()).toEqual([urgent, dalo].sort());
    expect((await call('PUT', '/logement/016eti000002/etiquettes', { cookie: manager.cookie }, { ids: [dalo] })).statusCode).toBe(200);

    const liste = (await call('GET', `/logement?etiquette=${urgent}`, { cookie: manager.cookie })).json();
    expect(liste.data.map((r: { numeroUnique: string }) => r.numeroUnique)).toEqual(['016eti000001']);
    expect(liste.data[0].etiquettes.sort()).toEqual([urgent, dalo].sort());
    const toutes = (await call('GET', '/logement?q=016eti', { cookie: manager.cookie })).json().data as { numeroUnique: string; etiquettes: string[] }[];
    expect(Object.fromEntries(toutes.map((r) => [r.numeroUnique, r.etiquettes.length]))).toEqual({ '016eti000001': 2, '016eti000002': 1, '016eti000003': 0 });
    // A label and a search together: only the requests with both (SQLite meets them by rowid).
    const avecRecherche = async (q: string) =>
      ((await call('GET', `/logement?etiquette=${dalo}&q=${q}`, { cookie: manager.cookie })).json().data as { numeroUnique: string }[]).map((r) => r.numeroUnique).sort();
    expect(await avecRecherche('016eti')).toEqual(['016eti000001', '016eti000002']);
    expect(await avecRecherche('016eti000002')).toEqual(['016eti000002']);
    expect(await avecRecherche('016eti000003')).toEqual([]);

    // Taking one off.
    expect((await call('PUT', '/logement/016eti000001/etiquettes', { cookie: manager.cookie }, { ids: [dalo] })).json().data).toEqual([dalo]);
    expect((await call('GET', '/logement/016eti000001/etiquettes', { cookie: manager.cookie })).json().data).toEqual([dalo]);
    const journal = (await call('GET', '/logement/016eti000001/journal', { cookie: manager.cookie })).json().data as { action: string; detail?: string; par: string }[];
    expect(journal.filter((e) => e.action === 'etiquettes').map((e) => [e.par, e.detail])).toEqual([
      ['Camille Durand', expect.stringMatching(/^ajoutée : « (Prioritaire|Dossier DALO) », « (Prioritaire|Dossier DALO) »$/u)],
      ['Camille Durand', 'retirée : « Prioritaire »'],
    ]);
    const vue = await call('GET', '/logement/016eti000001', { 'x-access-key': key });
    expect(vue.json().data.acces).toBe('complet');
    expect(vue.body).not.toContain('DALO');

    // An unknown label: 404, nothing changed.
    const inconnue = await call('PUT', '/logement/016eti000001/etiquettes', { cookie: manager.cookie }, { ids: [crypto.randomUUID()] });
    expect(inconnue.statusCode).toBe(404);
    expect((await call('GET', '/logement/016eti000001/etiquettes', { cookie: manager.cookie })).json().data).toEqual([dalo]);
  });

  it('are added in bulk, and go from every request when an admin deletes the label', async () => {
    const lot = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'q=016eti' }, action: { type: 'etiquette', id: await creer('Relancer', 'gris') } });
    expect(lot.statusCode).toBe(202);
    let etat = lot.json().data;
    for (let i = 0; i < 100 && !etat.fini; i++) {
      await new Promise((r) => setTimeout(r, 20));
      etat = (await call('GET', `/lots/${etat.id}`, { cookie: manager.cookie })).json().data;
    }
    expect(etat).toMatchObject({ total: 3, faits: 3, echecs: 0 });
    const relancer = (await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data.find((e: { nom: string }) => e.nom === 'Relancer').id;
    expect((await call('GET', `/logement?etiquette=${relancer}`, { cookie: manager.cookie })).json().total).toBe(3);
    const inconnue = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'q=016eti' }, action: { type: 'etiquette', id: crypto.randomUUID() } });
    expect(inconnue.statusCode).toBe(404);

    expect((await call('DELETE', `/etiquettes/${relancer}`, { cookie: manager.cookie })).statusCode).toBe(403);
    expect((await call('DELETE', `/etiquettes/${relancer}`, { cookie: admin.cookie })).statusCode).toBe(204);
    expect(await ctx.app.deps.db.selectFrom('demandeEtiquettes').select('housingRequestId').where('etiquetteId', '=', relancer).execute()).toEqual([]);
    expect((await call('DELETE', `/etiquettes/${relancer}`, { cookie: admin.cookie })).statusCode).toBe(404);
    const renommee = await call('PUT', `/etiquettes/${(await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data[0].id}`, { cookie: admin.cookie }, { nom: 'DALO', couleur: 'vert' });
    expect(renommee.json().data).toMatchObject({ nom: 'DALO', couleur: 'vert' });
  });
});
