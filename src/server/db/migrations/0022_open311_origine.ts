import type { Kysely } from 'kysely';

/**
 * Open311's reports keep their key (issue 14 point 6, src/server/features/open311; docs/decisions/0017-open311.md):
 * `signalements.open311_cle_id`, the API key (`open311_cles.id`) a report was posted with through
 * POST /open311/v2/requests.json, null for a report made otherwise. Managers see the key's name on the report
 * (`viaOpen311`). A key is never deleted, only revoked: a plain reference, nullable (SQLite accepts a REFERENCES
 * column added by ALTER TABLE when its default is null).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('signalements')
    .addColumn('open311_cle_id', 'text', (c) => c.references('open311_cles.id'))
    .execute();
}
