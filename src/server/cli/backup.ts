// `npm run backup -- <fichier.tar.gz>`: one consistent archive of the database and the documents, while
// the server runs (docs/operations.md « Sauvegarder »).
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import tar from 'tar-stream';
import { accord, pluriel } from '../../domain/pluriel.js';
import type { Config } from '../config.js';
import { syncDir } from '../storage/index.js';
import {
  CliError,
  databaseEntry,
  dossierDe,
  duree,
  entreeDe,
  FORMAT,
  FORMAT_VERSION,
  Hasher,
  isStorageKey,
  MANIFEST,
  nomDe,
  nombre,
  pgConnection,
  resumeTables,
  runTool,
  SECRET_ENTRY,
  SECRET_FILE,
  taille,
  type DbKind,
  type Manifest,
} from './archive.js';
import { configDuProgramme, lancer } from './lancer.js';
import { COLONNE_DE_FICHIER, TABLES, type FichierReference } from './tables.js';

const USAGE = 'Usage : npm run backup -- <fichier.tar.gz>';

type Row = Record<string, unknown>;

/** What the snapshot holds, read from the snapshot itself (never from the live database). */
interface Contents {
  migration: string | null;
  tables: Record<string, number>;
  /** The files the snapshot references (tables.ts `fichiers`), with what their rows recorded of them. */
  files: FichierReference[];
  /** Tables tables.ts does not know, and tables whose rows seem to name files it does not copy. */
  inconnues: string[];
  fichiersNonCouverts: string[];
}

/** The same few queries on either database; table and column names are the database's (snake_case). */
async function readContents(kind: DbKind, query: (sql: string) => Promise<Row[]>): Promise<Contents> {
  const names = (
    await query(
      kind === 'sqlite'
        ? "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name"
        : 'select tablename as name from pg_tables where schemaname = current_schema() order by tablename',
    )
  ).map((r) => String(r.name));
  const tables: Record<string, number> = {};
  for (const name of names) {
    const [row] = await query(`select count(*) as n from "${name.replaceAll('"', '""')}"`);
    tables[name] = Number(row?.n ?? 0);
  }
  const has = (t: string) => names.includes(t);
  const [last] = has('kysely_migration') ? await query('select name from kysely_migration order by name desc limit 1') : [];
  const files: FichierReference[] = [];
  for (const [table, { fichiers }] of Object.entries(TABLES)) {
    if (!fichiers || !has(table)) continue;
    for (const r of await query(fichiers.requete)) {
      const fichier = fichiers.fichier(r);
      if (fichier) files.push(fichier);
    }
  }
  // What this version does not know of the database (a table added without its line in tables.ts): copied
  // with the database all the same, but said, so that files are never silently left out.
  const columns = await query(
    kind === 'sqlite'
      ? "select m.name as t, c.name as c from sqlite_master m join pragma_table_info(m.name) c where m.type = 'table' and m.name not like 'sqlite_%'"
      : 'select table_name as t, column_name as c from information_schema.columns where table_schema = current_schema()',
  );
  const fichiersNonCouverts = [
    ...new Set(columns.filter((r) => COLONNE_DE_FICHIER.test(String(r.c)) && !TABLES[String(r.t)]?.fichiers).map((r) => String(r.t))),
  ].sort();
  return { migration: last ? String(last.name) : null, tables, files, inconnues: names.filter((n) => !Object.hasOwn(TABLES, n)), fichiersNonCouverts };
}

/** SQLite's online backup API, the whole database in one step (one read transaction), then read back. */
async function snapshotSqlite(dataDir: string, file: string): Promise<Contents> {
  const source = path.join(dataDir, 'app.db');
  if (!fs.existsSync(source)) {
    throw new CliError(1, `Aucune base à sauvegarder : ${source} n’existe pas. Vérifiez DATA_DIR (ou DATABASE_URL pour PostgreSQL).`);
  }
  const live = new SqliteDatabase(source, { fileMustExist: true });
  try {
    live.pragma('busy_timeout = 5000');
    // Copying a part at a time would restart whenever the server writes in between: all pages at once.
    await live.backup(file, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
  const snapshot = new SqliteDatabase(file, { fileMustExist: true });
  try {
    // One self-contained file, without a -wal beside it; the server turns WAL back on when it opens it.
    snapshot.pragma('journal_mode = DELETE');
    return await readContents('sqlite', async (q) => snapshot.prepare(q).all() as Row[]);
  } finally {
    snapshot.close();
  }
}

/**
 * pg_dump and the manifest's queries read the same exported snapshot: a repeatable-read transaction
 * stays open until pg_dump is done, so the documents listed are exactly those of the dump.
 */
async function snapshotPostgres(databaseUrl: string, file: string): Promise<Contents> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
    const { dbname, env } = pgConnection(databaseUrl);
    const contents = await readContents('postgres', async (q) => (await client.query(q)).rows as Row[]);
    // Started after those queries, pg_dump still sees the database as they did.
    await runTool('pg_dump', ['--format=custom', `--snapshot=${rows[0]!.id}`, `--file=${file}`, `--dbname=${dbname}`], env);
    await client.query('commit');
    return contents;
  } finally {
    await client.end();
  }
}

/** Adds one entry from a stream of known size; answers the SHA-256 of what went in. */
function addEntry(pack: tar.Pack, name: string, source: Readable, size: number, mtime: Date): Promise<string> {
  const hasher = new Hasher();
  return new Promise<string>((resolve, reject) => {
    const entry = pack.entry({ name, size, mode: 0o600, mtime }, (error) => (error ? reject(error) : resolve(hasher.digest())));
    source.on('error', reject);
    source.pipe(hasher).pipe(entry);
  });
}

async function addFileEntry(pack: tar.Pack, name: string, file: string): Promise<{ size: number; sha256: string } | null> {
  let handle;
  try {
    handle = await fsp.open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  // Once open, the file is read whole even if it is removed meanwhile.
  const stat = await handle.stat();
  const sha256 = await addEntry(pack, name, handle.createReadStream({ highWaterMark: 1 << 20 }), stat.size, stat.mtime);
  return { size: stat.size, sha256 };
}

export interface BackupResult {
  manifest: Manifest;
  archiveSize: number;
  ms: number;
  /** Tables tables.ts does not list, and tables naming files it does not copy (see Contents). */
  inconnues?: string[];
  fichiersNonCouverts?: string[];
}

/** Writes the archive to `target` (a temp file beside it, flushed, then renamed into place). */
export async function backup(config: Config, target: string): Promise<BackupResult> {
  // The files are read from DATA_DIR's folders: with S3 the archive would hold the database without them.
  if (config.stockage.type === 's3') {
    throw new CliError(
      1,
      `STORAGE=s3 : cette commande ne sait copier que les documents rangés sur le disque (DATA_DIR), pas ceux du bucket « ${config.stockage.bucket} ». Aucune archive n’a été écrite : une sauvegarde sans ses documents serait trompeuse. Sauvegardez la base et le bucket chacun avec ses outils (docs/operations.md « Stockage S3 »).`,
    );
  }
  const started = performance.now();
  const kind: DbKind = config.databaseUrl ? 'postgres' : 'sqlite';
  const destination = path.resolve(target);
  const dir = path.dirname(destination);
  if (!fs.existsSync(dir)) throw new CliError(1, `Le dossier ${dir} n’existe pas : créez-le ou choisissez un autre chemin pour la sauvegarde.`);
  const work = await fsp.mkdtemp(path.join(dir, '.qv-sauvegarde-'));
  const partial = `${destination}.partiel`;
  let pack: tar.Pack | undefined;
  try {
    const snapshotFile = path.join(work, kind === 'sqlite' ? 'app.db' : 'base.dump');
    // The archive is of this moment: what was written after is not in it.
    const createdAt = new Date().toISOString();
    const contents = config.databaseUrl ? await snapshotPostgres(config.databaseUrl, snapshotFile) : await snapshotSqlite(config.dataDir, snapshotFile);

    pack = tar.pack();
    // Documents (PDF, JPEG, PNG) are compressed already: Huffman coding alone still shrinks the database's
    // text, at the speed of the disk, where searching for repeats would take four times longer for nothing.
    const gzip = zlib.createGzip({ strategy: zlib.constants.Z_HUFFMAN_ONLY, chunkSize: 1 << 20 });
    const written = pipeline(pack, gzip, fs.createWriteStream(partial, { mode: 0o600, flush: true }));
    // A failed write (disk full…) ends every step at once rather than leaving one waiting for room.
    const failed = written.then(() => new Promise<never>(() => {}));
    const step = <T>(p: Promise<T>): Promise<T> => Promise.race([p, failed]);

    const dbStat = await fsp.stat(snapshotFile);
    const dbSha = await step(addEntry(pack, databaseEntry(kind), fs.createReadStream(snapshotFile, { highWaterMark: 1 << 20 }), dbStat.size, new Date()));

    // The secret the server generated (sessions, e-mail links): without it, everyone is signed out.
    let secret: Manifest['secret'] = null;
    if (!config.authSecret) {
      const copied = await step(addFileEntry(pack, SECRET_ENTRY, path.join(config.dataDir, SECRET_FILE)));
      if (copied) secret = copied;
    }

    const files: Manifest['files'] = [];
    const anomalies: Manifest['anomalies'] = [];
    for (const { dossier, key, sha256, size } of contents.files) {
      const copied = isStorageKey(key) ? await step(addFileEntry(pack, entreeDe({ dossier, key }), path.join(config.dataDir, dossier, key))) : null;
      if (!copied) {
        anomalies.push({ dossier, key, problem: 'absent' });
        continue;
      }
      files.push({ dossier, key, ...copied });
      if ((sha256 !== null && sha256 !== copied.sha256) || (size !== null && size !== copied.size)) anomalies.push({ dossier, key, problem: 'contenu-different' });
    }

    const manifest: Manifest = {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      createdAt,
      database: { kind, entry: databaseEntry(kind), size: dbStat.size, sha256: dbSha, migration: contents.migration },
      tables: contents.tables,
      files,
      anomalies,
      secret,
    };
    const json = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    await step(addEntry(pack, MANIFEST, Readable.from([json]), json.length, new Date()));
    pack.finalize();
    await written;

    await fsp.rename(partial, destination);
    await syncDir(dir);
    return {
      manifest,
      archiveSize: (await fsp.stat(destination)).size,
      ms: performance.now() - started,
      inconnues: contents.inconnues,
      fichiersNonCouverts: contents.fichiersNonCouverts,
    };
  } catch (error) {
    pack?.destroy();
    throw error;
  } finally {
    await fsp.rm(partial, { force: true });
    await fsp.rm(work, { recursive: true, force: true });
  }
}

/** « a, b, c, d, e… »: the first five names of a list. */
const premiers = (noms: string[]) => `${noms.slice(0, 5).join(', ')}${noms.length > 5 ? '…' : ''}`;

/** The French summary printed at the end. */
export function summary(file: string, { manifest, archiveSize, ms, inconnues = [], fichiersNonCouverts = [] }: BackupResult): string {
  const octets = manifest.files.reduce((sum, f) => sum + f.size, 0);
  const photos = manifest.files.filter((f) => dossierDe(f) === 'photos-signalements').length;
  const lines = [
    `Sauvegarde écrite : ${path.resolve(file)} (${taille(archiveSize)}, en ${duree(ms)}).`,
    `Base ${manifest.database.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (migration ${manifest.database.migration ?? 'aucune'}) : ${resumeTables(manifest.tables)}.`,
    `Fichiers : ${nombre(manifest.files.length)} (${taille(octets)})${photos > 0 ? `, dont ${pluriel(photos, 'photo de signalement', 'photos de signalements')}` : ''}.`,
  ];
  const absent = manifest.anomalies.filter((a) => a.problem === 'absent');
  const different = manifest.anomalies.filter((a) => a.problem === 'contenu-different');
  if (absent.length > 0) {
    lines.push(
      `Attention : ${pluriel(absent.length, 'fichier référencé', 'fichiers référencés')} par la base ${accord(absent.length, 'avait', 'avaient')} disparu au moment de la copie (${accord(absent.length, 'retiré ou purgé', 'retirés ou purgés')} entre-temps ?) : ${premiers(absent.map(nomDe))}. La liste complète est dans manifest.json (« anomalies »).`,
    );
  }
  if (different.length > 0) {
    lines.push(
      `Attention : ${pluriel(different.length, 'fichier', 'fichiers')} ${accord(different.length, 'n’a', 'n’ont')} plus le contenu enregistré dans la base (somme SHA-256 ou taille différente) : ${premiers(different.map(nomDe))}. Vérifiez le disque ; la liste complète est dans manifest.json.`,
    );
  }
  if (fichiersNonCouverts.length > 0) {
    lines.push(
      `Attention : ${accord(fichiersNonCouverts.length, 'la table', 'les tables')} ${premiers(fichiersNonCouverts)} ${accord(fichiersNonCouverts.length, 'désigne', 'désignent')} des fichiers (colonne storage_key) que cette version de la sauvegarde ne copie pas : l’archive a la base, pas ces fichiers. Signalez-le aux développeurs (src/server/cli/tables.ts).`,
    );
  }
  if (inconnues.length > 0) {
    lines.push(
      `Attention : ${pluriel(inconnues.length, 'table inconnue', 'tables inconnues')} de cette version de la sauvegarde (${premiers(inconnues)}) : ${accord(inconnues.length, 'elle est copiée', 'elles sont copiées')} avec la base, mais un éventuel fichier qu’${accord(inconnues.length, 'elle désigne', 'elles désignent')} ne l’est pas. L’application est-elle à jour (npm run build) ? Sinon, signalez-le aux développeurs (src/server/cli/tables.ts).`,
    );
  }
  return lines.join('\n');
}

/**
 * The command: its summary on stdout, or on stderr (`alerte`) when it has something to say about the archive,
 * so that cron mails it (docs/operations.md « Planifier »).
 */
export async function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string; alerte?: boolean }> {
  const [file, ...rest] = args;
  if (!file || rest.length > 0 || file.startsWith('-')) return { code: 2, out: USAGE };
  const lu = configDuProgramme(env);
  if (!('config' in lu)) return lu;
  const { config } = lu;
  try {
    const result = await backup(config, file);
    const alerte = result.manifest.anomalies.length > 0 || (result.inconnues?.length ?? 0) > 0 || (result.fichiersNonCouverts?.length ?? 0) > 0;
    return { code: 0, out: summary(file, result), ...(alerte ? { alerte } : {}) };
  } catch (error) {
    if (error instanceof CliError) return { code: error.exitCode, out: error.message };
    return { code: 1, out: `La sauvegarde a échoué, aucune archive n’a été écrite : ${error instanceof Error ? error.message : String(error)}` };
  }
}

lancer(import.meta.url, run);
