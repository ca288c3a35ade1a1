// SQLite: the managers' trigram index brought up to date after the writes' transactions (migration 0032,
// db/fts-differe.ts, docs/decisions/0024): a write's rows go into the index at the end of its turn; a search never
// misses a row noted and not yet brought in (left by a crash, or a batch larger than one transaction takes).
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeQuerySchema } from '../src/domain/demande.js';
import { RATTRAPAGE_LOT } from '../src/server/db/fts-differe.js';
import { migrate, natif, openDatabase, type Db } from '../src/server/db/index.js';
import type { NewDemande } from '../src/server/db/schema.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { createAccount, createTestApp, type TestContext } from './helpers.js';
import { demandeNommee, ftsIntegre } from './recherche-helpers.js';

const sqlite = !process.env.DATABASE_URL;

/** The rows noted and not yet in the index. */
async function enAttente(db: Db): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from housing_search_pending`.execute(db)).rows[0]!.n);
}

/**
 * Waits (at most a second) until no row is noted: brought in by the turn's end that follows the write, without any
 * search. (That turn may end after the write is answered: a request started at a turn's end, by the API's turn
 * budget, ends its own turn before its answer's.)
 */
async function toutIndexe(db: Db): Promise<void> {
  for (let i = 0; i < 100 && (await enAttente(db)) > 0; i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(await enAttente(db)).toBe(0);
}

/** The index's own matches of one word, read directly (not through the list, which brings the index up to date first). */
async function dansLIndex(db: Db, mot: string): Promise<number> {
  return Number((await sql<{ n: number }>`select count(*) as n from housing_search where housing_search match ${`"${mot}"`}`.execute(db)).rows[0]!.n);
}

const liste = (q: string) => listeQuerySchema.parse({ q, pageSize: '100' });

describe.skipIf(!sqlite)('the trigram index, brought up to date after the writes', () => {
  let ctx: TestContext;
  let cookie: string;
  beforeAll(async () => {
    ctx = await createTestApp();
    cookie = (await createAccount(ctx, 'manager')).cookie;
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('takes a creation, then its new status, without a search', async () => {
    const { db } = ctx.app.deps;
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/logement',
      payload: { numeroUnique: '013differe001', prenom: 'Zéphyrine', nom: 'Quillebeuf', email: 'zq@example.org', motivations: 'Logement trop petit.' },
    });
    expect(created.statusCode).toBe(201);
    await toutIndexe(db);
    expect(await dansLIndex(db, 'quillebeuf')).toBe(1);
    expect(await dansLIndex(db, 'passage cal')).toBe(0);

    const changed = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/logement/update/status',
      headers: { cookie },
      payload: { logementId: '013differe001', newStatus: 'Passage CAL' },
    });
    expect(changed.statusCode).toBe(200);
    await toutIndexe(db);
    // Forgotten by its old text, found by its new one.
    expect(await dansLIndex(db, 'passage cal')).toBe(1);
    await ftsIntegre(db, 'sqlite');
    const found = await ctx.app.inject({ method: 'GET', url: `/app/api/logement?q=${encodeURIComponent('quillebeuf passage')}`, headers: { cookie } });
    expect(found.json().data.map((d: { numeroUnique: string }) => d.numeroUnique)).toEqual(['013differe001']);
  });

  it(`brings a batch of more than ${RATTRAPAGE_LOT} rows in, over several transactions`, async () => {
    const { db } = ctx.app.deps;
    const n = 2 * RATTRAPAGE_LOT + 22;
    await db
      .insertInto('housingRequests')
      .values(Array.from({ length: n }, (_, i) => demandeNommee(1000 + i, 'Awa', 'Vrillonnet')))
      .execute();
    const page = await new DemandesRepository(db, 'sqlite').page(liste('vrillonnet'));
    expect(page.total).toBe(n);
    expect(await enAttente(db)).toBe(0);
    expect(await dansLIndex(db, 'vrillonnet')).toBe(n);
    await ftsIntegre(db, 'sqlite');
  });
});

/**
 * A database (SQLite file in a new folder) whose rows were noted and not brought into the index, as a process that
 * stopped between its writes and their turn's end leaves them: written by another connection than the app's, which
 * brings nothing in. Three rows noted: a new text for one (noted twice), a row inserted then changed, a row deleted.
 */
async function baseLaisseeParUnArret(): Promise<string> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-differe-'));
  const ouverte = openDatabase({ databaseUrl: undefined, dataDir });
  await migrate(ouverte.db);
  await ouverte.db.destroy();
  const autre = new Database(path.join(dataDir, 'app.db'));
  const inserer = (r: NewDemande) =>
    autre
      .prepare(`insert into housing_requests (${Object.keys(r).map((k) => k.replace(/[A-Z]/gu, (c) => `_${c.toLowerCase()}`)).join(', ')}) values (${Object.keys(r).map(() => '?').join(', ')})`)
      .run(...Object.values(r).map((v) => (v === undefined ? null : v)));
  autre.transaction(() => {
    inserer({ ...demandeNommee(1, 'Awa', 'Ancienval'), numeroUnique: '013crash00001' });
    inserer({ ...demandeNommee(2, 'Awa', 'Gardeloup'), numeroUnique: '013crash00002' });
    inserer({ ...demandeNommee(3, 'Awa', 'Effacelin'), numeroUnique: '013crash00003' });
  })();
  // Indexed, as the app would have before the crash.
  autre.exec(`insert into housing_search (rowid, search_text) select k, h.search_text from housing_search_pending join housing_requests h on h.rowid = k;
    delete from housing_search_pending`);
  // Then, noted only.
  const texte = (nom: string) => (autre.prepare('select search_text from housing_requests where numero_unique = ?').pluck().get(nom) as string).replace(/ancienval/gu, 'nouvelval');
  autre.prepare('update housing_requests set search_text = ? where numero_unique = ?').run(texte('013crash00001'), '013crash00001');
  autre.prepare("update housing_requests set search_text = replace(search_text, 'nouvelval', 'dernierval') where numero_unique = '013crash00001'").run();
  inserer({ ...demandeNommee(4, 'Awa', 'Tardivier'), numeroUnique: '013crash00004' });
  autre.prepare("update housing_requests set search_text = replace(search_text, 'tardivier', 'tardivel') where numero_unique = '013crash00004'").run();
  autre.prepare("delete from housing_requests where numero_unique = '013crash00003'").run();
  autre.close();
  return dataDir;
}

describe.skipIf(!sqlite)('rows noted and not yet in the index, as a crash leaves them', () => {
  let dataDir: string;
  let db: Db;
  beforeAll(async () => {
    dataDir = await baseLaisseeParUnArret();
    db = openDatabase({ databaseUrl: undefined, dataDir }).db;
  });
  afterAll(async () => {
    await db.destroy();
    await fsp.rm(dataDir, { recursive: true, force: true });
  });

  it('make a search fail, not miss them, while they cannot be brought in (a full disk), and stay noted', async () => {
    const n = natif(db);
    if (n?.kind !== 'sqlite') throw new Error('SQLite expected');
    const pages = Number(n.sqlite.pragma('page_count', { simple: true }));
    n.sqlite.pragma(`max_page_count = ${pages}`);
    try {
      const repository = new DemandesRepository(db, 'sqlite');
      await expect(repository.page(liste('dernierval'))).rejects.toThrow(/full/u);
      // Asked again: the same error, not an answer from an index that lacks them.
      await expect(repository.page(liste('dernierval'))).rejects.toThrow(/full/u);
      expect(await enAttente(db)).toBe(3);
    } finally {
      n.sqlite.pragma('max_page_count = 1073741823');
    }
  });

  it('are found by the next search, each by its last text only', async () => {
    const repository = new DemandesRepository(db, 'sqlite');
    const numeros = async (q: string) => (await repository.page(liste(q))).data.map((d) => d.numeroUnique);
    expect(await numeros('dernierval')).toEqual(['013crash00001']);
    expect(await numeros('ancienval')).toEqual([]);
    expect(await numeros('nouvelval')).toEqual([]);
    expect(await numeros('tardivel')).toEqual(['013crash00004']);
    expect(await numeros('tardivier')).toEqual([]);
    expect(await numeros('gardeloup')).toEqual(['013crash00002']);
    expect(await numeros('effacelin')).toEqual([]);
    expect(await enAttente(db)).toBe(0);
    await ftsIntegre(db, 'sqlite');
  });
});

describe.skipIf(!sqlite)('rows a crash left noted, at start', () => {
  it('are brought into the index without a search', async () => {
    const dataDir = await baseLaisseeParUnArret();
    const { db } = openDatabase({ databaseUrl: undefined, dataDir });
    try {
      expect(await enAttente(db)).toBe(3);
      new DemandesRepository(db, 'sqlite');
      await toutIndexe(db);
      expect(await dansLIndex(db, 'dernierval')).toBe(1);
      await ftsIntegre(db, 'sqlite');
    } finally {
      await db.destroy();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });
});
