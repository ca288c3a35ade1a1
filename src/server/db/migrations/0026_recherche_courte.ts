import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * The managers' search by a word of two letters (« zq », « t3 ») without reading every row (docs/decisions/0021).
 * Neither trigram index holds a two-letter word by itself; each database gets what it lacks:
 * - SQLite: the trigram index holds every pair of letters that some character follows (the trigrams "zq?", listed
 *   from the index's own vocabulary at query time). Only the text's last two characters are in no such trigram: an
 *   index of them, `housing_requests_fin_recherche_idx`, finds the texts that end with the word. The repository
 *   writes `substr(search_text, -2)` word for word, so that SQLite knows the index applies.
 * - PostgreSQL: a GIN index of each text's pairs of characters (spaces left out: a word of the search has none),
 *   `search_bigrams(search_text) @> array['zq']`. The function splits the text into characters once (C) and pairs
 *   them (~0.1 ms for a request's ~360 characters: paid at each write of the search text). Its cost is set high so
 *   that the planner never calls it on rows to filter them, and ANALYZE does not sample it (statistics 0): the
 *   planner's default estimate (a few hundred rows) already sends it to the index.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`create index housing_requests_fin_recherche_idx on housing_requests (substr(search_text, -2))`.execute(db);
    return;
  }
  await sql`create function search_bigrams(t text) returns text[] language sql immutable strict parallel safe cost 10000 as $$
      select array(select x || y from unnest(c[1:cardinality(c) - 1], c[2:]) as u(x, y) where x <> ' ' and y <> ' ')
      from string_to_array(t, null) as c
    $$`.execute(db);
  await sql`create index housing_requests_search_bigrams_idx on housing_requests using gin (search_bigrams(search_text))`.execute(db);
  await sql`alter index housing_requests_search_bigrams_idx alter column 1 set statistics 0`.execute(db);
}
