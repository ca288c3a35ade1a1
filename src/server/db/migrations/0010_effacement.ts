import type { Kysely } from 'kysely';

/**
 * Withdrawal and erasure (issue 10 point 6, src/server/features/demandes/effacement.ts):
 * - `housing_requests.effacee_le`: when the request was withdrawn or erased. Its row stays as an anonymous
 *   tombstone (personal fields blanked, numéro replaced) so that its status history stays; every list and
 *   lookup leaves such rows out.
 * - `mail_outbox.housing_request_id`: the request a queued mail is about, so that erasing the request
 *   withdraws its mails without touching other requests' mails to the same address.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('housing_requests').addColumn('effacee_le', 'text').execute();
  await db.schema.alterTable('mail_outbox').addColumn('housing_request_id', 'text').execute();
  await db.schema.createIndex('mail_outbox_request_idx').on('mail_outbox').column('housing_request_id').execute();
}
