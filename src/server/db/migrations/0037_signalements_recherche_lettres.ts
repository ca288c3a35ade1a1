import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: the managers' search of technical reports by one letter that few texts hold, by the index of each
 * text's characters, as migration 0036 gives the housing requests (its function `search_chars`, its statistics read
 * by db/lettres.ts). SQLite: nothing.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`create index signalements_recherche_chars_idx on signalements using gin (search_chars(recherche))`.execute(db);
}
