import { SqliteAdapter, sql, type Kysely } from 'kysely';

/**
 * The managers' list  on 100,000 requests: a folded copy of every searchable field (case and
 * accents removed, filled by the app), and indexes for each sortable column and the status filter.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('housing_requests').addColumn('search_text', 'text', (c) => c.notNull().defaultTo('')).execute();
  // Names sort without regard to case or accents (Émile next to Emma, not after Zoé).
  await db.schema.alterTable('housing_requests').addColumn('nom_tri', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('housing_requests').addColumn('prenom_tri', 'text', (c) => c.notNull().defaultTo('')).execute();
  // The status's place among the steps (Refusé last): the list sorts statuses in that order, by index.
  await db.schema.alterTable('housing_requests').addColumn('statut_rang', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  for (const column of ['date_d_enregistrement', 'nom_tri', 'prenom_tri', 'email', 'statut_rang', 'type_de_logement_souhaite', 'nombre_d_enfants']) {
    await db.schema.createIndex(`housing_requests_${column}_idx`).on('housing_requests').columns([column, 'id']).execute();
  }
  await db.schema
    .createIndex('housing_requests_statut_date_idx')
    .on('housing_requests')
    .columns(['statut_de_la_demande', 'date_d_enregistrement'])
    .execute();
  // Existing rows: the app fills search_text for every write; rows written before this migration get it here.
  await sql`update housing_requests set search_text = lower(numero_unique || ' ' || prenom || ' ' || nom || ' ' || email), nom_tri = lower(nom), prenom_tri = lower(prenom)`.execute(db);
  const ranks = ['En attente des documents', 'En cours de traitement', 'Demande envoyée', 'En attente', 'Passage CAL', 'Attribué', 'Refusé'];
  for (const [rank, statut] of ranks.entries()) {
    await sql`update housing_requests set statut_rang = ${rank} where statut_de_la_demande = ${statut}`.execute(db);
  }

  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    // SQLite: a trigram full-text index answers LIKE '%…%' without reading the table (PostgreSQL gets a
    // pg_trgm index at start, see optimiseSearch). Kept in step with housing_requests by triggers.
    await sql`create virtual table housing_search using fts5(id unindexed, search_text, tokenize = 'trigram')`.execute(db);
    await sql`insert into housing_search (id, search_text) select id, search_text from housing_requests`.execute(db);
    await sql`create trigger housing_search_insert after insert on housing_requests begin
      insert into housing_search (id, search_text) values (new.id, new.search_text); end`.execute(db);
    await sql`create trigger housing_search_update after update of search_text on housing_requests begin
      update housing_search set search_text = new.search_text where id = new.id; end`.execute(db);
    await sql`create trigger housing_search_delete after delete on housing_requests begin
      delete from housing_search where id = old.id; end`.execute(db);
  }
}
