import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the trigram index of the managers' search is addressed by housing_requests' rowid (docs/decisions
 * 0013). Migration 0003's table kept its own rows with the request's id in an UNINDEXED column, so each
 * trigger's `where id = …` read the whole index table: a status change (which rewrites search_text) cost
 * 30 ms at 100,000 requests and grew with the table. Now an external-content FTS5 table reads its text from
 * housing_requests itself, its rows are the requests' rowids, and each trigger touches only the trigrams of
 * the old and the new text. The text is no longer stored twice. Both databases: two partial indexes for the counts;
 * PostgreSQL: the number of requests not erased, kept by a trigger.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // Partial indexes only: a plain index on effacee_le would look selective to SQLite's planner (no statistics)
  // and drive every `effacee_le is null` query through all the rows.
  // The whole list's exact total is every row less the erased ones (docs/decisions/0013): those by this index.
  await sql`create index housing_requests_effacees_idx on housing_requests (effacee_le) where effacee_le is not null`.execute(db);
  // The validity filters (« Bientôt », « Expirée »): open requests by end of validity, counted from the index alone.
  // The repository's filter repeats this WHERE word for word (literals), so that SQLite knows the index applies.
  await sql`create index housing_requests_ouvertes_idx on housing_requests (valide_jusqua)
    where effacee_le is null and statut_de_la_demande not in ('Attribué', 'Refusé', 'Radiée')`.execute(db);
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
    // PostgreSQL counts a table by reading it (4-8 ms at 100,000, every time the whole list is shown): the number
    // of requests not erased is kept in one row by a trigger instead (SQLite counts from its b-tree's pages).
    await sql`create table housing_requests_total (id integer primary key check (id = 1), n bigint not null)`.execute(db);
    await sql`insert into housing_requests_total (id, n) select 1, count(*) from housing_requests where effacee_le is null`.execute(db);
    await sql`create function housing_requests_total_suivre() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          if new.effacee_le is null then update housing_requests_total set n = n + 1 where id = 1; end if;
        elsif tg_op = 'DELETE' then
          if old.effacee_le is null then update housing_requests_total set n = n - 1 where id = 1; end if;
        elsif (old.effacee_le is null) <> (new.effacee_le is null) then
          update housing_requests_total set n = n + (case when new.effacee_le is null then 1 else -1 end) where id = 1;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger housing_requests_total_suivre after insert or delete or update of effacee_le on housing_requests
      for each row execute function housing_requests_total_suivre()`.execute(db);
    return;
  }
  for (const trigger of ['housing_search_insert', 'housing_search_update', 'housing_search_delete']) {
    await sql`drop trigger if exists ${sql.raw(trigger)}`.execute(db);
  }
  await sql`drop table if exists housing_search`.execute(db);
  await sql`create virtual table housing_search using fts5(search_text, content = 'housing_requests', content_rowid = 'rowid', tokenize = 'trigram')`.execute(db);
  // Indexes every stored row from housing_requests.
  await sql`insert into housing_search (housing_search) values ('rebuild')`.execute(db);
  // An external-content table forgets a row by being told its old text ('delete' with the old values).
  await sql`create trigger housing_search_insert after insert on housing_requests begin
    insert into housing_search (rowid, search_text) values (new.rowid, new.search_text); end`.execute(db);
  await sql`create trigger housing_search_update after update of search_text on housing_requests when old.search_text is not new.search_text begin
    insert into housing_search (housing_search, rowid, search_text) values ('delete', old.rowid, old.search_text);
    insert into housing_search (rowid, search_text) values (new.rowid, new.search_text); end`.execute(db);
  await sql`create trigger housing_search_delete after delete on housing_requests begin
    insert into housing_search (housing_search, rowid, search_text) values ('delete', old.rowid, old.search_text); end`.execute(db);
}
