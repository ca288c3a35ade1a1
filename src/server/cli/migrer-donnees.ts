// `npm run migrate-data -- --from <DATA_DIR> --to <postgres://…>`: moves a one-server installation (its SQLite
// database and the files of its DATA_DIR) to PostgreSQL and to the storage the environment configures (STORAGE=s3,
// or STORAGE=disk with another DATA_DIR), checked by counts and checksums, and resumable
// (docs/operations.md « Passer d’un serveur à plusieurs : migrer les données », docs/decisions/0020).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import pg from 'pg';
import { accord, pluriel } from '../../domain/pluriel.js';
import { masquerMotDePasse, type Config } from '../config.js';
import { migrate, migrator, openDatabase } from '../db/index.js';
import type { Database } from '../db/schema.js';
import { stockagesDeLApp } from '../storage/choix.js';
import { LocalStorage, type Storage } from '../storage/index.js';
import { autresSessions, CliError, duree, Hasher, isStorageKey, nombre } from './archive.js';
import { configDuProgramme, estLeProgramme, lancer } from './lancer.js';
import { DOSSIERS, TABLES, type Dossier, type FichierReference } from './tables.js';

const USAGE =
  'Usage : npm run migrate-data -- --from <DATA_DIR de l’ancien serveur> --to <postgres://utilisateur@hôte:5432/base> [--lot 500] [--parallele 8]\n' +
  'Le stockage des fichiers cible est celui de la configuration (STORAGE=s3 et S3_*, ou STORAGE=disk et DATA_DIR).';

/** Exit codes (docs/operations.md): 0 everything copied and verified, 1 failure or interruption, 2 usage, 3 refused as things stand, 4 done with problems. */
export const CODES = { ok: 0, echec: 1, usage: 2, refus: 3, problemes: 4 } as const;

/** The target's own bookkeeping: its migrations are run by the target, never copied. */
export const NON_COPIEES: ReadonlySet<string> = new Set(['kysely_migration', 'kysely_migration_lock']);

/**
 * Tables the target's migrations seed (migration 0019's categories, 0009's daily job): the source's rows replace
 * them (a category the town hall renamed, removed or gave a service address), and the seeded rows the source no
 * longer has are removed. test/migrer-donnees.test.ts fails when a migration seeds another table.
 */
export const SEMEES: ReadonlySet<string> = new Set(['signalement_categories', 'taches']);

/**
 * What PostgreSQL keeps beside the rows (tables.ts `seulement: 'postgres'`), rebuilt from the copied rows at the end
 * as the app's triggers would have kept them (migrations 0011 and 0020). A new PostgreSQL-only table needs its line
 * here (test/migrer-donnees.test.ts checks it).
 */
export const RECONSTRUITES: Record<string, string> = {
  housing_requests_total:
    'insert into housing_requests_total (id, n) select 1, count(*) from housing_requests where effacee_le is null on conflict (id) do update set n = excluded.n',
  signalements_total: 'insert into signalements_total (id, n) select 1, count(*) from signalements on conflict (id) do update set n = excluded.n',
};

/**
 * The marker of a migration in the target: a row of `taches` (the server's own table, never a reason to refuse a
 * restore, ignored by the scheduler, which reads its own job by name) named
 * `migration-donnees:<installation>:<empreinte>`, whose `derniere_fin` is the end of the last run that verified
 * everything. `installation`: the source's identity (when its first migration ran); `empreinte`: its content at the
 * first run. A second run resumes only from the same source, unchanged.
 */
const MARQUE = 'migration-donnees:';
const SANS_MARQUE = `nom not like '${MARQUE}%'`;

const q = (identifiant: string) => `"${identifiant.replaceAll('"', '""')}"`;

type Ligne = Record<string, unknown>;

export interface Arguments {
  from: string;
  to: string;
  /** Rows per INSERT. */
  lot: number;
  /** Files copied at once. */
  parallele: number;
  /** Tests: stop once this many rows (or files) are copied by this run, as a Ctrl-C would. */
  arretApres: number | null;
  arretApresFichiers: number | null;
}

/** The arguments, or the usage line (with what was wrong). */
export function lireArguments(args: string[]): Arguments | string {
  const valeurs = new Map<string, string>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const egal = arg.indexOf('=');
    const [nom, valeur] = arg.startsWith('--') && egal > 0 ? [arg.slice(0, egal), arg.slice(egal + 1)] : [arg, args[++i]];
    if (!['--from', '--to', '--lot', '--parallele', '--arret-apres', '--arret-apres-fichiers'].includes(nom) || valeur === undefined || valeurs.has(nom)) return USAGE;
    valeurs.set(nom, valeur);
  }
  const from = valeurs.get('--from');
  const to = valeurs.get('--to');
  if (!from || !to) return USAGE;
  try {
    if (!['postgres:', 'postgresql:'].includes(new URL(to).protocol)) throw new Error();
  } catch {
    return `--to doit être l’adresse de la base PostgreSQL cible, postgres://utilisateur@hôte:5432/base.\n${USAGE}`;
  }
  const entier = (nom: string, defaut: number, min: number, max: number): number | null => {
    const v = valeurs.get(nom);
    if (v === undefined) return defaut;
    return /^\d+$/u.test(v) && Number(v) >= min && Number(v) <= max ? Number(v) : null;
  };
  const lot = entier('--lot', 500, 1, 5000);
  const parallele = entier('--parallele', 8, 1, 64);
  const arret = (nom: string) => (valeurs.has(nom) ? entier(nom, 0, 0, Number.MAX_SAFE_INTEGER) : null);
  const arretApres = arret('--arret-apres');
  const arretApresFichiers = arret('--arret-apres-fichiers');
  if (lot === null) return `--lot doit être un nombre de lignes entre 1 et 5000.\n${USAGE}`;
  if (parallele === null) return `--parallele doit être un nombre de fichiers entre 1 et 64.\n${USAGE}`;
  if ((valeurs.has('--arret-apres') && arretApres === null) || (valeurs.has('--arret-apres-fichiers') && arretApresFichiers === null)) return USAGE;
  return { from: path.resolve(from), to, lot, parallele, arretApres, arretApresFichiers };
}

/** A run stopped between two batches or two files (Ctrl-C, or --arret-apres): nothing is half-written. */
class Interruption extends Error {
  constructor(
    readonly lignes: number,
    readonly fichiers: number,
  ) {
    super('interrompue');
  }
}

/* ---------------------------------------------------------------- source */

/**
 * The source database, opened in SQLite's exclusive locking mode: the first read fails at once (SQLITE_BUSY) while
 * another connection has it open — the old server still running — and, once taken, the lock keeps the old server
 * from starting until the run ends. Nothing is written to it.
 */
function ouvrirSource(from: string): SqliteDatabase.Database {
  if (!fs.existsSync(from) || !fs.statSync(from).isDirectory()) {
    throw new CliError(CODES.echec, `Source introuvable : le dossier ${from} n’existe pas. --from doit désigner le DATA_DIR de l’ancien serveur (le dossier qui contient app.db, uploads/ et photos-signalements/).`);
  }
  const file = path.join(from, 'app.db');
  if (!fs.existsSync(file)) {
    throw new CliError(CODES.echec, `Source introuvable : ${file} n’existe pas. --from doit désigner le DATA_DIR de l’ancien serveur (le dossier qui contient app.db, uploads/ et photos-signalements/).`);
  }
  const db = new SqliteDatabase(file, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.prepare("select count(*) from sqlite_master where type = 'table'").get();
    db.pragma('query_only = ON');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new CliError(
        CODES.refus,
        `La base source ${file} est ouverte par un autre programme : l’ancien serveur tourne encore ? Arrêtez-le (systemctl stop quartier-vivant) avant de migrer : il continuerait d’écrire dans la base qu’on copie. Rien n’a été copié.`,
      );
    }
    throw new CliError(CODES.echec, `La base source ${file} est illisible (${error instanceof Error ? error.message : String(error)}). Rien n’a été copié.`);
  }
  return db;
}

function tablesSqlite(db: SqliteDatabase.Database): string[] {
  return (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name").all() as { name: string }[]).map((r) => r.name);
}

function colonnesSqlite(db: SqliteDatabase.Database, table: string): { nom: string; pk: number }[] {
  return (db.prepare('select name, pk from pragma_table_info(?) order by cid').all(table) as { name: string; pk: number }[]).map((r) => ({ nom: r.name, pk: r.pk }));
}

function clePrimaireSqlite(db: SqliteDatabase.Database, table: string): string[] {
  return colonnesSqlite(db, table)
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.nom);
}

const compterSqlite = (db: SqliteDatabase.Database, table: string) => Number((db.prepare(`select count(*) as n from ${q(table)}`).get() as { n: number }).n);

/** The source's tables the copy reads: those of both databases (not SQLite's search index), not the migrations' bookkeeping. */
function tablesACopier(db: SqliteDatabase.Database): string[] {
  return tablesSqlite(db).filter((t) => TABLES[t]?.seulement !== 'sqlite' && !NON_COPIEES.has(t));
}

/**
 * Refuses a source that is not at this version's last migration (or at a later one), and answers its identity: when
 * its first migration ran (a backup restored elsewhere keeps it; another installation has its own).
 */
async function verifierMigrations(db: SqliteDatabase.Database, from: string): Promise<string> {
  if (!tablesSqlite(db).includes('kysely_migration')) {
    throw new CliError(CODES.refus, `${path.join(from, 'app.db')} n’est pas une base de Quartier Vivant (aucune migration enregistrée). Rien n’a été copié.`);
  }
  // The app's own list of migrations, read by Kysely on the source (read-only: it only lists them).
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: db }) });
  const connues = await migrator(kysely).getMigrations();
  const faites = (db.prepare('select name, timestamp from kysely_migration order by name').all() as { name: string; timestamp: string }[]).filter((r) => r.name !== '');
  const noms = new Set(connues.map((m) => m.name));
  const inconnues = faites.filter((m) => !noms.has(m.name));
  if (inconnues.length > 0) {
    throw new CliError(
      CODES.refus,
      `La base source a été mise à jour par une version plus récente de Quartier Vivant (migration ${inconnues.at(-1)!.name}, inconnue de celle-ci) : mettez l’application à jour ici avant de migrer. Rien n’a été copié.`,
    );
  }
  const enAttente = connues.filter((m) => m.executedAt === undefined);
  if (enAttente.length > 0) {
    const derniere = faites.at(-1)?.name ?? 'aucune';
    throw new CliError(
      CODES.refus,
      `La base source n’est pas à jour : sa dernière migration est ${derniere}, cette version de l’application en compte ${accord(enAttente.length, 'une de plus', `${enAttente.length} de plus`)} (jusqu’à ${enAttente.at(-1)!.name}). Démarrez une fois l’ancien serveur avec cette version de l’application (il se met à jour au démarrage), arrêtez-le, puis relancez la migration. Rien n’a été copié.`,
    );
  }
  const premiere = faites[0]!;
  return createHash('sha256').update(`${premiere.name}\n${premiere.timestamp}`).digest('hex').slice(0, 16);
}

/**
 * The source's content: a SHA-256 of every row of every table copied, in primary-key order. Recorded in the marker at
 * the first run, compared at the next: a source that changed in between (the old server started again) is refused
 * rather than half-merged.
 */
function empreinteDe(db: SqliteDatabase.Database, tables: string[]): string {
  const hash = createHash('sha256');
  for (const table of [...tables].sort()) {
    const cle = clePrimaireSqlite(db, table);
    const ordre = (cle.length > 0 ? cle : ['rowid']).map(q).join(', ');
    hash.update(`${table}\n`);
    for (const row of db.prepare(`select * from ${q(table)} order by ${ordre}`).raw(true).iterate()) hash.update(`${JSON.stringify(row)}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/* ---------------------------------------------------------------- target */

async function ouvrirCible(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: 'qv-migrate-data' });
  // An idle connection that dies is reported by the next query, not by a crash of the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    throw new CliError(
      CODES.echec,
      `Impossible de joindre la base PostgreSQL ${masquerMotDePasse(url)} (${error instanceof Error ? error.message : String(error)}). Vérifiez --to ; la base doit exister (createdb). Rien n’a été copié.`,
    );
  }
  // Dates written without their zone (SQLite's CURRENT_TIMESTAMP) are UTC.
  await client.query("set time zone 'UTC'");
  return client;
}

/** Refuses while other sessions use the target (a server already started on it), after waiting a little for closing ones. */
async function attendreSeule(client: pg.Client): Promise<void> {
  const autres = await autresSessions(client);
  if (autres === 0) return;
  throw new CliError(
    CODES.refus,
    `${pluriel(autres, 'autre connexion', 'autres connexions')} ${accord(autres, 'est ouverte', 'sont ouvertes')} sur la base cible : n’y démarrez les nouvelles instances qu’après la migration (arrêtez-les, et toute autre session sur cette base). Rien n’a été copié.`,
  );
}

async function tablesPostgres(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>('select tablename as name from pg_tables where schemaname = current_schema() order by tablename');
  return rows.map((r) => r.name);
}

/** « 3 demandes, 2 comptes et 1 signalement », else « des données ». */
function ceQuiEstLa(lignes: Record<string, number>): string {
  const nommees = (['housing_requests', 'user', 'signalements'] as const).flatMap((t) => {
    const n = lignes[t] ?? 0;
    const [singulier, plusieurs] = TABLES[t]!.resume!;
    return n > 0 ? [pluriel(n, singulier, plusieurs)] : [];
  });
  if (nommees.length === 0) return 'des données';
  return nommees.length === 1 ? nommees[0]! : `${nommees.slice(0, -1).join(', ')} et ${nommees.at(-1)!}`;
}

/**
 * Whether this run starts a migration or resumes one of the same source. Refuses a target that holds data rows of its
 * own (tables.ts `donnees`, and any table it does not know), or the marker of another installation, or of this one
 * when the source changed since.
 */
async function etatDeLaCible(client: pg.Client, installation: string, empreinte: string): Promise<{ reprise: boolean }> {
  const tables = await tablesPostgres(client);
  if (tables.includes('taches')) {
    const { rows } = await client.query<{ nom: string }>(`select nom from taches where nom like '${MARQUE}%'`);
    for (const { nom } of rows) {
      const [autreInstallation, autreEmpreinte] = nom.slice(MARQUE.length).split(':');
      if (autreInstallation !== installation) {
        throw new CliError(
          CODES.refus,
          'La base cible contient déjà les données d’une autre installation de Quartier Vivant (migrée depuis un autre dossier) : choisissez une base neuve (createdb), ou supprimez celle-ci si elle ne sert à rien. Rien n’a été copié.',
        );
      }
      if (autreEmpreinte !== empreinte) {
        throw new CliError(
          CODES.refus,
          'La base source a changé depuis la première passe de cette migration (l’ancien serveur a-t-il été redémarré entre-temps ?) : reprendre mélangerait deux états. Videz la base cible (dropdb puis createdb) et relancez depuis le début ; les fichiers déjà copiés resteront et seront seulement vérifiés. Rien n’a été copié.',
        );
      }
    }
    if (rows.length > 0) return { reprise: true };
  }
  const lignes: Record<string, number> = {};
  for (const table of tables.filter((t) => TABLES[t]?.contenu !== 'technique')) {
    const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${q(table)}`);
    lignes[table] = Number(rows[0]?.n ?? 0);
  }
  if (Object.values(lignes).some((n) => n > 0)) {
    throw new CliError(
      CODES.refus,
      `La base cible contient déjà ${ceQuiEstLa(lignes)}, qui ne viennent pas de cette source : une migration ne se fait que dans une base neuve (createdb), ou pour reprendre une migration interrompue de la même source. Rien n’a été copié.`,
    );
  }
  return { reprise: false };
}

/** The target's schema, read from PostgreSQL's catalogue once its migrations have run. */
interface SchemaCible {
  colonnes: Map<string, Map<string, string>>;
  cles: Map<string, string[]>;
  /** [table, table it references] */
  references: [string, string][];
}

async function schemaCible(client: pg.Client): Promise<SchemaCible> {
  const colonnes = new Map<string, Map<string, string>>();
  const c = await client.query<{ t: string; c: string; type: string }>(
    'select table_name as t, column_name as c, data_type as type from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position',
  );
  for (const r of c.rows) {
    if (!colonnes.has(r.t)) colonnes.set(r.t, new Map());
    colonnes.get(r.t)!.set(r.c, r.type);
  }
  const cles = new Map<string, string[]>();
  const k = await client.query<{ t: string; c: string }>(
    `select t.relname as t, a.attname as c from pg_index i
       join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
       join lateral unnest(i.indkey) with ordinality as k(attnum, rang) on true
       join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum
     where i.indisprimary and n.nspname = current_schema() order by t.relname, k.rang`,
  );
  for (const r of k.rows) cles.set(r.t, [...(cles.get(r.t) ?? []), r.c]);
  const f = await client.query<{ enfant: string; parent: string }>(
    `select e.relname as enfant, p.relname as parent from pg_constraint k
       join pg_class e on e.oid = k.conrelid join pg_class p on p.oid = k.confrelid join pg_namespace n on n.oid = e.relnamespace
     where k.contype = 'f' and n.nspname = current_schema()`,
  );
  return { colonnes, cles, references: f.rows.map((r) => [r.enfant, r.parent]) };
}

/**
 * The tables in an order where every table comes after those its foreign keys reference (PostgreSQL checks each row
 * as it is inserted); otherwise in tables.ts's order, then by name. A cycle (none today) is an error.
 */
export function ordreDesTables(tables: string[], references: [string, string][]): string[] {
  const rang = (t: string) => {
    const i = Object.keys(TABLES).indexOf(t);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  const restantes = [...tables].sort((a, b) => rang(a) - rang(b) || a.localeCompare(b));
  const parents = new Map(restantes.map((t) => [t, new Set(references.filter(([e, p]) => e === t && p !== t && tables.includes(p)).map(([, p]) => p))]));
  const ordre: string[] = [];
  while (restantes.length > 0) {
    const i = restantes.findIndex((t) => [...parents.get(t)!].every((p) => ordre.includes(p)));
    if (i === -1) throw new Error(`Clés étrangères en cycle entre les tables ${restantes.join(', ')}`);
    ordre.push(...restantes.splice(i, 1));
  }
  return ordre;
}

const estTexte = (type: string | undefined) => type === 'text' || type === 'character varying' || type === 'character';

/* ---------------------------------------------------------------- copy */

export interface BilanTable {
  table: string;
  source: number;
  cible: number;
  /** Rows this run inserted (the others were there from a previous run). */
  copiees: number;
}

export type ProblemeFichier = 'absent-source' | 'contenu-different' | 'copie-differente' | 'cle-refusee';

export interface Bilan {
  ms: number;
  from: string;
  to: string;
  stockage: string;
  reprise: boolean;
  tables: BilanTable[];
  fichiers: {
    references: number;
    copies: number;
    dejaLa: number;
    verifies: number;
    problemes: { dossier: Dossier; key: string; probleme: ProblemeFichier }[];
    /** Files of the source no row references: not copied. */
    orphelins: { dossier: Dossier; key: string }[];
    /** Files of the target no row of the source references (another installation's, an earlier copy's): left there. */
    enTrop: number;
  };
  sessions: { n: number; secret: 'meme' | 'different' | 'inconnu' };
}

interface Contexte {
  source: SqliteDatabase.Database;
  client: pg.Client;
  args: Arguments;
  ecrire: (ligne: string) => void;
  signal: AbortSignal | undefined;
  /** Rows and files copied by this run so far (--arret-apres, --arret-apres-fichiers). */
  faits: { lignes: number; fichiers: number };
}

function verifierArret(ctx: Contexte): void {
  const { faits, args, signal } = ctx;
  const assez = (args.arretApres !== null && faits.lignes >= args.arretApres) || (args.arretApresFichiers !== null && faits.fichiers >= args.arretApresFichiers);
  if (signal?.aborted || assez) throw new Interruption(faits.lignes, faits.fichiers);
}

/** A SQLite value as the JSON that jsonb_populate_recordset turns into the PostgreSQL column's type (0/1 into a boolean, ISO text into a timestamptz). */
function versJson(table: string, ligne: Ligne): Ligne {
  for (const [colonne, valeur] of Object.entries(ligne)) {
    if (typeof valeur === 'number' && !Number.isFinite(valeur)) throw new CliError(CODES.echec, `La colonne ${table}.${colonne} contient une valeur que PostgreSQL ne sait pas garder (${valeur}). Rien de plus n’a été copié.`);
    if (Buffer.isBuffer(valeur)) throw new CliError(CODES.echec, `La colonne ${table}.${colonne} contient des octets bruts (BLOB), que cette version ne sait pas copier. Signalez-le aux développeurs.`);
  }
  return ligne;
}

/**
 * Copies one table, by batches in primary-key order, each one INSERT (whole or nothing) that skips the rows already
 * there (ON CONFLICT DO NOTHING), so that a run cut short resumes where it stopped: from the largest key the target
 * holds (compared byte by byte, as SQLite orders text), or not at all when the counts already match. Seeded tables
 * (SEMEES) are rewritten whole with the source's values.
 */
async function copierTable(ctx: Contexte, schema: SchemaCible, table: string): Promise<BilanTable> {
  const { source, client, args, ecrire } = ctx;
  const typesCible = schema.colonnes.get(table)!;
  const colonnes = colonnesSqlite(source, table).map((c) => c.nom);
  const manquantes = colonnes.filter((c) => !typesCible.has(c));
  if (manquantes.length > 0) {
    throw new CliError(CODES.echec, `La table ${table} de la source a des colonnes que la base cible n’a pas (${manquantes.join(', ')}) : les deux bases ne sont pas à la même version. Rien de plus n’a été copié.`);
  }
  const cle = clePrimaireSqlite(source, table);
  const cleCible = schema.cles.get(table) ?? [];
  if (cle.length === 0 || cle.join(',') !== cleCible.join(',')) {
    throw new CliError(CODES.echec, `La table ${table} n’a pas la même clé primaire dans les deux bases (${cle.join(', ') || 'aucune'} / ${cleCible.join(', ') || 'aucune'}) : signalez-le aux développeurs. Rien de plus n’a été copié.`);
  }
  const semee = SEMEES.has(table);
  const filtreCible = table === 'taches' ? ` where ${SANS_MARQUE}` : '';
  const compterCible = async () => Number((await client.query<{ n: string }>(`select count(*) as n from ${q(table)}${filtreCible}`)).rows[0]!.n);
  const total = compterSqlite(source, table);
  let apres: unknown[] | null = null;
  if (!semee) {
    const deja = await compterCible();
    if (deja === total) return { table, source: total, cible: deja, copiees: 0 };
    if (deja > 0) {
      // Batches commit in key order: what the target holds is the source's first rows, up to its largest key.
      const ordre = cle.map((c) => `${q(c)}${estTexte(typesCible.get(c)) ? ' collate "C"' : ''} desc`).join(', ');
      const { rows } = await client.query<Ligne>(`select ${cle.map(q).join(', ')} from ${q(table)} order by ${ordre} limit 1`);
      apres = cle.map((c) => {
        const v = rows[0]![c];
        return typeof v === 'string' && !estTexte(typesCible.get(c)) ? Number(v) : v;
      });
    }
  }
  const liste = colonnes.map(q).join(', ');
  const ordre = cle.map(q).join(', ');
  const tuple = cle.length === 1 ? q(cle[0]!) : `(${cle.map(q).join(', ')})`;
  const marqueurs = cle.length === 1 ? '?' : `(${cle.map(() => '?').join(', ')})`;
  const premiers = source.prepare(`select ${liste} from ${q(table)} order by ${ordre} limit ?`);
  const suivants = source.prepare(`select ${liste} from ${q(table)} where ${tuple} > ${marqueurs} order by ${ordre} limit ?`);
  const autres = colonnes.filter((c) => !cle.includes(c));
  // A seeded row is rewritten only where the source's differs (a re-run rewrites nothing, and counts nothing).
  const conflit =
    semee && autres.length > 0
      ? `on conflict (${cle.map(q).join(', ')}) do update set ${autres.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ')} where (${autres.map((c) => `${q(table)}.${q(c)}`).join(', ')}) is distinct from (${autres.map((c) => `excluded.${q(c)}`).join(', ')})`
      : 'on conflict do nothing';
  const insertion = `insert into ${q(table)} (${liste}) select ${liste} from jsonb_populate_recordset(null::${q(table)}, $1::jsonb) ${conflit}`;
  let copiees = 0;
  let lues = 0;
  let prochainPalier = 5000;
  for (;;) {
    verifierArret(ctx);
    const lot = (apres ? suivants.all(...(apres as unknown[]), args.lot) : premiers.all(args.lot)) as Ligne[];
    if (lot.length === 0) break;
    try {
      const { rowCount } = await client.query(insertion, [JSON.stringify(lot.map((l) => versJson(table, l)))]);
      copiees += rowCount ?? 0;
      ctx.faits.lignes += rowCount ?? 0;
    } catch (error) {
      if (error instanceof CliError) throw error;
      // The error's message names the constraint, never the row's values (its `detail` would: left out).
      throw new CliError(
        CODES.echec,
        `La copie de la table ${table} a échoué (lot après la clé ${apres ? JSON.stringify(apres) : 'du début'}) : ${error instanceof Error ? error.message : String(error)}. Ce qui précède est copié ; corrigez la cause puis relancez la même commande.`,
      );
    }
    lues += lot.length;
    apres = cle.map((c) => lot.at(-1)![c]);
    if (lues >= prochainPalier) {
      ecrire(`  ${table} : ${nombre(lues)} lignes lues sur ${nombre(total)}…`);
      prochainPalier += 5000;
    }
    if (lot.length < args.lot) break;
  }
  if (semee) {
    // The seeded rows the source no longer has (a category deleted by the town hall).
    const cles = (source.prepare(`select ${q(cle[0]!)} as k from ${q(table)}`).all() as { k: unknown }[]).map((r) => r.k);
    const filtre = table === 'taches' ? ` and ${SANS_MARQUE}` : '';
    await client.query(`delete from ${q(table)} where not (${q(cle[0]!)} = any($1))${filtre}`, [cles]);
  }
  return { table, source: total, cible: await compterCible(), copiees };
}

/** What the PostgreSQL database keeps beside its rows, as the app's triggers would have kept it; then fresh statistics for the planner. */
async function reconstruire(client: pg.Client, tables: string[]): Promise<void> {
  for (const [table, requete] of Object.entries(RECONSTRUITES)) if (tables.includes(table)) await client.query(requete);
  // A serial or identity column (none today) continues after the largest value copied.
  const { rows } = await client.query<{ t: string; c: string }>(
    `select table_name as t, column_name as c from information_schema.columns
     where table_schema = current_schema() and (column_default like 'nextval(%' or is_identity = 'YES')`,
  );
  for (const { t, c } of rows) {
    await client.query(`select setval(pg_get_serial_sequence($1, $2), coalesce((select max(${q(c)}) from ${q(t)}), 0) + 1, false)`, [q(t), c]);
  }
  await client.query('analyze');
}

/* ---------------------------------------------------------------- files */

/** The files the source's rows reference (tables.ts `fichiers`), in its tables' order. */
function fichiersReferences(source: SqliteDatabase.Database): FichierReference[] {
  const tables = tablesSqlite(source);
  const out: FichierReference[] = [];
  for (const [table, { fichiers }] of Object.entries(TABLES)) {
    if (!fichiers || !tables.includes(table)) continue;
    for (const row of source.prepare(fichiers.requete).all() as Ligne[]) {
      const fichier = fichiers.fichier(row);
      if (fichier) out.push(fichier);
    }
  }
  return out;
}

async function empreinteDuFlux(flux: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of flux as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

const estAbsent = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

/** A file as the summary names it: its folder and key, a document's original name left out (personal data). */
export function nomDuFichier(f: { dossier: Dossier; key: string }): string {
  const parties = f.key.split('/');
  const sansNom = f.dossier === 'uploads' && parties[0] !== 'avatars' && parties.length > 2 ? [...parties.slice(0, -1), '…'] : parties;
  return `${f.dossier}/${sansNom.join('/')}`;
}

interface Stockages {
  source: Record<Dossier, Storage>;
  cible: Record<Dossier, Storage>;
}

/**
 * One file: skipped when the target already holds it whole (its SHA-256 read back); otherwise streamed from the disk
 * to the target (a temp then committed under its key: whole or absent, even when the run is cut short), then read
 * back and checked: against the row's SHA-256 for a document, else against the source file's.
 */
async function copierFichier(stockages: Stockages, ref: FichierReference, presente: boolean): Promise<{ etat: 'copie' | 'deja-la' | 'rien'; probleme?: ProblemeFichier }> {
  if (!isStorageKey(ref.key)) return { etat: 'rien', probleme: 'cle-refusee' };
  const source = stockages.source[ref.dossier];
  const cible = stockages.cible[ref.dossier];
  const conforme = (f: { sha256: string; size: number }, attendu: string) => f.sha256 === attendu && (ref.size === null || f.size === ref.size);
  if (presente) {
    const la = await empreinteDuFlux(cible.read(ref.key));
    let attendu = ref.sha256;
    if (attendu === null) {
      const original = await empreinteDuFlux(source.read(ref.key)).catch((error: unknown) => {
        if (estAbsent(error)) return null;
        throw error;
      });
      if (!original) return { etat: 'deja-la', probleme: 'absent-source' };
      attendu = original.sha256;
    }
    if (conforme(la, attendu)) return { etat: 'deja-la' };
    // Another content under the key (an earlier copy by hand, a damaged object): replaced by the source's.
  }
  const temp = cible.createTemp();
  const hasher = new Hasher();
  try {
    await pipeline(source.read(ref.key), hasher, temp.stream);
  } catch (error) {
    await temp.discard().catch(() => {});
    if (estAbsent(error)) return { etat: 'rien', probleme: 'absent-source' };
    throw error;
  }
  await temp.commit(ref.key);
  const copie = { sha256: hasher.digest(), size: hasher.size };
  const relue = await empreinteDuFlux(cible.read(ref.key));
  if (relue.sha256 !== copie.sha256 || relue.size !== copie.size) return { etat: 'copie', probleme: 'copie-differente' };
  // Copied as it is on the disk, but not what the database recorded at upload: the disk damaged it.
  if (!conforme(copie, ref.sha256 ?? copie.sha256)) return { etat: 'copie', probleme: 'contenu-different' };
  return { etat: 'copie' };
}

async function copierFichiers(ctx: Contexte, stockages: Stockages): Promise<Bilan['fichiers']> {
  const refs = fichiersReferences(ctx.source);
  const bilan: Bilan['fichiers'] = { references: refs.length, copies: 0, dejaLa: 0, verifies: 0, problemes: [], orphelins: [], enTrop: 0 };
  const dossiers = Object.keys(DOSSIERS) as Dossier[];
  const presents = new Map<Dossier, Set<string>>();
  for (const dossier of dossiers) {
    const cles = new Set<string>();
    for await (const { key } of stockages.cible[dossier].keys()) cles.add(key);
    presents.set(dossier, cles);
  }
  // Files of the source no row references (leftovers, old profile pictures): not copied, listed.
  const referencees = new Set(refs.map((r) => `${r.dossier}/${r.key}`));
  for (const [dossier, cles] of presents) for (const key of cles) if (!referencees.has(`${dossier}/${key}`)) bilan.enTrop += 1;
  for (const dossier of dossiers) {
    if (!fs.existsSync(path.join(ctx.args.from, dossier))) continue;
    for await (const { key } of stockages.source[dossier].keys()) if (!referencees.has(`${dossier}/${key}`)) bilan.orphelins.push({ dossier, key });
  }
  ctx.ecrire(`Fichiers : ${nombre(refs.length)} à copier ou vérifier…`);
  let suivant = 0;
  let traites = 0;
  const travailleur = async () => {
    for (let i = suivant++; i < refs.length; i = suivant++) {
      verifierArret(ctx);
      const ref = refs[i]!;
      const { etat, probleme } = await copierFichier(stockages, ref, presents.get(ref.dossier)!.has(ref.key));
      if (etat === 'copie') {
        bilan.copies += 1;
        ctx.faits.fichiers += 1;
      } else if (etat === 'deja-la') bilan.dejaLa += 1;
      if (probleme) bilan.problemes.push({ dossier: ref.dossier, key: ref.key, probleme });
      else bilan.verifies += 1;
      traites += 1;
      if (traites % 1000 === 0) ctx.ecrire(`  fichiers : ${nombre(traites)} sur ${nombre(refs.length)}…`);
    }
  };
  const travailleurs = Array.from({ length: ctx.args.parallele }, travailleur);
  // Every worker ends (one stopping lets the others finish their file) before the first error is thrown.
  const fins = await Promise.allSettled(travailleurs);
  const echec = fins.find((f): f is PromiseRejectedResult => f.status === 'rejected');
  if (echec) throw echec.reason;
  return bilan;
}

/* ---------------------------------------------------------------- the run */

function lireSecret(fichier: string): string | null {
  try {
    return fs.readFileSync(fichier, 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function decrireStockage(config: Config): string {
  return config.stockage.type === 's3' ? `le bucket S3 « ${config.stockage.bucket} »` : `le dossier ${config.dataDir}`;
}

export interface OptionsDeLancement {
  /** Progress lines (stdout by default). */
  ecrire?: (ligne: string) => void;
  /** Ctrl-C: the run stops between two batches or two files. */
  signal?: AbortSignal;
}

/** The whole migration; throws a CliError (refusal, failure) or an Interruption. */
export async function migrer(config: Config, args: Arguments, options: OptionsDeLancement = {}): Promise<Bilan> {
  const debut = performance.now();
  const ecrire = options.ecrire ?? ((ligne: string) => process.stdout.write(`${ligne}\n`));
  const source = ouvrirSource(args.from);
  let client: pg.Client | undefined;
  let fermerStockages: (() => void) | undefined;
  try {
    const installation = await verifierMigrations(source, args.from);
    const tables = tablesACopier(source);
    const empreinte = empreinteDe(source, tables);
    client = await ouvrirCible(args.to);
    await attendreSeule(client);
    const { reprise } = await etatDeLaCible(client, installation, empreinte);

    // The target storage answers before anything is written (a bucket that cannot be reached stops here).
    const app = await stockagesDeLApp(config);
    fermerStockages = app.fermer;
    try {
      await app.uploads.init();
      await app.photosSignalements.init();
    } catch (error) {
      throw new CliError(CODES.echec, `Le stockage cible ne répond pas : ${error instanceof Error ? error.message : String(error)}. Rien n’a été copié.`);
    }
    const stockages: Stockages = {
      source: { uploads: new LocalStorage(path.join(args.from, 'uploads')), 'photos-signalements': new LocalStorage(path.join(args.from, 'photos-signalements')) },
      cible: { uploads: app.uploads, 'photos-signalements': app.photosSignalements },
    };

    ecrire(`${reprise ? 'Reprise de la migration' : 'Migration'} de ${args.from} vers ${masquerMotDePasse(args.to)} et ${decrireStockage(config)}.`);
    const { db } = openDatabase({ databaseUrl: args.to, dataDir: config.dataDir });
    try {
      await migrate(db);
    } catch (error) {
      throw new CliError(CODES.echec, `Les migrations de la base cible ont échoué : ${error instanceof Error ? error.message : String(error)}. Rien n’a été copié.`);
    } finally {
      await db.destroy();
    }
    const nom = `${MARQUE}${installation}:${empreinte}`;
    await client.query("insert into taches (nom, bail_jusqua) values ($1, '') on conflict (nom) do nothing", [nom]);

    const schema = await schemaCible(client);
    const communes = tables.filter((t) => schema.colonnes.has(t));
    const absentes = tables.filter((t) => !schema.colonnes.has(t));
    if (absentes.length > 0) {
      throw new CliError(CODES.echec, `La base cible n’a pas ${accord(absentes.length, 'la table', 'les tables')} ${absentes.join(', ')} de la source : les deux bases ne sont pas à la même version. Signalez-le aux développeurs.`);
    }
    const ctx: Contexte = { source, client, args, ecrire, signal: options.signal, faits: { lignes: 0, fichiers: 0 } };
    const bilanTables: BilanTable[] = [];
    for (const table of ordreDesTables(communes, schema.references)) bilanTables.push(await copierTable(ctx, schema, table));
    await reconstruire(client, [...schema.colonnes.keys()]);
    const copiees = bilanTables.reduce((n, t) => n + t.copiees, 0);
    ecrire(`Base : ${pluriel(copiees, 'ligne copiée', 'lignes copiées')}${reprise ? ' par cette reprise' : ''}.`);

    const fichiers = await copierFichiers(ctx, stockages);

    // The counts again, once everything is written.
    const finales: BilanTable[] = [];
    for (const t of bilanTables) {
      const { rows } = await client.query<{ n: string }>(`select count(*) as n from ${q(t.table)}${t.table === 'taches' ? ` where ${SANS_MARQUE}` : ''}`);
      finales.push({ ...t, source: compterSqlite(source, t.table), cible: Number(rows[0]!.n) });
    }
    const secretSource = lireSecret(path.join(args.from, 'auth-secret'));
    const secretCible = config.authSecret ?? lireSecret(path.join(config.dataDir, 'auth-secret'));
    const bilan: Bilan = {
      ms: performance.now() - debut,
      from: args.from,
      to: masquerMotDePasse(args.to)!,
      stockage: decrireStockage(config),
      reprise,
      tables: finales,
      fichiers,
      sessions: {
        n: compterSqlite(source, 'session'),
        secret: secretSource === null ? 'inconnu' : secretSource === secretCible ? 'meme' : 'different',
      },
    };
    if (reussie(bilan)) await client.query('update taches set derniere_fin = $2 where nom = $1', [nom, new Date().toISOString()]);
    return bilan;
  } finally {
    source.close();
    await client?.end().catch(() => {});
    fermerStockages?.();
  }
}

/** Every count equal and every file verified. */
export const reussie = (bilan: Bilan): boolean => bilan.tables.every((t) => t.source === t.cible) && bilan.fichiers.problemes.length === 0;

const MOTS_PROBLEMES: Record<ProblemeFichier, string> = {
  'absent-source': 'absent du disque de la source',
  'contenu-different': 'copié, mais son contenu n’est plus celui que la base a enregistré à son dépôt (somme SHA-256 ou taille) : le disque de la source l’a abîmé',
  'copie-differente': 'relu différent de l’original après la copie : le stockage cible l’a abîmé (relancez la migration pour le recopier)',
  'cle-refusee': 'nom de fichier refusé (pas une clé de l’application), non copié',
};

/** The French summary printed at the end. */
export function resume(bilan: Bilan): string {
  const { fichiers } = bilan;
  const lignes = [
    `${reussie(bilan) ? 'Migration terminée' : 'Migration allée au bout, avec des problèmes'} en ${duree(bilan.ms)}${bilan.reprise ? ' (reprise d’une migration interrompue)' : ''} : ${bilan.from} → ${bilan.to}, fichiers dans ${bilan.stockage}.`,
    'Lignes par table (source → cible) :',
    ...bilan.tables.map((t) => `  ${t.table} : ${nombre(t.source)} → ${nombre(t.cible)}${t.source === t.cible ? '' : '   ← DIFFÉRENT'}`),
    `Fichiers référencés par la base : ${nombre(fichiers.references)} ; ${pluriel(fichiers.copies, 'copié', 'copiés')}, ${pluriel(fichiers.dejaLa, 'déjà présent', 'déjà présents')} ; ${pluriel(fichiers.verifies, 'vérifié', 'vérifiés')} (SHA-256 relu dans la cible) ; ${pluriel(fichiers.problemes.length, 'problème', 'problèmes')}.`,
  ];
  const differentes = bilan.tables.filter((t) => t.source !== t.cible);
  if (differentes.length > 0) {
    lignes.push(
      `Attention : ${accord(differentes.length, 'la table', 'les tables')} ${differentes.map((t) => t.table).join(', ')} ${accord(differentes.length, 'n’a', 'n’ont')} pas le même nombre de lignes dans la source et dans la cible (la cible a-t-elle déjà servi ?). Ne démarrez pas les nouvelles instances : voir docs/operations.md « Passer d’un serveur à plusieurs ».`,
    );
  }
  if (fichiers.problemes.length > 0) {
    lignes.push(`Attention : ${pluriel(fichiers.problemes.length, 'fichier', 'fichiers')} en défaut :`);
    for (const p of fichiers.problemes.slice(0, 100)) lignes.push(`  ${nomDuFichier(p)} : ${MOTS_PROBLEMES[p.probleme]}`);
    if (fichiers.problemes.length > 100) lignes.push(`  … et ${nombre(fichiers.problemes.length - 100)} autres.`);
  }
  if (fichiers.orphelins.length > 0) {
    lignes.push(
      `${pluriel(fichiers.orphelins.length, 'fichier', 'fichiers')} de la source qu’aucune ligne ne désigne (restes d’envois interrompus, anciennes photos) ${accord(fichiers.orphelins.length, 'n’a', 'n’ont')} pas été ${accord(fichiers.orphelins.length, 'copié', 'copiés')} : ${fichiers.orphelins
        .slice(0, 5)
        .map(nomDuFichier)
        .join(', ')}${fichiers.orphelins.length > 5 ? '…' : ''}.`,
    );
  }
  if (fichiers.enTrop > 0) {
    lignes.push(
      `${pluriel(fichiers.enTrop, 'fichier', 'fichiers')} du stockage cible qu’aucune ligne de la source ne désigne ${accord(fichiers.enTrop, 'y est resté', 'y sont restés')} : le nettoyage des nouvelles instances supprimera les documents et photos de signalements plus vieux d’une heure qu’aucune ligne ne désigne. Une migration se fait vers un bucket (ou un dossier) vide.`,
    );
  }
  const { sessions } = bilan;
  const copiees = pluriel(sessions.n, 'session copiée', 'sessions copiées');
  if (sessions.n === 0) lignes.push('Sessions : aucune à copier.');
  else if (sessions.secret === 'meme') lignes.push(`Sessions : ${copiees} ; elles restent ouvertes (les nouvelles instances ont le secret de l’ancien serveur).`);
  else if (sessions.secret === 'different') {
    lignes.push(
      `Sessions : ${copiees}, mais le secret de cette configuration n’est pas celui de l’ancien serveur : avec lui, chacun devra se reconnecter et les liens de désabonnement déjà envoyés ne marcheront plus. Pour les garder, donnez aux nouvelles instances AUTH_SECRET=$(cat ${path.join(bilan.from, 'auth-secret')}).`,
    );
  } else lignes.push(`Sessions : ${copiees} ; elles restent ouvertes si les nouvelles instances ont le même AUTH_SECRET que l’ancien serveur.`);
  lignes.push(
    reussie(bilan)
      ? 'Tout est copié et vérifié : démarrez les nouvelles instances avec DATABASE_URL et le stockage de cette configuration.'
      : 'Relancez la même commande après avoir corrigé ce qui est signalé : ce qui est déjà copié et vérifié ne l’est pas une seconde fois.',
  );
  return lignes.join('\n');
}

/** The command: the summary on stdout when everything is verified, on stderr otherwise (exit 4). */
export async function run(
  args: string[],
  env: Record<string, string | undefined>,
  options: OptionsDeLancement = {},
): Promise<{ code: number; out: string; alerte?: boolean }> {
  const lus = lireArguments(args);
  if (typeof lus === 'string') return { code: CODES.usage, out: lus };
  const lu = configDuProgramme(env);
  if (!('config' in lu)) return lu;
  try {
    const bilan = await migrer(lu.config, lus, options);
    return reussie(bilan) ? { code: CODES.ok, out: resume(bilan) } : { code: CODES.problemes, out: resume(bilan), alerte: true };
  } catch (error) {
    if (error instanceof Interruption) {
      return {
        code: CODES.echec,
        out: `Migration interrompue après ${pluriel(error.lignes, 'ligne copiée', 'lignes copiées')} et ${pluriel(error.fichiers, 'fichier copié', 'fichiers copiés')} par cette passe. Rien n’est écrit à moitié : relancez la même commande pour reprendre là où elle s’est arrêtée.`,
      };
    }
    if (error instanceof CliError) return { code: error.exitCode, out: error.message };
    return { code: CODES.echec, out: `La migration a échoué : ${error instanceof Error ? error.message : String(error)}. Relancez la même commande une fois la cause corrigée : elle reprendra là où elle s’est arrêtée.` };
  }
}

// Ctrl-C (or SIGTERM) stops the run between two batches or two files; a second one quits at once.
const arret = new AbortController();
if (estLeProgramme(import.meta.url)) {
  const demander = () => {
    if (arret.signal.aborted) process.exit(130);
    process.stderr.write('Arrêt demandé : la migration s’arrête après le lot ou les fichiers en cours (encore une fois pour quitter tout de suite).\n');
    arret.abort();
  };
  process.on('SIGINT', demander);
  process.on('SIGTERM', demander);
}
lancer(import.meta.url, (args, env) => run(args, env, { signal: arret.signal }));
