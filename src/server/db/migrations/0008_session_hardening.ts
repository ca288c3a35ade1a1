import { createHash } from 'node:crypto';
import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Sessions (issue 9 point 8, docs/decisions/0011-session-tokens.md):
 * - `last_active_at`: the time of the session's last request, written at most once a minute, read by
 *   the idle limits (src/server/auth/sessions.ts); existing sessions start from their last refresh;
 * - `token` now holds SHA-256(token) in hex (src/server/auth/sessions-tokens.ts): the tokens already
 *   there are hashed here, so the sessions open at the upgrade stay open.
 * Dates as in 0002: timestamptz on PostgreSQL, ISO text on SQLite.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const date = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';
  await db.schema.alterTable('session').addColumn('last_active_at', date).execute();
  const rows = (await db.selectFrom('session').select(['id', 'token', 'updatedAt']).execute()) as { id: string; token: string; updatedAt: unknown }[];
  for (const row of rows) {
    await db
      .updateTable('session')
      .set({ token: createHash('sha256').update(row.token, 'utf8').digest('hex'), lastActiveAt: row.updatedAt })
      .where('id', '=', row.id)
      .execute();
  }
}
