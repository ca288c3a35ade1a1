import type { Kysely } from 'kysely';

/**
 * Per-account throttling of sign-in and password-reset requests (src/server/auth/throttle.ts), shared by
 * every instance. A row per e-mail address tried, known or not: `key` is an HMAC of the scope and the
 * normalised address (the address itself is never stored), times are milliseconds since the epoch.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('auth_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('locked_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('auth_throttle_last_failure_idx').on('auth_throttle').columns(['last_failure_at']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('auth_throttle').execute();
}
