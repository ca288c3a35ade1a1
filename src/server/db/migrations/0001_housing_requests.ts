import type { Kysely } from 'kysely';

// 'double precision' has REAL affinity in SQLite, so one type name serves both databases.
// Migrations are frozen once released: they use plain snake_case names, not the app's types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('housing_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('numero_unique', 'text', (c) => c.notNull().unique())
    .addColumn('access_key_hash', 'text', (c) => c.notNull())
    .addColumn('prenom', 'text', (c) => c.notNull())
    .addColumn('nom', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sexe', 'text')
    .addColumn('date_de_naissance', 'text')
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('numero_de_telephone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('adresse', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('adresse_complement', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('code_postal', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ville', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('salaire_brut', 'double precision')
    .addColumn('salaire_avis_impot1', 'double precision')
    .addColumn('salaire_avis_impot2', 'double precision')
    .addColumn('situation_familiale', 'text', (c) => c.notNull())
    .addColumn('nombre_d_enfants', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('logement_actuel', 'text', (c) => c.notNull())
    .addColumn('type_de_logement_actuel', 'text', (c) => c.notNull())
    .addColumn('quartier_actuel', 'text')
    .addColumn('bailleur_actuel', 'text', (c) => c.notNull())
    .addColumn('type_de_logement_souhaite', 'text', (c) => c.notNull())
    .addColumn('quartier_souhaite', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('date_d_enregistrement', 'text', (c) => c.notNull())
    .addColumn('statut_de_la_demande', 'text', (c) => c.notNull())
    .addColumn('motivations', 'text', (c) => c.notNull())
    .addColumn('commentaires', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('housing_request_id', 'text', (c) => c.notNull().references('housing_requests.id').onDelete('cascade'))
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('original_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('documents_request_idx').on('documents').columns(['housing_request_id', 'category']).execute();

  await db.schema
    .createTable('status_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('housing_request_id', 'text', (c) => c.notNull().references('housing_requests.id').onDelete('cascade'))
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('status_events_request_idx').on('status_events').columns(['housing_request_id', 'at']).execute();
}
