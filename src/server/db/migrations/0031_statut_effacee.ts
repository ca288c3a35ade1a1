import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the requests by status and erasure. The managers' list collects the keys of a status's matches
 * (docs/decisions/0021) with `effacee_le is null`: through migration 0003's index on the status and date, SQLite read
 * each match's row to check it (1,001 rows for a common status: 3 ms on a CI machine at 10,000 requests); this index
 * answers from its entries alone. It replaces that one: every status filter of the list leaves erased requests out.
 * Not a partial index (`where effacee_le is null`): SQLite then scanned it, reading a row per entry, for a search
 * with no status filter (« k » at 100,000 requests: 15 → 48 ms), where a scan of the table costs less.
 * PostgreSQL keeps its own: its list reads the matches in one statement (decision 0021).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`create index housing_requests_statut_effacee_idx on housing_requests (statut_de_la_demande, effacee_le, date_d_enregistrement)`.execute(db);
  await sql`drop index housing_requests_statut_date_idx`.execute(db);
}
