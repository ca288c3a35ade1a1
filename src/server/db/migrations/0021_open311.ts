import type { Kysely } from 'kysely';

/**
 * Open311 GeoReport v2 (issue 14 point 6, src/server/features/open311; docs/decisions/0017-open311.md):
 * `open311_cles`, the API keys admins issue to the tools allowed to post reports. A key is stored as its
 * SHA-256 only (`cle_hash`, unique: the lookup of a posted key); never the key itself. `revoquee_le` set: the
 * key is refused. `utilisee_le`: the last request posted with it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('open311_cles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('libelle', 'text', (c) => c.notNull())
    .addColumn('cle_hash', 'text', (c) => c.notNull().unique())
    .addColumn('cree_par', 'text')
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .addColumn('revoquee_le', 'text')
    .addColumn('revoquee_par', 'text')
    .addColumn('utilisee_le', 'text')
    .execute();
}
