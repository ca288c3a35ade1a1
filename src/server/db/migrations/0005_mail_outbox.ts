import type { Kysely } from 'kysely';

/**
 * A durable outbox for e-mails (docs/produit.md « Statuts », issue 9 point 12): each mail is a row written
 * in the same transaction as what it tells, and leaves after `send_after`. The delivery loop claims due rows
 * (`claimed_at`, `claim_token`), sends them, then sets `sent_at`; a failure keeps the row, counts the
 * attempt, keeps the error and moves `send_after` later. `key` names the mail of a status change, so that
 * undoing the change removes its mail before it leaves.
 *
 * A status event gains its refusal reason (`motif`), the time until which it may be undone, and, once
 * undone, when and by whom (the row stays as the managers' trace; the history no longer shows it).
 * Times are ISO-8601 text, like every other time of the app.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.unique())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('send_after', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('claimed_at', 'text')
    .addColumn('claim_token', 'text')
    .addColumn('sent_at', 'text')
    .execute();
  // The loop's question: unsent rows, oldest due first.
  await db.schema.createIndex('mail_outbox_due_idx').on('mail_outbox').columns(['sent_at', 'send_after']).execute();

  await db.schema.alterTable('status_events').addColumn('motif', 'text').execute();
  await db.schema.alterTable('status_events').addColumn('undo_until', 'text').execute();
  await db.schema.alterTable('status_events').addColumn('undone_at', 'text').execute();
  await db.schema.alterTable('status_events').addColumn('undone_by', 'text').execute();
}
