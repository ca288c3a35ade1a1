import type { Kysely } from 'kysely';

/**
 * Messages (issue 12 point 5, src/server/features/messages): one thread per request between managers
 * (`de` = mairie) and the applicant (`de` = demandeur), with when the other side read each;
 * `housing_requests.messages_non_lus` counts the applicant's messages no manager has read yet, for the list.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('housing_request_id', 'text', (c) => c.notNull())
    .addColumn('de', 'text', (c) => c.notNull())
    .addColumn('auteur_user_id', 'text')
    .addColumn('texte', 'text', (c) => c.notNull())
    .addColumn('le', 'text', (c) => c.notNull())
    .addColumn('lu_le', 'text')
    .execute();
  await db.schema.createIndex('messages_demande_idx').on('messages').columns(['housing_request_id', 'le']).execute();
  await db.schema.alterTable('housing_requests').addColumn('messages_non_lus', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
