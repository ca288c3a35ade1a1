import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrator, openDatabase } from '../src/server/db/index.js';
import type { NewDemande } from '../src/server/db/schema.js';
import { generatedRequest } from '../bench/seed.js';
import { freshDatabaseUrl } from './db.js';
import { createAccount, createTestApp, demande, type TestContext } from './helpers.js';

// The managers' search folds what people type differently (issue 12 point 1): apostrophes of any kind,
// hyphens and spaces inside names, and the spaces of a phone number.
let ctx: TestContext;
let manager: { cookie: string };

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager');
  const people = [
    { numeroUnique: '013rech00001', prenom: 'Awa', nom: "N'Diaye", numeroDeTelephone: '06 12 34 56 78' },
    { numeroUnique: '013rech00002', prenom: 'Jean-Yves', nom: 'Le Bihan', numeroDeTelephone: '04.42.00.11.22' },
    { numeroUnique: '013rech00003', prenom: 'Charles', nom: 'D’Artagnan', numeroDeTelephone: '+33 7 99 88 77 66' },
  ];
  for (const person of people) {
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande(person) });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(async () => ctx.close());

async function trouve(q: string): Promise<string[]> {
  const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement?q=${encodeURIComponent(q)}`, headers: { cookie: manager.cookie } });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { numeroUnique: string }[]).map((r) => r.numeroUnique).sort();
}

describe('the managers’ search', () => {
  it.each([
    ['ndiaye', ['013rech00001']],
    ["n'diaye", ['013rech00001']],
    ['n’diaye', ['013rech00001']],
    ['N DIAYE', ['013rech00001']],
    ['0612', ['013rech00001']],
    ['0612345678', ['013rech00001']],
    ['06 12 34', ['013rech00001']],
    ['jeanyves', ['013rech00002']],
    ['jean yves', ['013rech00002']],
    ['lebihan', ['013rech00002']],
    ['0442001122', ['013rech00002']],
    ["d'artagnan", ['013rech00003']],
    ['dartagnan', ['013rech00003']],
    ['33799', ['013rech00003']],
    // Signs typed where the stored text has others, or none: the typed word's letters and digits alone match too.
    ['le-bihan', ['013rech00002']],
    ['jean.yves', ['013rech00002']],
    ["d-artagnan", ['013rech00003']],
    ['06-12-34', ['013rech00001']],
    ['04-42-00-11-22', ['013rech00002']],
    ['zz9', []],
  ])('« %s » finds %j', async (q, expected) => {
    expect(await trouve(q)).toEqual(expected);
  });
});

describe('migration 0012', () => {
  it('recomputes the search texts stored before it, so that old requests are found the new ways', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-recherche-'));
    const database = await freshDatabaseUrl();
    const { db } = openDatabase({ databaseUrl: database.url, dataDir });
    try {
      expect((await migrator(db).migrateTo('0011_search_by_rowid')).error).toBeUndefined();
      const row = { ...generatedRequest(1), nom: "N'Diaye", numeroDeTelephone: '06 12 34 56 78' };
      // As the app wrote it before: no compact names or phone.
      const ancien = "013000000001 awa n'diaye 06 12 34 56 78";
      const efface = { ...generatedRequest(2), searchText: '', effaceeLe: '2026-01-01T00:00:00.000Z' };
      await db.insertInto('housingRequests').values([{ ...row, searchText: ancien } as NewDemande, efface as NewDemande]).execute();
      expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
      const stored = await db.selectFrom('housingRequests').select(['numeroUnique', 'searchText']).orderBy('numeroUnique').execute();
      expect(stored[0]!.searchText).toContain(' ndiaye');
      expect(stored[0]!.searchText).toContain(' 0612345678');
      // SQLite: the trigram index followed (its triggers), so the list's search finds the old request.
      if (!database.url) {
        const { rows } = await sql<{ n: number }>`select count(*) as n from housing_search where housing_search match '"ndiaye"'`.execute(db);
        expect(rows[0]!.n).toBe(1);
      }
      // An erased request keeps no text.
      expect(stored[1]!.searchText).toBe('');
    } finally {
      await db.destroy();
      await database.drop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });
});
