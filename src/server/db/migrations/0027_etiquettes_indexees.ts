import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * PostgreSQL: the managers' list filtered by a label and searched at once (« Étiquette 3 » + « martin », issue 12's
 * bench) read each of the label's requests by its id, thousands of primary-key lookups (p95 34 ms at 100,000). Each
 * request now carries the ids of its labels, `etiquette_ids`, in a GIN index: the label's requests come as one bitmap
 * of the table's pages, read in page order (3.5 ms for that case). The column is kept by statement triggers on
 * `demande_etiquettes` (the one place the app writes labels), whichever statement adds or removes them: one label on
 * one request, a label removed from every request, a copy by `npm run migrate-data`. It is the database's own
 * bookkeeping: the app never writes it, and it is not in the app's types.
 * The triggers apply the change itself (ids added, ids taken off) to the row's array, never a list read again from
 * `demande_etiquettes`: an UPDATE that waited for another transaction's lock on the row applies its change to the
 * row as that transaction left it, where a list read before the wait would undo the other's change.
 * SQLite has no such column: it already checks the label's requests by rowid against the search's (decision 0021).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return;
  await sql`alter table housing_requests add column etiquette_ids text[] not null default '{}'`.execute(db);
  await sql`update housing_requests as h set etiquette_ids = d.ids
    from (select housing_request_id, array_agg(etiquette_id order by etiquette_id) as ids from demande_etiquettes group by 1) as d
    where d.housing_request_id = h.id`.execute(db);
  await sql`create index housing_requests_etiquettes_idx on housing_requests using gin (etiquette_ids)`.execute(db);
  // `posees`: the rows the statement added; `retirees`: the rows it removed (an UPDATE: both, before and after).
  await sql`create function demande_etiquettes_suivre() returns trigger language plpgsql as $$
    begin
      if tg_op = 'TRUNCATE' then
        update housing_requests set etiquette_ids = '{}' where etiquette_ids <> '{}';
        return null;
      end if;
      if tg_op in ('DELETE', 'UPDATE') then
        update housing_requests as h
          set etiquette_ids = array(select e from unnest(h.etiquette_ids) as e where e <> all (r.ids) order by e)
          from (select housing_request_id, array_agg(etiquette_id) as ids from retirees group by 1) as r
          where h.id = r.housing_request_id;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        update housing_requests as h
          set etiquette_ids = array(select distinct e from unnest(h.etiquette_ids || p.ids) as e order by e)
          from (select housing_request_id, array_agg(etiquette_id) as ids from posees group by 1) as p
          where h.id = p.housing_request_id;
      end if;
      return null;
    end
  $$`.execute(db);
  await sql`create trigger demande_etiquettes_posees after insert on demande_etiquettes
    referencing new table as posees for each statement execute function demande_etiquettes_suivre()`.execute(db);
  await sql`create trigger demande_etiquettes_retirees after delete on demande_etiquettes
    referencing old table as retirees for each statement execute function demande_etiquettes_suivre()`.execute(db);
  await sql`create trigger demande_etiquettes_changees after update on demande_etiquettes
    referencing old table as retirees new table as posees for each statement execute function demande_etiquettes_suivre()`.execute(db);
  await sql`create trigger demande_etiquettes_videes after truncate on demande_etiquettes for each statement execute function demande_etiquettes_suivre()`.execute(db);
}
