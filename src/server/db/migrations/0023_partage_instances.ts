import type { Kysely } from 'kysely';

/**
 * State that several instances share through the database (issue 15 point 2, src/server/partage; docs/operations.md
 * « Plusieurs instances »):
 * - `limites_frequence`: the per-address rate-limit counters on PostgreSQL without Redis (partage/limites.ts
 *   MagasinPostgres): `cle` an HMAC of the route and the key, `compte` the hits of the window that ends at `fin_ms`
 *   (ms since the epoch). Created on SQLite too (one set of migrations), where it stays empty.
 * - `lots`: a bulk action's progress (features/lots), so that whichever instance the manager's next poll reaches
 *   answers it: the counts so far, `fini` (0/1) and `interrompu` (0/1, the instance stopped before the end), and
 *   `bail_jusqua`, moved forward at every request by the instance that runs it; past it with `fini` 0, the action
 *   was cut short (that instance is gone).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('limites_frequence')
    .addColumn('cle', 'text', (c) => c.primaryKey())
    .addColumn('compte', 'integer', (c) => c.notNull())
    .addColumn('fin_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('limites_frequence_fin_idx').on('limites_frequence').column('fin_ms').execute();

  await db.schema
    .createTable('lots')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('proprietaire', 'text', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('faits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('inchanges', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('echecs', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fini', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('interrompu', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bail_jusqua', 'text', (c) => c.notNull())
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lots_proprietaire_idx').on('lots').column('proprietaire').execute();
}
