import type { Kysely } from 'kysely';

/**
 * The managers' handling of a request (issue 12, src/server/features/instruction):
 * - `notes_internes`: private notes, managers only;
 * - `housing_requests.suivie_par`: the manager who follows the request (« Suivie par »), null when none;
 * - `journal_gestion`: what managers did (who, when, which action, on which request), without personal data.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('notes_internes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('housing_request_id', 'text', (c) => c.notNull())
    .addColumn('auteur_user_id', 'text')
    .addColumn('texte', 'text', (c) => c.notNull())
    .addColumn('le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notes_internes_demande_idx').on('notes_internes').columns(['housing_request_id', 'le']).execute();

  await db.schema.alterTable('housing_requests').addColumn('suivie_par', 'text').execute();
  await db.schema.createIndex('housing_requests_suivie_par_idx').on('housing_requests').column('suivie_par').where('suivie_par', 'is not', null).execute();

  await db.schema
    .createTable('journal_gestion')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('housing_request_id', 'text')
    .addColumn('acteur_user_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('journal_gestion_demande_idx').on('journal_gestion').columns(['housing_request_id', 'le']).execute();
}
