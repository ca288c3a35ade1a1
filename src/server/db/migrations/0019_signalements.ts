import type { Kysely } from 'kysely';
import { CATEGORIES_PAR_DEFAUT } from '../../../domain/signalements.js';

/**
 * Technical reports (issue 14, src/server/features/signalements; docs/produit.md « Signalements techniques »):
 * - `signalement_categories`: the categories (code = Open311 `service_code`), the service e-mail that receives
 *   their reports, in use or not, in their order; seeded with CATEGORIES_PAR_DEFAUT;
 * - `signalements`: one report, numbered `2026-00042` (unique), its point (lat, lon in degrees, REAL on
 *   SQLite, double precision on PostgreSQL), its state and `ouvert` (1 while the state is open: the public
 *   list's « ouverts / fermés » use one index range), the hash of its private key, moderation flags;
 * - `signalement_compteurs`: the last number given per year, incremented inside the creation's transaction
 *   by one `insert … on conflict do update … returning` (atomic on both databases: PostgreSQL's row lock makes a
 *   concurrent creation wait for the commit, SQLite writes one transaction at a time);
 * - `signalement_photos`, `signalement_mises_a_jour` (the public history: state changes and texts, hidden ones
 *   kept), `signalement_suiveurs` (who is e-mailed each update), `signalement_alertes` (the district's alerts,
 *   confirmed by e-mail).
 * Booleans are integers (0/1) on both databases. Indexes: (lat, lon) for the nearby search's box, and one per
 * combination of the public list's equality filters (none, open/closed, state, category, category and open/closed,
 * category and state), each ending with (`cree_le`, `id`): the page's order, the `depuis` range, and a count and an
 * offset read from the index alone.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signalement_categories')
    .addColumn('code', 'text', (c) => c.primaryKey())
    .addColumn('libelle', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('email_service', 'text')
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('rang', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db
    .insertInto('signalement_categories')
    .values(CATEGORIES_PAR_DEFAUT.map((c, i) => ({ code: c.code, libelle: c.libelle, description: c.description, email_service: null, active: 1, rang: (i + 1) * 10 })))
    .execute();

  await db.schema
    .createTable('signalement_compteurs')
    .addColumn('annee', 'integer', (c) => c.primaryKey())
    .addColumn('dernier', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('signalements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('numero', 'text', (c) => c.notNull().unique())
    .addColumn('categorie', 'text', (c) => c.notNull())
    .addColumn('titre', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('lat', 'double precision', (c) => c.notNull())
    .addColumn('lon', 'double precision', (c) => c.notNull())
    .addColumn('adresse', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('nom', 'text', (c) => c.notNull())
    .addColumn('nom_masque', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('etat', 'text', (c) => c.notNull())
    .addColumn('ouvert', 'integer', (c) => c.notNull())
    .addColumn('doublon_de', 'text')
    .addColumn('access_key_hash', 'text', (c) => c.notNull())
    .addColumn('owner_user_id', 'text')
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .addColumn('mis_a_jour_le', 'text', (c) => c.notNull())
    .addColumn('titre_masque', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('description_masquee', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('signalements_position_idx').on('signalements').columns(['lat', 'lon']).execute();
  // The public list: the equality filters, then `cree_le` (the `depuis` range and the order) and `id` (the order's
  // tie-break), so that a page and its count read the index alone and stop at the page (migration comment above).
  const liste: [string, string[]][] = [
    ['signalements_cree_le_idx', []],
    ['signalements_ouvert_idx', ['ouvert']],
    ['signalements_etat_idx', ['etat']],
    ['signalements_categorie_idx', ['categorie']],
    ['signalements_categorie_ouvert_idx', ['categorie', 'ouvert']],
    ['signalements_categorie_etat_idx', ['categorie', 'etat']],
  ];
  for (const [nom, colonnes] of liste) await db.schema.createIndex(nom).on('signalements').columns([...colonnes, 'cree_le', 'id']).execute();
  await db.schema.createIndex('signalements_owner_idx').on('signalements').column('owner_user_id').where('owner_user_id', 'is not', null).execute();
  await db.schema.createIndex('signalements_doublon_idx').on('signalements').column('doublon_de').where('doublon_de', 'is not', null).execute();

  await db.schema
    .createTable('signalement_photos')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('signalement_id', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('largeur', 'integer', (c) => c.notNull())
    .addColumn('hauteur', 'integer', (c) => c.notNull())
    .addColumn('taille', 'integer', (c) => c.notNull())
    .addColumn('masquee', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signalement_photos_signalement_idx').on('signalement_photos').columns(['signalement_id', 'cree_le']).execute();

  await db.schema
    .createTable('signalement_mises_a_jour')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('signalement_id', 'text', (c) => c.notNull())
    .addColumn('le', 'text', (c) => c.notNull())
    .addColumn('etat', 'text')
    .addColumn('etat_precedent', 'text')
    .addColumn('texte', 'text')
    .addColumn('par', 'text', (c) => c.notNull())
    .addColumn('auteur_user_id', 'text')
    .addColumn('masquee', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('signalement_mises_a_jour_signalement_idx').on('signalement_mises_a_jour').columns(['signalement_id', 'le']).execute();

  await db.schema
    .createTable('signalement_suiveurs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('signalement_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('jeton_hash', 'text', (c) => c.notNull().unique())
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .addUniqueConstraint('signalement_suiveurs_email_uq', ['signalement_id', 'email'])
    .execute();

  await db.schema
    .createTable('signalement_alertes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('jeton_hash', 'text', (c) => c.notNull().unique())
    .addColumn('confirme_le', 'text')
    .addColumn('cree_le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signalement_alertes_confirmees_idx').on('signalement_alertes').column('confirme_le').where('confirme_le', 'is not', null).execute();
}
