import { SqliteAdapter, sql, type Kysely, type RawBuilder } from 'kysely';
import { ETATS_SIGNALEMENT, texteDeRechercheSignalement } from '../../../domain/signalements.js';

/**
 * The managers' side of technical reports (issue 14 point 4, src/server/features/signalements; docs/produit.md
 * « Signalements techniques »):
 * - `signalements.recherche`: the folded search text (texteDeRechercheSignalement: number, title, description,
 *   address, e-mail, name), written by the app with the report; on SQLite an external-content FTS5 trigram table
 *   `signalements_recherche` over it, addressed by rowid and kept by triggers (as housing_search, migration 0011);
 *   on PostgreSQL a pg_trgm GIN index, created here when the extension is there, else at start (the feature's
 *   index.ts, after optimiseSearch has created the extension; docs/decisions/0007);
 * - `signalements.etat_rang`: the state's place in ETATS_SIGNALEMENT (the sort by state, by index; open states are
 *   ranks 0 to 3), written with the state (repository.changerEtat);
 * - `signalements.contenu_masque`: 1 while moderation hides something of the report (its title, its description,
 *   a photo or an update), the managers' « contenu masqué » filter, from a partial index (few reports);
 * - indexes for the managers' sorts: (mis_a_jour_le, id), (etat_rang, cree_le, id); the number has its UNIQUE
 *   index, the category (categorie, cree_le, id) from migration 0019;
 * - `signalement_notes`: managers' private notes; `signalement_moderations`: the moderation log (who hid or showed
 *   what, when, why).
 * A guard against a stale search text: a write of the e-mail, the name or the texts that does not also write
 * `recherche` (an erasure written in SQL elsewhere: the reports' retention, an account's deletion) replaces it by
 * the new values folded in SQL (lowercase, French accents and apostrophes as foldForSearch writes them; without the
 * compact forms), so that no erased address or name stays searchable.
 * PostgreSQL: the number of reports kept in `signalements_total` by triggers (the whole list's exact total without
 * reading 50,000 rows, as housing_requests_total, migration 0011); SQLite counts from its smallest index.
 */
/** Accented letters (both cases: SQLite's lower() knows ASCII only) and apostrophes, as foldForSearch writes them. */
const PLIAGE: [string, string][] = [
  ...[...'àáâãäåÀÁÂÃÄÅ'].map((c): [string, string] => [c, 'a']),
  ...[...'çÇ'].map((c): [string, string] => [c, 'c']),
  ...[...'èéêëÈÉÊË'].map((c): [string, string] => [c, 'e']),
  ...[...'ìíîïÌÍÎÏ'].map((c): [string, string] => [c, 'i']),
  ...[...'ñÑ'].map((c): [string, string] => [c, 'n']),
  ...[...'òóôõöÒÓÔÕÖ'].map((c): [string, string] => [c, 'o']),
  ...[...'ùúûüÙÚÛÜ'].map((c): [string, string] => [c, 'u']),
  ...[...'ýÿÝŸ'].map((c): [string, string] => [c, 'y']),
  ...[...'’‘ʼ`´'].map((c): [string, string] => [c, "'"]),
];

/** SQL that folds a text about as foldForSearch does (the guard's fallback; the app's own text also joins compact forms). */
function plier(texte: RawBuilder<unknown>): RawBuilder<unknown> {
  return PLIAGE.reduce((expr, [de, vers]) => sql`replace(${expr}, ${sql.lit(de)}, ${sql.lit(vers)})`, sql`lower(${texte})`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  await db.schema.alterTable('signalements').addColumn('recherche', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('signalements').addColumn('etat_rang', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('signalements').addColumn('contenu_masque', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  const rangs = sql.join(ETATS_SIGNALEMENT.map((etat, rang) => sql`when ${sql.lit(etat)} then ${sql.lit(rang)}`), sql` `);
  await sql`update signalements set etat_rang = case etat ${rangs} else 0 end`.execute(db);
  await sql`update signalements set contenu_masque = 1 where titre_masque = 1 or description_masquee = 1
    or id in (select signalement_id from signalement_photos where masquee = 1)
    or id in (select signalement_id from signalement_mises_a_jour where masquee = 1)`.execute(db);
  let apres = '';
  for (;;) {
    const rows = (await db
      .selectFrom('signalements')
      .select(['id', 'numero', 'titre', 'description', 'adresse', 'email', 'nom'])
      .where('id', '>', apres)
      .orderBy('id')
      .limit(500)
      .execute()) as { id: string; numero: string; titre: string; description: string; adresse: string; email: string; nom: string }[];
    if (rows.length === 0) break;
    for (const row of rows) await db.updateTable('signalements').set({ recherche: texteDeRechercheSignalement(row) }).where('id', '=', row.id).execute();
    apres = rows.at(-1)!.id;
  }

  await db.schema.createIndex('signalements_mis_a_jour_le_idx').on('signalements').columns(['mis_a_jour_le', 'id']).execute();
  await db.schema.createIndex('signalements_etat_rang_idx').on('signalements').columns(['etat_rang', 'cree_le', 'id']).execute();
  // The repository writes this WHERE word for word (a literal), so that SQLite knows the index applies.
  await sql`create index signalements_masques_idx on signalements (cree_le, id) where contenu_masque = 1`.execute(db);

  const repli = plier(sql`new.numero || ' ' || new.titre || ' ' || new.description || ' ' || new.adresse || ' ' || new.email || ' ' || new.nom`);
  if (sqlite) {
    await sql`create virtual table signalements_recherche using fts5(recherche, content = 'signalements', content_rowid = 'rowid', tokenize = 'trigram')`.execute(db);
    await sql`insert into signalements_recherche (signalements_recherche) values ('rebuild')`.execute(db);
    // An external-content table forgets a row by being told its old text ('delete' with the old values).
    await sql`create trigger signalements_recherche_insert after insert on signalements begin
      insert into signalements_recherche (rowid, recherche) values (new.rowid, new.recherche); end`.execute(db);
    await sql`create trigger signalements_recherche_update after update of recherche on signalements when old.recherche is not new.recherche begin
      insert into signalements_recherche (signalements_recherche, rowid, recherche) values ('delete', old.rowid, old.recherche);
      insert into signalements_recherche (rowid, recherche) values (new.rowid, new.recherche); end`.execute(db);
    await sql`create trigger signalements_recherche_delete after delete on signalements begin
      insert into signalements_recherche (signalements_recherche, rowid, recherche) values ('delete', old.rowid, old.recherche); end`.execute(db);
    await sql`create trigger signalements_recherche_garde after update of email, nom, titre, description, adresse on signalements
      when new.recherche is old.recherche and (new.email is not old.email or new.nom is not old.nom or new.titre is not old.titre
        or new.description is not old.description or new.adresse is not old.adresse)
      begin update signalements set recherche = ${repli} where rowid = new.rowid; end`.execute(db);
  } else {
    const { rows } = await sql<{ un: number }>`select 1 as un from pg_extension where extname = 'pg_trgm'`.execute(db);
    if (rows.length > 0) await sql`create index if not exists signalements_recherche_trgm_idx on signalements using gin (recherche gin_trgm_ops)`.execute(db);
    await sql`create function signalements_recherche_garde() returns trigger language plpgsql as $$
      begin
        if new.recherche is not distinct from old.recherche
          and (new.email, new.nom, new.titre, new.description, new.adresse) is distinct from (old.email, old.nom, old.titre, old.description, old.adresse) then
          new.recherche := ${repli};
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger signalements_recherche_garde before update of email, nom, titre, description, adresse on signalements
      for each row execute function signalements_recherche_garde()`.execute(db);

    await sql`create table signalements_total (id integer primary key check (id = 1), n bigint not null)`.execute(db);
    await sql`insert into signalements_total (id, n) select 1, count(*) from signalements`.execute(db);
    await sql`create function signalements_total_suivre() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then update signalements_total set n = n + 1 where id = 1;
        elsif tg_op = 'DELETE' then update signalements_total set n = n - 1 where id = 1;
        else update signalements_total set n = 0 where id = 1;
        end if;
        return null;
      end $$`.execute(db);
    await sql`create trigger signalements_total_suivre after insert or delete on signalements for each row execute function signalements_total_suivre()`.execute(db);
    await sql`create trigger signalements_total_vider after truncate on signalements for each statement execute function signalements_total_suivre()`.execute(db);
  }

  await db.schema
    .createTable('signalement_notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('signalement_id', 'text', (c) => c.notNull())
    .addColumn('auteur_user_id', 'text')
    .addColumn('texte', 'text', (c) => c.notNull())
    .addColumn('le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signalement_notes_signalement_idx').on('signalement_notes').columns(['signalement_id', 'le']).execute();

  await db.schema
    .createTable('signalement_moderations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('signalement_id', 'text', (c) => c.notNull())
    .addColumn('acteur_user_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('cible', 'text', (c) => c.notNull())
    .addColumn('cible_id', 'text')
    .addColumn('motif', 'text')
    .addColumn('le', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('signalement_moderations_signalement_idx').on('signalement_moderations').columns(['signalement_id', 'le']).execute();
}
