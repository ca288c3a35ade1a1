import type { Kysely } from 'kysely';

/**
 * Labels (issue 12 point 6, src/server/features/etiquettes): `etiquettes` (name, colour), made by admins, and
 * `demande_etiquettes`, which request carries which label, who put it and when.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('etiquettes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('nom', 'text', (c) => c.notNull().unique())
    .addColumn('couleur', 'text', (c) => c.notNull())
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('demande_etiquettes')
    .addColumn('housing_request_id', 'text', (c) => c.notNull())
    .addColumn('etiquette_id', 'text', (c) => c.notNull())
    .addColumn('pose_par', 'text')
    .addColumn('pose_le', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('demande_etiquettes_pk', ['housing_request_id', 'etiquette_id'])
    .execute();
  await db.schema.createIndex('demande_etiquettes_etiquette_idx').on('demande_etiquettes').columns(['etiquette_id', 'housing_request_id']).execute();
}
