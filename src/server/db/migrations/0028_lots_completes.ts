import type { Kysely } from 'kysely';

/**
 * A bulk label addition counts apart the requests it left as they were because they already carry the most labels a
 * request may (`completes`): counted « déjà dans cet état » before, as if they already had the label.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('lots').addColumn('completes', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}
