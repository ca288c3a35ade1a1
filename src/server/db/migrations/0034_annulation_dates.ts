import type { Kysely } from 'kysely';

/**
 * A manager's status change that may be undone keeps the request's `cloturee_le` and `radiee_le` as they were before
 * it: undoing it puts them back. The undo computed them from the status restored, so undoing a change made on a
 * request the daily job had struck off lost its striking off's date (no more reactivation by the applicant) and
 * restarted its retention year.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('status_events').addColumn('avant_cloturee_le', 'text').execute();
  await db.schema.alterTable('status_events').addColumn('avant_radiee_le', 'text').execute();
}
