import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/config.js';
import { migrate, migrator, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from './db.js';

/**
 * Several instances started at once on one PostgreSQL database (issue 15 point 3; docs/operations.md « Plusieurs
 * instances »): the migrations run at start, from each of them. Kysely's Migrator holds a PostgreSQL advisory lock
 * (`pg_advisory_lock`) on its own connection while it reads what is applied and applies the rest in one
 * transaction: the first instance migrates, the others wait, then find nothing left to do. SQLite has one server
 * process by design (a second one on the same DATA_DIR is not supported): PostgreSQL only.
 */
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function freshDatabase(): Promise<string> {
  const database = await freshDatabaseUrl('qv_concurrence');
  cleanups.push(database.drop);
  return database.url!;
}

async function tempDir(): Promise<string> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-concurrence-'));
  cleanups.push(() => fsp.rm(dir, { recursive: true, force: true }));
  return dir;
}

describe.skipIf(!process.env.DATABASE_URL)('migrations from several instances at once (PostgreSQL)', () => {
  it('apply every migration once when six migrators start together on an empty database', { timeout: 60_000 }, async () => {
    const url = await freshDatabase();
    const dataDir = await tempDir();
    const handles = Array.from({ length: 6 }, () => openDatabase({ databaseUrl: url, dataDir }));
    try {
      const outcomes = await Promise.allSettled(handles.map((h) => migrate(h.db)));
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);

      const db = handles[0]!.db;
      const applied = await sql<{ name: string; n: string }>`select name, count(*) as n from kysely_migration group by name order by name`.execute(db);
      const expected = (await migrator(db).getMigrations()).map((m) => m.name);
      expect(expected.length).toBeGreaterThan(20);
      expect(applied.rows.map((r) => r.name)).toEqual(expected);
      expect(applied.rows.every((r) => Number(r.n) === 1)).toBe(true);
      // Every migration reads as applied, and the schema is whole: a table of the last migrations is there.
      expect((await migrator(db).getMigrations()).every((m) => m.executedAt !== undefined)).toBe(true);
      expect(await db.selectFrom('housingRequests').select('id').execute()).toEqual([]);
      // No lock left behind: a next start migrates (nothing to do) at once.
      const again = await migrator(db).migrateToLatest();
      expect(again.error).toBeUndefined();
      expect(again.results).toEqual([]);
    } finally {
      await Promise.all(handles.map((h) => h.db.destroy()));
    }
  });

  it('start three whole apps at once on an empty database: all serve, with no error or warning in their logs', { timeout: 60_000 }, async () => {
    const url = await freshDatabase();
    const written: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString('utf8'));
        callback();
      },
    });
    const configs = await Promise.all(
      [1, 2, 3].map(async () =>
        loadConfig({ DATA_DIR: await tempDir(), LOG_LEVEL: 'warn', PUBLIC_URL: 'http://quartier.test', ADRESSE_API_URL: 'http://127.0.0.1:9/search/' }, { databaseUrl: url }),
      ),
    );
    const outcomes = await Promise.allSettled(configs.map((config) => buildApp(config, { logger: { level: 'warn', stream } })));
    const apps = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    try {
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
      for (const app of apps) {
        const ready = await app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode, ready.body).toBe(200);
      }
      expect(written.join('')).toBe('');
      const applied = await sql<{ n: string }>`select count(*) as n from kysely_migration`.execute(apps[0]!.deps.db);
      expect(Number(applied.rows[0]!.n)).toBe((await migrator(apps[0]!.deps.db).getMigrations()).length);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
