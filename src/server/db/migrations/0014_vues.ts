import type { Kysely } from 'kysely';

/** A manager's saved views of the list (issue 12 point 2, src/server/features/vues): a name and a query. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('vues_enregistrees')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('nom', 'text', (c) => c.notNull())
    .addColumn('requete', 'text', (c) => c.notNull())
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('vues_enregistrees_user_idx').on('vues_enregistrees').columns(['user_id', 'cree_le']).execute();
}
