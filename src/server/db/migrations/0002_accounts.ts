import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Accounts (better-auth's user, session, account, verification, rate_limit tables, in snake_case
 * through the app's naming plugin), the profile columns (docs/produit.md « Comptes »), follows, and the owner of a request.
 * better-auth's Kysely adapter writes Date objects on PostgreSQL (timestamptz) and ISO strings on SQLite
 * (text), so its date columns take the type each dialect expects.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const now = sql`CURRENT_TIMESTAMP`;
  const date = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';
  await db.schema
    .createTable('user')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('email_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('image', 'text')
    .addColumn('created_at', date, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', date, (c) => c.notNull().defaultTo(now))
    // Profile (docs/produit.md « Comptes », personal data); the public profile is a projection of these.
    .addColumn('nom', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('prenom', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('gender', 'text', (c) => c.notNull().defaultTo('F'))
    .addColumn('birthday', 'text')
    .addColumn('pays', 'text', (c) => c.notNull().defaultTo('France'))
    .addColumn('ville', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ville_slug', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('quartier', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('quartier_slug', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('residence', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('rue', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_type', 'text', (c) => c.notNull().defaultTo('habitant'))
    .execute();
  // Inhabitants of a quartier / a ville (docs/produit.md « Comptes ») are a query on these slugs.
  await db.schema.createIndex('user_quartier_slug_idx').on('user').columns(['quartier_slug']).execute();
  await db.schema.createIndex('user_ville_slug_idx').on('user').columns(['ville_slug']).execute();

  await db.schema
    .createTable('session')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', date, (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', date, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', date, (c) => c.notNull().defaultTo(now))
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('user_id', 'text', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('session_user_id_idx').on('session').columns(['user_id']).execute();

  await db.schema
    .createTable('account')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('access_token', 'text')
    .addColumn('refresh_token', 'text')
    .addColumn('id_token', 'text')
    .addColumn('access_token_expires_at', date)
    .addColumn('refresh_token_expires_at', date)
    .addColumn('scope', 'text')
    .addColumn('password', 'text')
    .addColumn('created_at', date, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', date, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex('account_user_id_idx').on('account').columns(['user_id']).execute();

  await db.schema
    .createTable('verification')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('identifier', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('expires_at', date, (c) => c.notNull())
    .addColumn('created_at', date, (c) => c.notNull().defaultTo(now))
    .addColumn('updated_at', date, (c) => c.notNull().defaultTo(now))
    .execute();
  await db.schema.createIndex('verification_identifier_idx').on('verification').columns(['identifier']).execute();

  await db.schema
    .createTable('rate_limit')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('last_request', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('follows')
    .addColumn('follower_id', 'text', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('followee_id', 'text', (c) => c.notNull().references('user.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('follows_pk', ['follower_id', 'followee_id'])
    .execute();
  await db.schema.createIndex('follows_followee_idx').on('follows').columns(['followee_id']).execute();

  await db.schema
    .alterTable('housing_requests')
    .addColumn('owner_user_id', 'text', (c) => c.references('user.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('housing_requests_owner_idx').on('housing_requests').columns(['owner_user_id']).execute();
}
