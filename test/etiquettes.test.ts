import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtiquettesRepository } from '../src/server/features/etiquettes/repository.js';
import { EtiquettesService } from '../src/server/features/etiquettes/service.js';
import { InstructionRepository } from '../src/server/features/instruction/repository.js';
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

  it('knows accented capitals: « École » twice, « ÉCOLE », a renaming to « école » are refused with 409, never a 500', async () => {
    const ecole = await creer('École', 'bleu');
    for (const nom of ['École', 'ÉCOLE', 'école']) {
      const res = await call('POST', '/etiquettes', { cookie: admin.cookie }, { nom, couleur: 'vert' });
      expect(res.statusCode, nom).toBe(409);
      expect(res.json().error.code).toBe('DUPLICATE');
    }
    const urgent = (await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data.find((e: { nom: string }) => e.nom === 'Urgent').id;
    const renomme = await call('PUT', `/etiquettes/${urgent}`, { cookie: admin.cookie }, { nom: 'école', couleur: 'rouge' });
    expect(renomme.statusCode).toBe(409);
    // At once: one is made, the other refused.
    const ensemble = await Promise.all([1, 2].map(() => call('POST', '/etiquettes', { cookie: admin.cookie }, { nom: 'Été', couleur: 'orange' })));
    expect(ensemble.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const noms = (await ctx.app.deps.db.selectFrom('etiquettes').select('nom').execute()).map((r) => r.nom).sort();
    expect(noms).toEqual(['Dossier DALO', 'Urgent', 'École', 'Été'].sort());
    for (const id of [ecole, ensemble.find((r) => r.statusCode === 201)!.json().data.id as string]) {
      expect((await call('DELETE', `/etiquettes/${id}`, { cookie: admin.cookie })).statusCode).toBe(204);
    }
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
    // The list's filter follows at once, with a search too (PostgreSQL reads the labels the request's row carries).
    expect((await call('GET', `/logement?etiquette=${urgent}`, { cookie: manager.cookie })).json().total).toBe(0);
    expect((await call('GET', `/logement?etiquette=${urgent}&q=016eti`, { cookie: manager.cookie })).json().total).toBe(0);
    expect(await avecRecherche('016eti')).toEqual(['016eti000001', '016eti000002']);
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
    for (let i = 0; i < 1000 && !etat.fini; i++) {
      await new Promise((r) => setTimeout(r, 20));
      etat = (await call('GET', `/lots/${etat.id}`, { cookie: manager.cookie })).json().data;
    }
    expect(etat).toMatchObject({ total: 3, faits: 3, echecs: 0, fini: true });
    const relancer = (await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data.find((e: { nom: string }) => e.nom === 'Relancer').id;
    expect((await call('GET', `/logement?etiquette=${relancer}`, { cookie: manager.cookie })).json().total).toBe(3);
    expect((await call('GET', `/logement?etiquette=${relancer}&q=016eti000002`, { cookie: manager.cookie })).json().total).toBe(1);
    const inconnue = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'q=016eti' }, action: { type: 'etiquette', id: crypto.randomUUID() } });
    expect(inconnue.statusCode).toBe(404);

    expect((await call('DELETE', `/etiquettes/${relancer}`, { cookie: manager.cookie })).statusCode).toBe(403);
    expect((await call('DELETE', `/etiquettes/${relancer}`, { cookie: admin.cookie })).statusCode).toBe(204);
    expect(await ctx.app.deps.db.selectFrom('demandeEtiquettes').select('housingRequestId').where('etiquetteId', '=', relancer).execute()).toEqual([]);
    expect((await call('GET', `/logement?etiquette=${relancer}&q=016eti`, { cookie: manager.cookie })).json().total).toBe(0);
    expect((await call('DELETE', `/etiquettes/${relancer}`, { cookie: admin.cookie })).statusCode).toBe(404);
    const renommee = await call('PUT', `/etiquettes/${(await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data[0].id}`, { cookie: admin.cookie }, { nom: 'DALO', couleur: 'vert' });
    expect(renommee.json().data).toMatchObject({ nom: 'DALO', couleur: 'vert' });
  });
});

describe('the limit of 10 labels a request', () => {
  /** Starts a bulk addition of `etiquette` to `numeros` and waits for its end; answers its last progress. */
  async function ajouterParLot(numeros: string[], etiquette: string) {
    const lot = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros }, action: { type: 'etiquette', id: etiquette } });
    expect(lot.statusCode, lot.body).toBe(202);
    let etat = lot.json().data;
    for (let i = 0; i < 1000 && !etat.fini; i++) {
      await new Promise((r) => setTimeout(r, 20));
      etat = (await call('GET', `/lots/${etat.id}`, { cookie: manager.cookie })).json().data;
    }
    expect(etat.fini, 'the bulk job ends within 20 s').toBe(true);
    return etat;
  }
  const nombre = async (numeroUnique: string) => {
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow()).id;
    return (await ctx.app.deps.db.selectFrom('demandeEtiquettes').select('etiquetteId').where('housingRequestId', '=', id).execute()).map((r) => r.etiquetteId);
  };

  it('holds in bulk too: a request that has 10 is skipped, counted apart, never given an 11th', async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 11; i++) ids.push(await creer(`Limite ${i}`));
    const onzieme = ids[10]!;
    for (const n of ['016eti000010', '016eti000011', '016eti000012']) expect((await call('POST', '/logement', {}, demande({ numeroUnique: n }))).statusCode).toBe(201);
    expect((await call('PUT', '/logement/016eti000010/etiquettes', { cookie: manager.cookie }, { ids: ids.slice(0, 10) })).statusCode).toBe(200);
    expect((await call('PUT', '/logement/016eti000011/etiquettes', { cookie: manager.cookie }, { ids: ids.slice(0, 9) })).statusCode).toBe(200);
    // One by one, the 11th is refused as before.
    expect((await call('PUT', '/logement/016eti000010/etiquettes', { cookie: manager.cookie }, { ids })).statusCode).toBe(400);

    // 10 already: skipped; 9: gets its 10th; none: gets it.
    expect(await ajouterParLot(['016eti000010', '016eti000011', '016eti000012'], onzieme)).toMatchObject({ total: 3, faits: 2, inchanges: 0, completes: 1, echecs: 0, fini: true });
    expect((await nombre('016eti000010')).sort()).toEqual(ids.slice(0, 10).sort());
    expect(await nombre('016eti000011')).toHaveLength(10);
    expect(await nombre('016eti000011')).toContain(onzieme);
    expect(await nombre('016eti000012')).toEqual([onzieme]);
    // Nothing in the skipped request's audit but the labels it was given by hand.
    const journal = (await call('GET', '/logement/016eti000010/journal', { cookie: manager.cookie })).json().data as { action: string; detail?: string }[];
    expect(journal.filter((e) => e.action === 'etiquettes').map((e) => e.detail)).toEqual([expect.not.stringContaining('« Limite 11 »')]);

    // Again: the full one still skipped, the others already carry it.
    expect(await ajouterParLot(['016eti000010', '016eti000011', '016eti000012'], onzieme)).toMatchObject({ total: 3, faits: 0, inchanges: 2, completes: 1, echecs: 0 });
    expect(await nombre('016eti000010')).toHaveLength(10);
  });

  it('holds when two additions reach a request with 9 at once (two bulk actions): one gets the 10th, the other is skipped', async () => {
    const { db, dbKind, now } = ctx.app.deps;
    const service = new EtiquettesService({ repository: new EtiquettesRepository(db, dbKind), journal: new InstructionRepository(db), now });
    const ids = (await call('GET', '/etiquettes', { cookie: manager.cookie })).json().data.map((e: { id: string }) => e.id) as string[];
    const [a, b] = [await creer('Course A'), await creer('Course B')];
    const numeros = Array.from({ length: 8 }, (_, i) => `016eti00002${i}`);
    const demandes: string[] = [];
    for (const n of numeros) {
      expect((await call('POST', '/logement', {}, demande({ numeroUnique: n }))).statusCode).toBe(201);
      expect((await call('PUT', `/logement/${n}/etiquettes`, { cookie: manager.cookie }, { ids: ids.slice(0, 9) })).statusCode).toBe(200);
      demandes.push((await db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', n).executeTakeFirstOrThrow()).id);
    }
    const issues = await Promise.all(demandes.flatMap((id) => [service.ajouter(id, a, manager.uid), service.ajouter(id, b, manager.uid)]));
    expect(issues.filter((i) => i === 'ajoutee')).toHaveLength(8);
    expect(issues.filter((i) => i === 'complete')).toHaveLength(8);
    for (const n of numeros) expect(await nombre(n)).toHaveLength(10);
  });
});
