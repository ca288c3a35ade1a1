import { sql, type Kysely } from 'kysely';

/**
 * The unsent mails of one person in their order: the outbox's claim looks for an earlier one another instance is
 * sending (a person's mails leave in their order), which without it read every unsent row (PostgreSQL: 4.2 ms at
 * 6,000 waiting, against 0.45 ms with it).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('mail_outbox_destinataire_idx').on('mail_outbox').columns(['recipient', 'send_after', 'id']).where(sql.ref('sent_at'), 'is', null).execute();
}
