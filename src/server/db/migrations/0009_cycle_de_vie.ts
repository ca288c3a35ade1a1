import { sql, type Kysely } from 'kysely';

/**
 * The request's life cycle (issue 10 point 7, src/server/features/demandes/cycleDeVie.ts):
 * - `housing_requests.valide_jusqua`: the end of the validity (registration or last renewal + 12 months),
 *   backfilled here in the stored ISO format (2026-01-02T10:00:00.000Z); `dernier_renouvellement`;
 *   `rappels_envoyes`: the reminders sent for the current validity (days before expiry, "30,7");
 *   `radiee_le`: when the daily job struck it off for want of renewal; `cloturee_le`: when it became
 *   Radiée, Refusé or Attribué (the start of the retention year), backfilled from the history.
 * - `taches`: the scheduler's lease, one row per job, so that one instance at a time runs it.
 * - `mail_outbox.pieces_jointes`: attachments as JSON references, composed at send time.
 * Radiée's explicit rank (80, between Attribué and Refusé) is written for rows that may carry it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = await estPostgres(db);
  await db.schema.alterTable('housing_requests').addColumn('valide_jusqua', 'text').execute();
  await db.schema.alterTable('housing_requests').addColumn('dernier_renouvellement', 'text').execute();
  await db.schema.alterTable('housing_requests').addColumn('rappels_envoyes', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('housing_requests').addColumn('radiee_le', 'text').execute();
  await db.schema.alterTable('housing_requests').addColumn('cloturee_le', 'text').execute();
  if (postgres) {
    await sql`update housing_requests set valide_jusqua = to_char((date_d_enregistrement::timestamptz + interval '12 months') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.execute(db);
    await sql`alter table housing_requests alter column valide_jusqua set not null`.execute(db);
  } else {
    await sql`update housing_requests set valide_jusqua = strftime('%Y-%m-%dT%H:%M:%fZ', date_d_enregistrement, '+12 months')`.execute(db);
  }
  await sql`update housing_requests set statut_rang = 80 where statut_de_la_demande = 'Radiée'`.execute(db);
  await sql`
    update housing_requests set cloturee_le = coalesce(
      (select max(e.at) from status_events e
        where e.housing_request_id = housing_requests.id and e.to_status = housing_requests.statut_de_la_demande and e.undone_at is null),
      updated_at)
    where statut_de_la_demande in ('Attribué', 'Refusé', 'Radiée')`.execute(db);
  await db.schema.createIndex('housing_requests_valide_jusqua_idx').on('housing_requests').column('valide_jusqua').execute();
  await db.schema.createIndex('housing_requests_cloturee_le_idx').on('housing_requests').column('cloturee_le').execute();

  await db.schema
    .createTable('taches')
    .addColumn('nom', 'text', (c) => c.primaryKey())
    .addColumn('bail_jusqua', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('derniere_fin', 'text')
    .execute();
  await db.insertInto('taches').values({ nom: 'cycle-de-vie', bail_jusqua: '' }).execute();

  await db.schema.alterTable('mail_outbox').addColumn('pieces_jointes', 'text').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function estPostgres(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`select version()`.execute(db);
    return true;
  } catch {
    return false;
  }
}
