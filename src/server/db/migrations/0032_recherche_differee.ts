import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the managers' trigram index (`housing_search`) is brought up to date once per turn of the event loop for
 * every request written in it, instead of inside each writing transaction (issue 11 point 4, docs/decisions/0024).
 * FTS5 writes a new segment at every commit that changed it, and merges them as they pile up: a creation's commit
 * cost ~600 µs with the index's trigger, ~270 µs without (3,000 single-row transactions at 10,000 requests), and
 * brought up to date 20 rows at a time the index costs ~100 µs a row.
 *
 * The triggers now note, in the same transaction as the change, the rowid of each request whose search text changed
 * and, the first time only, the text the index still holds (`ancien`, which an external-content index needs to forget
 * a row; `indexe` 0 for a row inserted since, which the index never held). db/fts-differe.ts empties that table into
 * the index, and always before the index is read. Written in the same transaction as the row, the note survives a
 * crash with it. PostgreSQL has no such index.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`create table housing_search_pending (k integer primary key, ancien text, indexe integer not null)`.execute(db);
  for (const trigger of ['housing_search_insert', 'housing_search_update', 'housing_search_delete']) {
    await sql`drop trigger ${sql.raw(trigger)}`.execute(db);
  }
  // `where not exists`, not `or ignore`: an outer `insert or replace` would impose its own conflict policy on the
  // trigger's statement and replace the first note (and the text the index holds) with a later one.
  const noter = (rowid: string, ancien: string, indexe: 0 | 1) =>
    sql.raw(`insert into housing_search_pending (k, ancien, indexe) select ${rowid}, ${ancien}, ${indexe}
      where not exists (select 1 from housing_search_pending where k = ${rowid});`);
  await sql`create trigger housing_search_insert after insert on housing_requests begin ${noter('new.rowid', 'null', 0)} end`.execute(db);
  await sql`create trigger housing_search_update after update of search_text on housing_requests when old.search_text is not new.search_text begin
    ${noter('old.rowid', 'old.search_text', 1)} end`.execute(db);
  await sql`create trigger housing_search_delete after delete on housing_requests begin ${noter('old.rowid', 'old.search_text', 1)} end`.execute(db);
}
