import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the managers' search of technical reports by a word of two letters (« zq ») through the trigram index's
 * vocabulary, as the housing requests have it (migration 0026, docs/decisions/0021). The trigrams hold every pair
 * of letters that some character follows; this index holds the texts' last two characters, the only pair in no
 * trigram. Without it, LIKE read every report when nothing matched (« zq »: 29 ms at 50,000 reports).
 * PostgreSQL has migration 0029's index of pairs.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`create index signalements_fin_recherche_idx on signalements (substr(recherche, -2))`.execute(db);
}
