import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: the managers' search of technical reports by a word of two letters (« zq ») through an index of each
 * text's pairs of characters, as migration 0026 gives the housing requests (its function `search_bigrams`, its
 * statistics left out). Without it, LIKE read every report when nothing matched (« zq »: 38 ms at 50,000 reports).
 * SQLite reads its trigram index's vocabulary and an index of the texts' ends (migration 0030).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`create index signalements_recherche_bigrams_idx on signalements using gin (search_bigrams(recherche))`.execute(db);
  await sql`alter index signalements_recherche_bigrams_idx alter column 1 set statistics 0`.execute(db);
}
