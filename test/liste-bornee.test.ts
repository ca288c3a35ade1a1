// The managers' list past TOTAL_BORNE matches (docs/decisions/0013), and the trigram index linked by rowid
// (migration 0011) kept in step with status changes, erasures and the rows that predate it.
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedRequest } from '../bench/seed.js';
import { listeQuerySchema, TOTAL_BORNE } from '../src/domain/demande.js';
import { migrator, openDatabase, type Db } from '../src/server/db/index.js';
import type { NewDemande } from '../src/server/db/schema.js';
import { effacerDemande } from '../src/server/features/demandes/effacement.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { freshDatabaseUrl } from './db.js';
import { createAccount, createTestApp, type TestContext } from './helpers.js';
import { demandeNommee, ftsIntegre } from './recherche-helpers.js';

async function insert(db: Db, rows: NewDemande[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) await db.insertInto('housingRequests').values(rows.slice(i, i + 200)).execute();
}

/** Erases a request as a manager does (anonymised tombstone). */
async function effacer(ctx: TestContext, id: string): Promise<void> {
  const { db, dbKind, storage, mailer, bus } = ctx.app.deps;
  await effacerDemande({ repository: new DemandesRepository(db, dbKind), storage, mailer, bus }, id, 'gestionnaire', null, new Date());
}

/** Gives requests labels (`ids`: the label ids of each numéro), as the labels' routes record them. */
async function etiqueter(db: Db, poses: Record<string, string[]>): Promise<void> {
  const ids = [...new Set(Object.values(poses).flat())];
  await db
    .insertInto('etiquettes')
    .values(ids.map((id) => ({ id, nom: `Étiquette ${id}`, nomCle: `étiquette ${id}`, couleur: 'blue', creeLe: '2026-11-01T00:00:00.000Z' })))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  for (const [numeroUnique, etiquettes] of Object.entries(poses)) {
    const { id } = await db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow();
    await db
      .insertInto('demandeEtiquettes')
      .values(etiquettes.map((etiquetteId) => ({ housingRequestId: id, etiquetteId, posePar: null, poseLe: '2026-11-01T00:00:00.000Z' })))
      .onConflict((oc) => oc.columns(['housingRequestId', 'etiquetteId']).doNothing())
      .execute();
  }
}

/** Each row's labels in a page of the list, sorted, by numéro. */
function etiquettesDe(res: { json(): { data: { numeroUnique: string; etiquettes: string[] }[] } }): Record<string, string[]> {
  return Object.fromEntries(res.json().data.map((d) => [d.numeroUnique, [...d.etiquettes].sort()]));
}

describe('the managers list past the bound', () => {
  let ctx: TestContext;
  let cookie: string;
  const list = (query: string) => ctx.app.inject({ method: 'GET', url: `/app/api/logement?${query}`, headers: { cookie } });
  const numeros = (res: { json(): { data: { numeroUnique: string }[] } }) => res.json().data.map((d) => d.numeroUnique);
  /** The whole ordered list as the database orders it (what the pages must join into). */
  const ordered = async (nom: string, column: 'dateDEnregistrement' | 'nomTri' | 'prenomTri', order: 'asc' | 'desc') =>
    (
      await ctx.app.deps.db
        .selectFrom('housingRequests')
        .select('numeroUnique')
        .where('nom', '=', nom)
        .where('effaceeLe', 'is', null)
        .orderBy(column, order)
        .orderBy('id', order)
        .execute()
    ).map((r) => r.numeroUnique);

  beforeAll(async () => {
    ctx = await createTestApp();
    cookie = (await createAccount(ctx, 'manager')).cookie;
    // TOTAL_BORNE + 1 « Borne-Dupré », all « En attente »; five « Rarissime »; a few others.
    const prenoms = ['Émile', 'Zoé', 'Anaïs', 'Marie-Hélène', "N'Golo"];
    await insert(ctx.app.deps.db, [
      ...Array.from({ length: TOTAL_BORNE + 1 }, (_, i) => demandeNommee(i, prenoms[i % prenoms.length]!, 'Borne-Dupré', 'En attente')),
      ...Array.from({ length: 5 }, (_, i) => demandeNommee(TOTAL_BORNE + 1 + i, 'Léa', 'Rarissime', 'Passage CAL')),
      ...Array.from({ length: 20 }, (_, i) => demandeNommee(TOTAL_BORNE + 6 + i, 'Jean', 'Autre', 'Refusé')),
    ]);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('counts the whole list exactly, a search or a filter up to the bound, and says when it stopped', async () => {
    expect((await list('')).json()).toMatchObject({ total: TOTAL_BORNE + 26, totalExact: true });
    // More matches than the bound: the total is the bound, not exact (« Plus de 1 000 demandes »).
    for (const query of ['q=borne', 'q=e', 'q=bo', `q=${encodeURIComponent('borne dupre')}`, `status=${encodeURIComponent('En attente')}`, 'q=dupre&status=En%20attente']) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(200);
      expect(res.json(), query).toMatchObject({ total: TOTAL_BORNE, totalExact: false });
      expect(res.json().data, query).toHaveLength(10);
    }
    // Fewer: exact.
    expect((await list('q=rarissime')).json()).toMatchObject({ total: 5, totalExact: true });
    expect((await list('q=ra&status=Passage%20CAL')).json()).toMatchObject({ total: 5, totalExact: true });
    expect((await list(`status=${encodeURIComponent('Refusé')}`)).json()).toMatchObject({ total: 20, totalExact: true });
    expect((await list('q=borne&status=Passage%20CAL')).json()).toEqual({ data: [], total: 0, totalExact: true });
  });

  it.each([
    ['q=borne', 'dateDEnregistrement', 'desc'],
    ['q=borne&sort=nom&order=asc', 'nomTri', 'asc'],
    ['q=dupre&sort=prenom&order=desc', 'prenomTri', 'desc'],
    [`q=${encodeURIComponent('borne b')}&sort=dateDEnregistrement&order=asc`, 'dateDEnregistrement', 'asc'],
  ] as const)('pages past the bound join into the whole ordered list: %s', async (query, column, order) => {
    const whole = await ordered('Borne-Dupré', column, order);
    expect(whole).toHaveLength(TOTAL_BORNE + 1);
    // The first pages, the pages around the bound, the page past the end.
    const first = [...numeros(await list(`${query}&pageSize=100&page=1`)), ...numeros(await list(`${query}&pageSize=100&page=2`))];
    expect(first).toEqual(whole.slice(0, 200));
    const around = await list(`${query}&pageSize=100&page=10`);
    expect(around.json()).toMatchObject({ total: TOTAL_BORNE, totalExact: false });
    expect(numeros(around)).toEqual(whole.slice(900, 1000));
    const last = await list(`${query}&pageSize=100&page=11`);
    expect(numeros(last)).toEqual(whole.slice(1000));
    const beyond = await list(`${query}&pageSize=100&page=12`);
    expect(beyond.json()).toEqual({ data: [], total: TOTAL_BORNE, totalExact: false });
  });

  it("brings each row's labels, past the bound and below it", async () => {
    const [a, b, c] = (await ordered('Borne-Dupré', 'dateDEnregistrement', 'desc')).slice(1, 4) as [string, string, string];
    const rare = numeros(await list('q=rarissime'))[0]!;
    const [w, x] = numeros(await list('')) as [string, string];
    await etiqueter(ctx.app.deps.db, { [a]: ['lb-1'], [b]: ['lb-2', 'lb-1'], [rare]: ['lb-2'], [w]: ['lb-3'] });
    // Past the bound (the sort index walked), the whole list, and a few matches read among them.
    const attendues: Record<string, string[]> = { [a]: ['lb-1'], [b]: ['lb-1', 'lb-2'], [rare]: ['lb-2'], [w]: ['lb-3'] };
    for (const [query, presents] of [
      ['q=borne', [a, b, c]],
      [`status=${encodeURIComponent('En attente')}`, [a, b, c]],
      ['', [w, x]],
    ] as const) {
      const page = etiquettesDe(await list(query));
      expect(Object.keys(page), query).toEqual(expect.arrayContaining([...presents]));
      for (const [numero, etiquettes] of Object.entries(page)) expect(etiquettes, `${query}: ${numero}`).toEqual(attendues[numero] ?? []);
    }
    expect(etiquettesDe(await list('q=rarissime'))[rare]).toEqual(['lb-2']);
  });

  it('is exact again at the bound: an erased request leaves the search and the count', async () => {
    const victim = (await ordered('Borne-Dupré', 'dateDEnregistrement', 'desc'))[0]!;
    const { id } = await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', victim).executeTakeFirstOrThrow();
    await effacer(ctx, id);
    await ftsIntegre(ctx.app.deps.db, ctx.app.deps.dbKind);
    const res = await list('q=borne&pageSize=100&page=10');
    expect(res.json()).toMatchObject({ total: TOTAL_BORNE, totalExact: true });
    expect(numeros(res)).not.toContain(victim);
    expect((await list('')).json()).toMatchObject({ total: TOTAL_BORNE + 25, totalExact: true });
  });
});

describe('the managers list past the bound, searched on the name it is sorted by', () => {
  // PostgreSQL reads every match and sorts them when walking the name's index would read more rows: here the 4,000
  // requests whose names sort before « Martinez » and do not match (DemandesRepository.toutesSiMoinsCher).
  let ctx: TestContext;
  let cookie: string;
  const list = (query: string) => ctx.app.inject({ method: 'GET', url: `/app/api/logement?${query}`, headers: { cookie } });
  const numeros = (res: { json(): { data: { numeroUnique: string }[] } }) => res.json().data.map((d) => d.numeroUnique);

  beforeAll(async () => {
    ctx = await createTestApp();
    cookie = (await createAccount(ctx, 'manager')).cookie;
    const prenoms = ['Émile', 'Zoé', 'Anaïs', 'Marie-Hélène', "N'Golo", 'Bruno', 'Yasmine'];
    const avant = ['Abadie', 'Bernard', 'Chevalier', 'Dubois', 'Fabre', 'Garcia', 'Laurent', 'Lefèvre'];
    await insert(ctx.app.deps.db, [
      ...Array.from({ length: 4000 }, (_, i) => demandeNommee(i, 'Paul', avant[i % avant.length]!)),
      ...Array.from({ length: TOTAL_BORNE + 300 }, (_, i) => demandeNommee(4000 + i, prenoms[i % prenoms.length]!, 'Martinez')),
      ...Array.from({ length: 50 }, (_, i) => demandeNommee(5300 + i, 'Zora', 'Zidane')),
    ]);
    // The statistics a running installation has (autovacuum): the planner's estimates and the table's size.
    if (ctx.app.deps.dbKind === 'postgres') await sql`analyze housing_requests`.execute(ctx.app.deps.db);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it.each([
    ['q=martinez&sort=nom&order=asc', 'nomTri', 'asc'],
    ['q=martinez&sort=nom&order=desc', 'nomTri', 'desc'],
    ['q=martinez&sort=prenom&order=asc', 'prenomTri', 'asc'],
    ['q=martinez&sort=email&order=asc', 'email', 'asc'],
  ] as const)('answers the pages of the whole ordered list: %s', async (query, column, order) => {
    const whole = (
      await ctx.app.deps.db
        .selectFrom('housingRequests')
        .select('numeroUnique')
        // What the search finds: the « Martinez », and whoever else has it in their text (an e-mail address).
        .where('searchText', 'like', '%martinez%')
        .orderBy(column, order)
        .orderBy('id', order)
        .execute()
    ).map((r) => r.numeroUnique);
    expect(whole.length).toBeGreaterThanOrEqual(TOTAL_BORNE + 300);
    for (const page of [1, 2, 7, 10]) {
      const res = await list(`${query}&pageSize=100&page=${page}`);
      expect(res.json(), `${query} page ${page}`).toMatchObject({ total: TOTAL_BORNE, totalExact: false });
      expect(numeros(res), `${query} page ${page}`).toEqual(whole.slice((page - 1) * 100, page * 100));
    }
    const first = await list(`${query}&page=1`);
    expect(numeros(first)).toEqual(whole.slice(0, 10));
    // Each row with its labels (given once, to the 2nd and 5th rows of the first case; its first page of 100 is read
    // among every match on PostgreSQL).
    if (query === 'q=martinez&sort=nom&order=asc') await etiqueter(ctx.app.deps.db, { [whole[1]!]: ['lm-2', 'lm-1'], [whole[4]!]: ['lm-1'] });
    const labels = await ctx.app.deps.db
      .selectFrom('demandeEtiquettes')
      .innerJoin('housingRequests', 'housingRequests.id', 'demandeEtiquettes.housingRequestId')
      .select(['numeroUnique', 'etiquetteId'])
      .where('numeroUnique', 'in', whole.slice(0, 100))
      .execute();
    if (query === 'q=martinez&sort=nom&order=asc') expect(labels.length).toBe(3);
    expect(etiquettesDe(await list(`${query}&pageSize=100&page=1`))).toEqual(
      Object.fromEntries(whole.slice(0, 100).map((n) => [n, labels.filter((l) => l.numeroUnique === n).map((l) => l.etiquetteId).sort()])),
    );
    // Past the sample's reach, the page walks the index: the same rows.
    expect(numeros(await list(`${query}&pageSize=100&page=12`))).toEqual(whole.slice(1100, 1200));
  });
});

describe('the trigram index follows every write (migration 0011: linked by rowid)', () => {
  let ctx: TestContext;
  let cookie: string;
  const list = (query: string) => ctx.app.inject({ method: 'GET', url: `/app/api/logement?${query}`, headers: { cookie } });
  const found = async (words: string) => (await list(`q=${encodeURIComponent(words)}`)).json().data.map((d: { numeroUnique: string }) => d.numeroUnique);
  const changer = (numero: string, newStatus: string) =>
    ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload: { logementId: numero, newStatus } });

  beforeAll(async () => {
    ctx = await createTestApp();
    cookie = (await createAccount(ctx, 'manager')).cookie;
    await insert(ctx.app.deps.db, [demandeNommee(1, 'Gwenaëlle', "D'Angelo", 'En attente'), demandeNommee(2, 'Gwenaëlle', 'Le Goff', 'En attente'), demandeNommee(3, 'Yves', 'Kerbrat', 'En attente')]);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('finds a request by its new status and no longer by its old one, the others unchanged', async () => {
    const numero = generatedRequest(1).numeroUnique!;
    expect(await found('gwenaelle attente')).toHaveLength(2);
    expect((await changer(numero, 'Passage CAL')).statusCode).toBe(200);
    await ftsIntegre(ctx.app.deps.db, ctx.app.deps.dbKind);
    expect(await found('gwenaelle passage cal')).toEqual([numero]);
    expect(await found("d'angelo attente")).toEqual([]);
    expect(await found('gwenaelle attente')).toEqual([generatedRequest(2).numeroUnique]);
    expect((await changer(numero, 'Refusé')).statusCode).toBe(200);
    expect(await found('angelo passage')).toEqual([]);
    expect(await found('angelo refuse')).toEqual([numero]);
    expect(await found('kerbrat')).toEqual([generatedRequest(3).numeroUnique]);
  });

  it('forgets an erased (anonymised) request: neither its name nor its status find it', async () => {
    const numero = generatedRequest(2).numeroUnique!;
    const { id } = await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', numero).executeTakeFirstOrThrow();
    await effacer(ctx, id);
    await ftsIntegre(ctx.app.deps.db, ctx.app.deps.dbKind);
    expect(await found('le goff')).toEqual([]);
    expect(await found('gwenaelle')).toEqual([generatedRequest(1).numeroUnique]);
    expect((await list('q=effac')).json().total).toBe(0);
  });
});

describe('migration 0011 on a database with rows', () => {
  let db: Db;
  let kind: 'sqlite' | 'postgres';
  let dataDir: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-migration-0011-'));
    const database = await freshDatabaseUrl();
    drop = database.drop;
    ({ db, kind } = openDatabase({ databaseUrl: database.url, dataDir }));
  });
  afterAll(async () => {
    await db.destroy();
    await drop();
    await fsp.rm(dataDir, { recursive: true, force: true });
  });

  it('indexes the stored rows, and keeps them in step with later writes', async () => {
    expect((await migrator(db).migrateTo('0010_effacement')).error).toBeUndefined();
    await insert(db, [demandeNommee(1, 'Anne-Laure', "N'Diaye", 'En attente'), demandeNommee(2, 'Joël', 'de La Fontaine', 'Demande envoyée'), ...Array.from({ length: 30 }, (_, i) => demandeNommee(10 + i, 'Paul', 'Martin', 'En attente'))]);
    expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
    await ftsIntegre(db, kind);
    const repository = new DemandesRepository(db, kind);
    const page = (q: string, status = '') => repository.page(listeQuerySchema.parse({ q, status }));
    expect((await page("n'diaye")).data.map((d) => d.numeroUnique)).toEqual([generatedRequest(1).numeroUnique]);
    expect((await page('la fontaine envoyee')).data.map((d) => d.numeroUnique)).toEqual([generatedRequest(2).numeroUnique]);
    expect(await page('martin')).toMatchObject({ total: 30, totalExact: true });
    // The whole list's total counts the stored rows (PostgreSQL: housing_requests_total filled by the migration).
    expect(await page('')).toMatchObject({ total: 32, totalExact: true });
    // A status change after the migration: the index drops the old text and takes the new one.
    const stored = (await repository.findByNumero(generatedRequest(2).numeroUnique!))!;
    await repository.transaction((trx) => repository.setStatut(stored, 'Attribué', new Date().toISOString(), trx));
    await ftsIntegre(db, kind);
    expect((await page('la fontaine envoyee')).data).toEqual([]);
    expect((await page('fontaine attribue')).data.map((d) => d.numeroUnique)).toEqual([generatedRequest(2).numeroUnique]);
    expect(await page('', 'Attribué')).toMatchObject({ total: 1, totalExact: true });
  });
});
