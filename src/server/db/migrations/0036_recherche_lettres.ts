import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: the managers' search by one letter that few texts hold (« k », « w ») without reading most rows
 * (docs/decisions/0021, amended 2026-11-29). LIKE finds the 1,001 matches the count asks for by reading rows until
 * it meets them: ~10,000 rows for a letter in one text in ten (15 ms at 100,000 requests), all of them for a rarer
 * one. A GIN index of each text's characters (spaces left out) gives those rows at once: `search_chars(search_text)
 * @> array['k']`. Unlike the pairs of migration 0026, a letter alone between spaces is in it.
 * Its statistics are kept (ANALYZE computes the function on its sample): the repository reads from them how many
 * texts hold the letter (db/lettres.ts), and keeps LIKE for the common ones, which it finds sooner than the index's
 * bitmap of every row holding them. With those statistics the planner estimates a rare letter's rows well and reads
 * them from the index; the function keeps the default cost (a high one, as for the pairs, made the plan's estimated
 * cost pass `jit_above_cost`: 33 ms of JIT compilation for a 4 ms statement).
 * SQLite: nothing (its letters stay LIKE).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`create function search_chars(t text) returns text[] language sql immutable strict parallel safe as $$
      select array(select distinct c from unnest(string_to_array(t, null)) as c where c <> ' ')
    $$`.execute(db);
  await sql`create index housing_requests_search_chars_idx on housing_requests using gin (search_chars(search_text))`.execute(db);
}
