import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CamelCasePlugin, Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import type pg from 'pg';
import type Cursor from 'pg-cursor';
import { AUTO_CHECKPOINT_SECOURS, CheckpointsEnArrierePlan } from './checkpoint.js';
import * as m0001 from './migrations/0001_housing_requests.js';
import * as m0002 from './migrations/0002_accounts.js';
import * as m0003 from './migrations/0003_manager_list.js';
import * as m0004 from './migrations/0004_explicit_status_ranks.js';
import * as m0005 from './migrations/0005_mail_outbox.js';
import * as m0006 from './migrations/0006_profile_visibility.js';
import * as m0007 from './migrations/0007_auth_throttle.js';
import * as m0008 from './migrations/0008_session_hardening.js';
import * as m0009 from './migrations/0009_cycle_de_vie.js';
import * as m0010 from './migrations/0010_effacement.js';
import * as m0011 from './migrations/0011_search_by_rowid.js';
import * as m0012 from './migrations/0012_recherche_compacte.js';
import * as m0013 from './migrations/0013_instruction.js';
import * as m0014 from './migrations/0014_vues.js';
import * as m0015 from './migrations/0015_corrections.js';
import * as m0016 from './migrations/0016_etiquettes.js';
import * as m0017 from './migrations/0017_messages.js';
import * as m0018 from './migrations/0018_pieces_messages.js';
import * as m0019 from './migrations/0019_signalements.js';
import * as m0020 from './migrations/0020_signalements_gestion.js';
import * as m0021 from './migrations/0021_open311.js';
import * as m0022 from './migrations/0022_open311_origine.js';
import * as m0023 from './migrations/0023_partage_instances.js';
import * as m0025 from './migrations/0025_fusions_fts.js';
import * as m0026 from './migrations/0026_recherche_courte.js';
import * as m0027 from './migrations/0027_etiquettes_indexees.js';
import * as m0028 from './migrations/0028_lots_completes.js';
import * as m0029 from './migrations/0029_signalements_recherche_courte.js';
import * as m0030 from './migrations/0030_signalements_fins_de_recherche.js';
import * as m0031 from './migrations/0031_statut_effacee.js';
import * as m0032 from './migrations/0032_recherche_differee.js';
import * as m0033 from './migrations/0033_etiquettes_nom_cle.js';
import * as m0034 from './migrations/0034_annulation_dates.js';
import * as m0035 from './migrations/0035_mail_outbox_destinataire.js';
import * as m0036 from './migrations/0036_recherche_lettres.js';
import * as m0037 from './migrations/0037_signalements_recherche_lettres.js';
import * as m0038 from './migrations/0038_fins_de_recherche_lettre.js';
import { durableApresCommit } from './durable.js';
import type { LecturesGroupees } from './lectures-groupees.js';
import { dialecteTemoin } from './pannes.js';
import { colonnesFixes, enLignes } from './lignes.js';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

const require = createRequire(import.meta.url);

/**
 * camelCase in code, snake_case in the database, one letter at a time so that the spec's names
 * round-trip: nombreDEnfants <-> nombre_d_enfants (the stock plugin would write nombre_denfants).
 */
class NamingPlugin extends CamelCasePlugin {
  // Identifiers are few and fixed: convert each once (this runs for every key of every row).
  private readonly toSnake = new Map<string, string>();
  private readonly toCamel = new Map<string, string>();

  protected override snakeCase(str: string): string {
    let out = this.toSnake.get(str);
    if (out === undefined) {
      out = str.replace(/[A-Z]/gu, (c) => `_${c.toLowerCase()}`);
      if (this.toSnake.size < 10_000) this.toSnake.set(str, out);
    }
    return out;
  }

  protected override camelCase(str: string): string {
    let out = this.toCamel.get(str);
    if (out === undefined) {
      out = str.replace(/_([a-z])/gu, (_, c: string) => c.toUpperCase());
      if (this.toCamel.size < 10_000) this.toCamel.set(str, out);
    }
    return out;
  }
}

/** What Kysely's SQLite driver uses of a statement: whether it reads, and its three ways of running. */
interface Instruction {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): SqliteDatabase.RunResult;
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * better-sqlite3 as Kysely sees it, with two costs taken out (issue 11):
 * - each statement is prepared once and kept: Kysely prepares every query anew, and preparing costs as much as
 *   running a lookup by key (the app's queries are a bounded set);
 * - a reading statement whose text fixes its columns (lignes.ts `colonnesFixes`: no `select *`, no `returning *`)
 *   gives its rows as arrays, made into objects by one literal of its column names (lignes.ts), rather than by
 *   better-sqlite3 property by property.
 * A stream gets a statement of its own: one left unfinished cannot keep the kept one busy.
 */
function avecInstructionsGardees(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  const cache = new Map<string, Instruction>();
  const preparer = (source: string): Instruction => {
    const statement = sqlite.prepare(source);
    if (!statement.reader || !colonnesFixes(source)) {
      return {
        reader: statement.reader,
        all: (parameters) => statement.all(parameters),
        run: (parameters) => statement.run(parameters),
        iterate: (parameters) => sqlite.prepare(source).iterate(parameters),
      };
    }
    const ligne = enLignes(statement);
    return {
      reader: true,
      all: (parameters) => (statement.all(parameters) as unknown[][]).map(ligne),
      run: (parameters) => statement.run(parameters),
      *iterate(parameters) {
        for (const valeurs of sqlite.prepare(source).raw(true).iterate(parameters) as IterableIterator<unknown[]>) yield ligne(valeurs);
      },
    };
  };
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop === 'prepare') {
        return (source: string) => {
          let instruction = cache.get(source);
          if (!instruction) {
            instruction = preparer(source);
            if (cache.size >= 500) cache.delete(cache.keys().next().value!);
            cache.set(source, instruction);
          }
          return instruction;
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
export type DbKind = 'sqlite' | 'postgres';

const migrations: Record<string, Migration> = {
  '0001_housing_requests': m0001,
  '0002_accounts': m0002,
  '0003_manager_list': m0003,
  '0004_explicit_status_ranks': m0004,
  '0005_mail_outbox': m0005,
  '0006_profile_visibility': m0006,
  '0007_auth_throttle': m0007,
  '0008_session_hardening': m0008,
  '0009_cycle_de_vie': m0009,
  '0010_effacement': m0010,
  '0011_search_by_rowid': m0011,
  '0012_recherche_compacte': m0012,
  '0013_instruction': m0013,
  '0014_vues': m0014,
  '0015_corrections': m0015,
  '0016_etiquettes': m0016,
  '0017_messages': m0017,
  '0018_pieces_messages': m0018,
  '0019_signalements': m0019,
  '0020_signalements_gestion': m0020,
  '0021_open311': m0021,
  '0022_open311_origine': m0022,
  '0023_partage_instances': m0023,
  '0025_fusions_fts': m0025,
  '0026_recherche_courte': m0026,
  '0027_etiquettes_indexees': m0027,
  '0028_lots_completes': m0028,
  '0029_signalements_recherche_courte': m0029,
  '0030_signalements_fins_de_recherche': m0030,
  '0031_statut_effacee': m0031,
  '0032_recherche_differee': m0032,
  '0033_etiquettes_nom_cle': m0033,
  '0034_annulation_dates': m0034,
  '0035_mail_outbox_destinataire': m0035,
  '0036_recherche_lettres': m0036,
  '0037_signalements_recherche_lettres': m0037,
  '0038_fins_de_recherche_lettre': m0038,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export interface DbHandle {
  db: Db;
  kind: DbKind;
}

/**
 * The driver under a Db, for the few hot reads that run a statement prepared once instead of going
 * through Kysely (features/demandes/repository.ts `findStatut`).
 */
export type Natif =
  | {
      kind: 'sqlite';
      sqlite: SqliteDatabase.Database;
      lectures?: LecturesGroupees;
      /** WAL: what to call after each commit that wrote (fts-differe.ts), as the durable layer sees them. */
      surEcriture?: Set<() => void>;
    }
  | { kind: 'postgres'; pool: pg.Pool };
const natifs = new WeakMap<Db, Natif>();
export function natif(db: Db): Natif | undefined {
  return natifs.get(db);
}

/** Opens the database: PostgreSQL when a URL is given, else the SQLite file `dataDir/app.db`. */
export function openDatabase(options: {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL: an idle connection of the pool died. */
  onIdleError?: (error: Error) => void;
  /** SQLite: a checkpoint on the background thread failed (checkpoint.ts); the next one tries again. */
  onCheckpointError?: (error: Error) => void;
}): DbHandle {
  if (options.databaseUrl) {
    // pg loads only for PostgreSQL (an SQLite installation never pays for it).
    const { Pool } = require('pg') as typeof pg;
    const cursor = require('pg-cursor') as typeof Cursor;
    const pool = new Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection that dies (database restart, network cut) must not crash the process: the pool
    // drops it and the next query opens a new one.
    pool.on('error', (error) => options.onIdleError?.(error));
    const db = new Kysely<Database>({ dialect: dialecteTemoin(new PostgresDialect({ pool, cursor })), plugins: [new NamingPlugin()] });
    natifs.set(db, { kind: 'postgres', pool });
    return { kind: 'postgres', db };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(path.join(options.dataDir, 'app.db'));
  // WAL for concurrent readers. Durable commits without an fsync on the event loop (docs/decisions/0014):
  // NORMAL writes the WAL at commit, and durable.ts waits for its fsync on the thread pool before the
  // caller goes on. Where WAL is refused (some network file systems), FULL syncs each commit in place.
  const wal = sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal';
  sqlite.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
  // Checkpoints on the background thread (checkpoint.ts); the connection's own only past a large WAL.
  if (wal) sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_SECOURS}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // A full or read-only disk keeps its own error (pannes.ts: no ROLLBACK once SQLite has ended the transaction).
  const sqliteDialect = new SqliteDialect({ database: avecInstructionsGardees(sqlite) });
  const surEcriture = new Set<() => void>();
  const durable = wal
    ? durableApresCommit(
        sqliteDialect,
        sqlite,
        `${sqlite.name}-wal`,
        new CheckpointsEnArrierePlan(sqlite.name, options.onCheckpointError ? { onErreur: options.onCheckpointError } : {}),
        () => {
          for (const f of surEcriture) f();
        },
      )
    : undefined;
  const dialect = dialecteTemoin(durable?.dialect ?? sqliteDialect, () => sqlite.inTransaction);
  const db = new Kysely<Database>({ dialect, plugins: [new NamingPlugin()] });
  natifs.set(db, durable ? { kind: 'sqlite', sqlite, lectures: durable.lectures, surEcriture } : { kind: 'sqlite', sqlite });
  return { kind: 'sqlite', db };
}

/** The app's migrations, in order (tests step through them with `migrateTo`). */
export function migrator(db: Db): Migrator {
  return new Migrator({ db, provider });
}

/** Applies every pending migration; throws (and so stops the start) when one fails. */
export async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const cause = error instanceof Error ? error.message : String(error ?? '');
    throw new Error(`La migration ${failed?.migrationName ?? ''} a échoué : ${cause}`.trim());
  }
}

/**
 * PostgreSQL only: a trigram index lets the managers' search (`LIKE '%…%'`) use an index. pg_trgm is a
 * trusted extension (a database owner may create it); where it is refused the search still works,
 * by reading the table, and the start logs why.
 */
export async function optimiseSearch(db: Db, kind: DbKind): Promise<string | null> {
  if (kind !== 'postgres') return null;
  return sousVerrouDeDemarrage(db, kind, async (conn) => {
    try {
      await sql`create extension if not exists pg_trgm`.execute(conn);
      await sql`create index if not exists housing_requests_search_trgm_idx on housing_requests using gin (search_text gin_trgm_ops)`.execute(conn);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  });
}

/** The advisory lock of start-up DDL (Kysely's Migrator holds its own, 3853314791062309107, around the migrations). */
const VERROU_DE_DEMARRAGE = '7305108473491702611';

/**
 * PostgreSQL: runs `work` on one connection holding a session advisory lock, so that instances starting together
 * run it one after the other. For the DDL a start runs outside the migrations (trigram index, extension):
 * `create … if not exists` from two sessions at once fails in one of them on the catalogue's unique index
 * (test/migrations-concurrentes.test.ts). SQLite: `work` runs as is.
 */
export async function sousVerrouDeDemarrage<T>(db: Db, kind: DbKind, work: (db: Db) => Promise<T>): Promise<T> {
  if (kind !== 'postgres') return work(db);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${sql.raw(VERROU_DE_DEMARRAGE)})`.execute(conn);
    try {
      return await work(conn);
    } finally {
      await sql`select pg_advisory_unlock(${sql.raw(VERROU_DE_DEMARRAGE)})`.execute(conn);
    }
  });
}

/** True when the error is a UNIQUE constraint violation (SQLite or PostgreSQL). */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('code' in error)) return false;
  const code = (error as { code: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
