import type { Kysely } from 'kysely';

/**
 * Attachments of messages (issue 12 point 5): stored as documents of the request, checked like every upload,
 * counted in its quota, erased with it; `category` 'message' keeps them out of the five blocks, and
 * `message_id` names the message that carries them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('message_id', 'text').execute();
  await db.schema.createIndex('documents_message_idx').on('documents').column('message_id').where('message_id', 'is not', null).execute();
}
