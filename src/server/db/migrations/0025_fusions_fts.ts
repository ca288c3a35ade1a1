import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * SQLite: the trigram indexes (managers' search of requests and of reports) merge their segments in small
 * steps rather than all at once (issue 11 point 4, the longest event-loop stall). FTS5 writes a new segment at
 * each commit and merges them as they pile up: incrementally from `automerge` segments on a level, and all at
 * once (a « crisis merge ») from `crisismerge` (16 by default). The crisis merge ran inside an ordinary
 * creation's COMMIT on the event loop: measured on 10,000 creations at 10,000 requests, a longest commit of
 * 66 ms, 33 ms with these settings (p99 6.4 ms → 6.0 ms, the index's size alike). The settings live in the
 * index itself (its config table), so every connection follows them. PostgreSQL has no such index.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of ['housing_search', 'signalements_recherche']) {
    await sql`insert into ${sql.table(table)} (${sql.ref(table)}, rank) values ('automerge', 8)`.execute(db);
    await sql`insert into ${sql.table(table)} (${sql.ref(table)}, rank) values ('crisismerge', 64)`.execute(db);
  }
}
