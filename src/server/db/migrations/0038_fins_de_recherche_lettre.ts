import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the managers' searches by one letter that few texts hold (docs/decisions/0021, amended 2026-11-29). The
 * trigram index holds a letter in every trigram that starts with it, except in a text's last two characters:
 * migrations 0026 and 0030 index those two characters (a text ending with the letter and another character), this
 * one the last character alone (a text ending with the letter). The repositories write `substr(colonne, -1)` word
 * for word, so that SQLite knows the index applies. PostgreSQL: nothing (migrations 0036 and 0037).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`create index housing_requests_fin1_recherche_idx on housing_requests (substr(search_text, -1))`.execute(db);
  await sql`create index signalements_fin1_recherche_idx on signalements (substr(recherche, -1))`.execute(db);
}
