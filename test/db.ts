import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Whether this run's tests use PostgreSQL (CI's second run, DATABASE_URL set), not a SQLite file. */
export const surPostgres = (process.env.DATABASE_URL ?? '').startsWith('postgres');

/**
 * A fresh database for one test file: a temp SQLite file, or — when DATABASE_URL is set (CI's
 * PostgreSQL run) — a new PostgreSQL database created from it and dropped afterwards; a copy of `modele` when given
 * (a database already migrated, test/global-setup.ts: the app's start then has no migration left to run).
 */
export async function freshDatabaseUrl(prefix = 'qv_test', modele?: string): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, drop: async () => {} };
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(modele ? `CREATE DATABASE ${name} TEMPLATE ${modele}` : `CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
