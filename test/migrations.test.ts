import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajouterMois } from '../src/domain/cycleDeVie.js';
import { STATUTS, STATUTS_DEFINIS, statutRang } from '../src/domain/statut.js';
import { migrator, openDatabase, type Db } from '../src/server/db/index.js';
import type { NewDemande } from '../src/server/db/schema.js';
import { freshDatabaseUrl } from './db.js';
import { generatedRequest } from '../bench/seed.js';

let db: Db;
let dataDir: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-migrations-'));
  const database = await freshDatabaseUrl();
  drop = database.drop;
  db = openDatabase({ databaseUrl: database.url, dataDir }).db;
});
afterAll(async () => {
  await db.destroy();
  await drop();
  await fsp.rm(dataDir, { recursive: true, force: true });
});

describe('status ranks', () => {
  it('are explicit, distinct and in the order of the steps, Refusé last', () => {
    const ranks = STATUTS_DEFINIS.map((s) => s.rang);
    expect(new Set(ranks).size).toBe(ranks.length);
    expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
    expect(statutRang('Refusé')).toBe(Math.max(...ranks));
  });

  it('migration 0004 rewrites the ranks stored as list positions into the explicit ranks', async () => {
    const { error } = await migrator(db).migrateTo('0003_manager_list');
    expect(error).toBeUndefined();
    // Rows as migration 0003 left them: the rank was the status's position in the list.
    // Without the columns of later migrations (0009's validity is backfilled).
    const rows = STATUTS.map((statut, position) => {
      const { valideJusqua: _later, ...row } = generatedRequest(position);
      return { ...row, statutDeLaDemande: statut, statutRang: position };
    });
    await db.insertInto('housingRequests').values(rows as unknown as NewDemande[]).execute();
    const result = await migrator(db).migrateToLatest();
    expect(result.error).toBeUndefined();
    const stored = await db.selectFrom('housingRequests').select(['statutDeLaDemande', 'statutRang', 'dateDEnregistrement', 'valideJusqua', 'clotureeLe']).execute();
    // Migration 0009: the validity backfilled in SQL, in the stored ISO format; closed requests dated.
    for (const r of stored) {
      expect(r.valideJusqua).toBe(ajouterMois(r.dateDEnregistrement, 12));
      expect(r.clotureeLe).toBe(['Attribué', 'Refusé', 'Radiée'].includes(r.statutDeLaDemande) ? r.dateDEnregistrement : null);
    }
    expect(Object.fromEntries(stored.map((r) => [r.statutDeLaDemande, r.statutRang]))).toEqual(
      Object.fromEntries(STATUTS_DEFINIS.map((s) => [s.value, s.rang])),
    );
  });
});

describe('labels’ names (migration 0033)', () => {
  it('keys every label by its case-folded name, keeps two that already shared one, and refuses a third', async () => {
    const database = await freshDatabaseUrl();
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-migrations-'));
    const ldb = openDatabase({ databaseUrl: database.url, dataDir: dir }).db;
    try {
      expect((await migrator(ldb).migrateTo('0032_recherche_differee')).error).toBeUndefined();
      // Both passed the check by lower(), which SQLite applies to ASCII only.
      const avant = [
        { id: 'e1', nom: 'École', couleur: 'bleu', creeLe: '2026-01-01T00:00:00.000Z' },
        { id: 'e2', nom: 'école', couleur: 'vert', creeLe: '2026-02-01T00:00:00.000Z' },
        { id: 'e3', nom: 'Urgent', couleur: 'rouge', creeLe: '2026-03-01T00:00:00.000Z' },
      ];
      await ldb.insertInto('etiquettes').values(avant as never).execute();
      expect((await migrator(ldb).migrateToLatest()).error).toBeUndefined();
      const rows = await ldb.selectFrom('etiquettes').select(['id', 'nom', 'nomCle']).orderBy('id').execute();
      expect(rows).toEqual([
        { id: 'e1', nom: 'École', nomCle: 'école' },
        { id: 'e2', nom: 'école', nomCle: 'école#e2' },
        { id: 'e3', nom: 'Urgent', nomCle: 'urgent' },
      ]);
      await expect(ldb.insertInto('etiquettes').values({ id: 'e4', nom: 'ÉCOLE', nomCle: 'école', couleur: 'bleu', creeLe: '2026-04-01T00:00:00.000Z' }).execute()).rejects.toThrow();
    } finally {
      await ldb.destroy();
      await database.drop();
      await fsp.rm(dir, { recursive: true, force: true });
    }
  });
});
