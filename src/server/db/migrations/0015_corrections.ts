import type { Kysely } from 'kysely';

/**
 * Document review and requests for corrections (issue 12 points 3–4, src/server/features/corrections):
 * - `documents.avis`: a manager's verdict on one document (accepte, a-remplacer; null while unchecked), with
 *   its reason (`avis_motif`, which the applicant reads), who gave it and when;
 * - `corrections`: what a manager asked the applicant to correct, when the applicant said it was done, and
 *   when a manager closed it;
 * - `housing_requests.correction`: the state of the open one (demandee, faite; null when none), for the list.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('avis', 'text').execute();
  await db.schema.alterTable('documents').addColumn('avis_motif', 'text').execute();
  await db.schema.alterTable('documents').addColumn('avis_par', 'text').execute();
  await db.schema.alterTable('documents').addColumn('avis_le', 'text').execute();

  await db.schema
    .createTable('corrections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('housing_request_id', 'text', (c) => c.notNull())
    .addColumn('motif', 'text', (c) => c.notNull())
    .addColumn('demandee_par', 'text')
    .addColumn('demandee_le', 'text', (c) => c.notNull())
    .addColumn('faite_le', 'text')
    .addColumn('close_par', 'text')
    .addColumn('close_le', 'text')
    .execute();
  await db.schema.createIndex('corrections_demande_idx').on('corrections').columns(['housing_request_id', 'demandee_le']).execute();

  await db.schema.alterTable('housing_requests').addColumn('correction', 'text').execute();
  await db.schema.createIndex('housing_requests_correction_idx').on('housing_requests').column('correction').where('correction', 'is not', null).execute();
}
