import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/server/db/index.js';
import { createAccount, createTestApp, demande, mailsTo, type TestContext } from './helpers.js';

// Bulk work on the managers' list (issue 12 point 7).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let autre: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;

const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

async function creer(numeroUnique: string, commentaires = ''): Promise<void> {
  const res = await call('POST', '/logement', {}, demande({ numeroUnique, email: `${numeroUnique}@example.org`, commentaires }));
  expect(res.statusCode).toBe(201);
}

/** Starts a bulk action and waits for its end; answers its last progress. */
async function lot(cookie: string, body: unknown): Promise<{ total: number; faits: number; inchanges: number; echecs: number; fini: boolean }> {
  const started = await call('POST', '/lots', { cookie }, body);
  expect(started.statusCode, started.body).toBe(202);
  const { id } = started.json().data;
  for (let i = 0; i < 200; i++) {
    const etat = (await call('GET', `/lots/${id}`, { cookie })).json().data;
    if (etat.fini) return etat;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('bulk action did not finish');
}

const statuts = async (prefix: string) =>
  Object.fromEntries(
    (await ctx.app.deps.db.selectFrom('housingRequests').select(['numeroUnique', 'statutDeLaDemande']).where('numeroUnique', 'like', `${prefix}%`).execute()).map((r) => [
      r.numeroUnique,
      r.statutDeLaDemande,
    ]),
  );

beforeAll(async () => {
  ctx = await createTestApp();
  Object.assign(ctx.config, { delaiAnnulationMs: 0 });
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  autre = await createAccount(ctx, 'manager');
  habitant = await createAccount(ctx);
  for (let i = 1; i <= 6; i++) await creer(`015lot00000${i}`, i <= 4 ? 'Famille Lotie' : '');
});
afterAll(async () => ctx.close());

describe('bulk actions', () => {
  it('are refused to anyone but managers, changing nothing', async () => {
    const body = { selection: { mode: 'numeros', numeros: ['015lot000001'] }, action: { type: 'statut', statut: 'Passage CAL' } };
    expect((await call('POST', '/lots', {}, body)).statusCode).toBe(401);
    expect((await call('POST', '/lots', { cookie: habitant.cookie }, body)).statusCode).toBe(403);
    expect((await statuts('015lot'))['015lot000001']).toBe('En attente des documents');
  });

  it('change the status of the chosen requests, each with its history line and its e-mail, and count what was already so', async () => {
    await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015lot000002', newStatus: 'Passage CAL' });
    const etat = await lot(manager.cookie, {
      selection: { mode: 'numeros', numeros: ['015lot000001', '015lot000002', '015lot000003', '015lot000001'] },
      action: { type: 'statut', statut: 'Passage CAL' },
    });
    expect(etat).toMatchObject({ total: 3, faits: 2, inchanges: 1, echecs: 0, fini: true });
    expect(await statuts('015lot')).toMatchObject({ '015lot000001': 'Passage CAL', '015lot000002': 'Passage CAL', '015lot000003': 'Passage CAL', '015lot000004': 'En attente des documents' });
    const events = await ctx.app.deps.db
      .selectFrom('statusEvents')
      .innerJoin('housingRequests', 'housingRequests.id', 'statusEvents.housingRequestId')
      .select(['numeroUnique', 'actorUserId'])
      .where('toStatus', '=', 'Passage CAL')
      .where('numeroUnique', 'in', ['015lot000001', '015lot000003'])
      .execute();
    expect(events.map((e) => e.actorUserId)).toEqual([manager.uid, manager.uid]);
    for (const n of ['015lot000001', '015lot000003']) expect((await mailsTo(ctx, `${n}@example.org`)).filter((m) => m.includes('Nouveau statut'))).toHaveLength(1);
  });

  it('take every request matching the list’s filter, with a refusal’s reason', async () => {
    const etat = await lot(manager.cookie, { selection: { mode: 'filtre', requete: 'q=015lot&status=Passage+CAL' }, action: { type: 'statut', statut: 'Refusé', motif: 'Dossier incomplet' } });
    expect(etat).toMatchObject({ total: 3, faits: 3, echecs: 0 });
    expect(await statuts('015lot')).toMatchObject({ '015lot000001': 'Refusé', '015lot000002': 'Refusé', '015lot000003': 'Refusé', '015lot000004': 'En attente des documents' });
    const motifs = await ctx.app.deps.db.selectFrom('statusEvents').select('motif').where('toStatus', '=', 'Refusé').execute();
    expect(motifs.map((m) => m.motif)).toEqual(['Dossier incomplet', 'Dossier incomplet', 'Dossier incomplet']);
  });

  it('make the manager follow the chosen requests', async () => {
    const etat = await lot(autre.cookie, { selection: { mode: 'numeros', numeros: ['015lot000005', '015lot000006'] }, action: { type: 'suivre' } });
    expect(etat).toMatchObject({ total: 2, faits: 2 });
    const suivies = await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', 'in', ['015lot000005', '015lot000006']).execute();
    expect(suivies.map((r) => r.suiviePar)).toEqual([autre.uid, autre.uid]);
    // « Suivies par moi » as a filter is the manager's own.
    expect(await lot(autre.cookie, { selection: { mode: 'filtre', requete: 'suivi=moi' }, action: { type: 'suivre' } })).toMatchObject({ total: 2, faits: 0, inchanges: 2 });
    expect(await lot(manager.cookie, { selection: { mode: 'filtre', requete: 'suivi=moi' }, action: { type: 'suivre' } })).toMatchObject({ total: 0 });
  });

  it('count a request erased meanwhile as failed, and show progress to its owner only', async () => {
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '015lot000004').executeTakeFirstOrThrow()).id;
    expect((await call('POST', '/logement/015lot000004/retirer', {}, undefined)).statusCode).toBe(403);
    await ctx.app.deps.db.updateTable('housingRequests').set({ effaceeLe: new Date().toISOString() }).where('id', '=', id).execute();
    const started = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: ['015lot000004', '015lot000006'] }, action: { type: 'statut', statut: 'En attente' } });
    const lotId = started.json().data.id;
    expect((await call('GET', `/lots/${lotId}`, { cookie: autre.cookie })).statusCode).toBe(404);
    expect(started.statusCode, started.body).toBe(202);
    let etat;
    for (let i = 0; i < 200 && !etat?.fini; i++) {
      await new Promise((r) => setTimeout(r, 20));
      etat = (await call('GET', `/lots/${lotId}`, { cookie: manager.cookie })).json().data;
    }
    expect(etat).toMatchObject({ total: 2, faits: 1, echecs: 1 });
  });

  it('keep their progress in the database: one whose instance stopped without a word reads as interrupted, and no longer blocks the next', async () => {
    const etat = await lot(manager.cookie, { selection: { mode: 'numeros', numeros: ['015lot000005'] }, action: { type: 'suivre' } });
    expect(etat).toMatchObject({ total: 1, faits: 1, fini: true });
    expect(etat).not.toHaveProperty('interrompu');
    const id = (await ctx.app.deps.db.selectFrom('lots').select('id').where('proprietaire', '=', manager.uid).orderBy('creeLe', 'desc').executeTakeFirstOrThrow()).id;
    // Its instance killed in the middle: not finished, and no news past its lease.
    await ctx.app.deps.db.updateTable('lots').set({ fini: 0, faits: 0, bailJusqua: new Date(Date.now() + 60_000).toISOString() }).where('id', '=', id).execute();
    expect((await call('GET', `/lots/${id}`, { cookie: manager.cookie })).json().data).toMatchObject({ fini: false });
    const body = { selection: { mode: 'numeros', numeros: ['015lot000006'] }, action: { type: 'suivre' } };
    expect((await call('POST', '/lots', { cookie: manager.cookie }, body)).statusCode).toBe(409);
    await ctx.app.deps.db.updateTable('lots').set({ bailJusqua: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    expect((await call('GET', `/lots/${id}`, { cookie: manager.cookie })).json().data).toEqual({ id, total: 1, faits: 0, inchanges: 0, echecs: 0, fini: true, interrompu: true });
    expect(await lot(manager.cookie, body)).toMatchObject({ total: 1, fini: true });
  });

  it('refuse a filter matching more than 1,000 requests (413), a bad body (400), in French', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => `015big${String(i).padStart(6, '0')}`);
    const tooMany = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: rows }, action: { type: 'suivre' } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.fields.selection).toMatch(/Au plus 1000 demandes/u);
    const avant = await ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').execute();
    // 1,001 requests make the filter too wide.
    const now = new Date().toISOString();
    const base = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '015lot000005').executeTakeFirstOrThrow();
    for (let i = 0; i < rows.length; i += 200) {
      await ctx.app.deps.db
        .insertInto('housingRequests')
        .values(rows.slice(i, i + 200).map((n) => ({ ...base, id: crypto.randomUUID(), numeroUnique: n, searchText: `${n} massif`, updatedAt: now })))
        .execute();
    }
    const large = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'q=massif' }, action: { type: 'statut', statut: 'Attribué' } });
    expect(large.statusCode).toBe(413);
    expect(large.json().error).toMatchObject({ code: 'LOT_TROP_GRAND', message: expect.stringMatching(/^Plus de 1\u202f000 demandes/u) });
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').where('statutDeLaDemande', '=', 'Attribué').execute()).length).toBe(0);
    expect(avant.length).toBeGreaterThan(0);
    const bad = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'sort=inconnu' }, action: { type: 'statut', statut: 'Attribué' } });
    expect(bad.statusCode).toBe(400);
    const motif = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: ['015lot000005'] }, action: { type: 'statut', statut: 'Attribué', motif: 'x' } });
    expect(motif.statusCode).toBe(400);
    expect(motif.json().error.fields.action).toMatch(/motif ne peut accompagner/u);
  });
});

describe('a bulk action when the app closes', () => {
  it('stops between two requests and is recorded as interrupted: what was done stays done', async () => {
    const ferme = await createTestApp();
    const gestionnaire = await createAccount(ferme, 'manager');
    const numeros = Array.from({ length: 40 }, (_, i) => `015fer${String(i).padStart(6, '0')}`);
    for (let i = 0; i < numeros.length; i += 25) {
      const codes = await Promise.all(numeros.slice(i, i + 25).map(async (n) => (await ferme.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: n }) })).statusCode));
      expect(new Set(codes)).toEqual(new Set([201]));
    }
    const started = await ferme.app.inject({
      method: 'POST',
      url: '/app/api/lots',
      headers: { cookie: gestionnaire.cookie },
      payload: { selection: { mode: 'numeros', numeros }, action: { type: 'statut', statut: 'Passage CAL' } },
    });
    expect(started.statusCode).toBe(202);
    const { id } = started.json().data;
    const { db } = ferme.app.deps;
    const lire = () => db.selectFrom('lots').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    for (let i = 0; i < 500 && (await lire()).faits < 3; i++) await new Promise((r) => setTimeout(r, 5));
    await ferme.app.close();
    // Read once the app is closed, on a connection of its own.
    const apres = openDatabase({ databaseUrl: ferme.config.databaseUrl, dataDir: ferme.dataDir }).db;
    try {
      const fin = await apres.selectFrom('lots').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(fin).toMatchObject({ fini: 1, interrompu: 1, total: 40 });
      expect(fin.faits).toBeGreaterThanOrEqual(3);
      expect(fin.faits).toBeLessThan(40);
      const changees = await apres.selectFrom('housingRequests').select('id').where('numeroUnique', 'like', '015fer%').where('statutDeLaDemande', '=', 'Passage CAL').execute();
      expect(changees).toHaveLength(fin.faits);
    } finally {
      await apres.destroy();
      await ferme.close();
    }
  });
});
