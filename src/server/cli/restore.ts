// `npm run restore -- <fichier.tar.gz> [--force]`: brings a backup back into DATA_DIR / DATABASE_URL
// (docs/operations.md « Restaurer »). Nothing is touched until the whole archive has been checked.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import tar from 'tar-stream';
import { accord, pluriel } from '../../domain/pluriel.js';
import type { Config } from '../config.js';
import { syncDir } from '../storage/index.js';
import {
  autresSessions,
  CliError,
  databaseEntry,
  duree,
  entreeDe,
  FORMAT,
  FORMAT_VERSION,
  isStorageKey,
  MANIFEST,
  manifestSchema,
  nomDe,
  pgConnection,
  resumeTables,
  runTool,
  SECRET_ENTRY,
  SECRET_FILE,
  type DbKind,
  type Manifest,
} from './archive.js';
import { configDuProgramme, lancer } from './lancer.js';
import { DOSSIERS, TABLES } from './tables.js';

const USAGE = 'Usage : npm run restore -- <fichier.tar.gz> [--force]';

/** Exit codes (docs/operations.md): 0 done, 1 archive unusable or restore failed, 2 usage, 3 refused as things stand. */
const ARCHIVE_INVALIDE = 1;
const REFUS = 3;

const RIEN = "Rien n’a été restauré.";
const STAGING_PREFIX = '.restauration-';
const MANIFEST_MAX = 64 * 1024 * 1024;

const invalide = (message: string) => new CliError(ARCHIVE_INVALIDE, `${message} ${RIEN}`);

/** Entry names a backup may hold; anything else (a path outside, a link, a device) is refused. */
function stagedName(name: string): string | null {
  if (name === MANIFEST || name === SECRET_ENTRY || name === databaseEntry('sqlite') || name === databaseEntry('postgres')) return name;
  for (const prefix of Object.values(DOSSIERS)) if (name.startsWith(prefix) && isStorageKey(name.slice(prefix.length))) return name;
  return null;
}

interface Extracted {
  manifest: Buffer | null;
  entries: Map<string, { size: number; sha256: string }>;
}

/** Unpacks every entry into `staging`, hashing as it writes. */
async function extract(archive: string, staging: string): Promise<Extracted> {
  const extractor = tar.extract();
  const gunzip = zlib.createGunzip();
  const input = fs.createReadStream(archive);
  input.on('error', (e) => extractor.destroy(e));
  gunzip.on('error', (e) => extractor.destroy(e));
  input.pipe(gunzip).pipe(extractor);
  const result: Extracted = { manifest: null, entries: new Map() };
  try {
    for await (const entry of extractor) {
      const { name, type } = entry.header;
      const staged = type === 'file' ? stagedName(name) : null;
      if (!staged) throw invalide(`L’archive contient une entrée inattendue (« ${name} ») : ce n’est pas une sauvegarde de Quartier Vivant, ou elle a été modifiée.`);
      if (result.entries.has(staged) || (staged === MANIFEST && result.manifest)) throw invalide(`L’archive contient deux fois « ${name} ».`);
      if (staged === MANIFEST) {
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > MANIFEST_MAX) throw invalide('Le fichier manifest.json de l’archive est anormalement gros.');
          chunks.push(chunk);
        }
        result.manifest = Buffer.concat(chunks);
        continue;
      }
      const target = path.join(staging, staged);
      await fsp.mkdir(path.dirname(target), { recursive: true });
      const handle = await fsp.open(target, 'wx', 0o600);
      const hash = createHash('sha256');
      let size = 0;
      try {
        // Read by iteration: a damaged archive then ends the loop with its error rather than leaving a pipe waiting.
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          hash.update(chunk);
          size += chunk.length;
          await handle.write(chunk);
        }
      } finally {
        await handle.close();
      }
      result.entries.set(staged, { size, sha256: hash.digest('hex') });
    }
  } catch (error) {
    input.destroy();
    if (error instanceof CliError) throw error;
    const cause = error instanceof Error ? error.message : String(error);
    throw invalide(`L’archive ${archive} est illisible ou tronquée (${cause}) : elle a pu être abîmée pendant une copie.`);
  }
  return result;
}

/** Checks the manifest and every entry against it; answers the manifest. */
function verify(extracted: Extracted, kind: DbKind): Manifest {
  if (!extracted.manifest) throw invalide("L’archive ne contient pas de manifest.json : ce n’est pas une sauvegarde de Quartier Vivant, ou elle est incomplète.");
  let raw: unknown;
  try {
    raw = JSON.parse(extracted.manifest.toString('utf8'));
  } catch {
    throw invalide("Le manifest.json de l’archive est illisible : l’archive est corrompue.");
  }
  if (typeof raw === 'object' && raw !== null && 'formatVersion' in raw && typeof raw.formatVersion === 'number' && raw.formatVersion > FORMAT_VERSION) {
    throw invalide(`Cette sauvegarde a été faite par une version plus récente de Quartier Vivant (format ${raw.formatVersion}) : mettez l’application à jour avant de restaurer.`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success || parsed.data.format !== FORMAT) throw invalide(`Le manifest.json de l’archive n’est pas celui d’une sauvegarde de Quartier Vivant (${FORMAT}, version ${FORMAT_VERSION}).`);
  const manifest = parsed.data;
  if (manifest.database.kind !== kind) {
    throw new CliError(
      REFUS,
      manifest.database.kind === 'sqlite'
        ? `Cette sauvegarde contient une base SQLite, mais DATABASE_URL désigne une base PostgreSQL : retirez DATABASE_URL pour restaurer dans DATA_DIR. ${RIEN}`
        : `Cette sauvegarde contient une base PostgreSQL : indiquez la base où la restaurer avec DATABASE_URL=postgres://… ${RIEN}`,
    );
  }
  const expected = new Map<string, { size: number; sha256: string }>([[databaseEntry(kind), manifest.database]]);
  if (manifest.database.entry !== databaseEntry(kind)) throw invalide("Le manifest.json de l’archive ne désigne pas le bon fichier de base.");
  if (manifest.secret) expected.set(SECRET_ENTRY, manifest.secret);
  for (const f of manifest.files) {
    if (!isStorageKey(f.key)) throw invalide(`Le manifest.json de l’archive liste un fichier au nom refusé (« ${f.key} »).`);
    expected.set(entreeDe(f), f);
  }
  for (const [name, want] of expected) {
    const got = extracted.entries.get(name);
    if (!got) throw invalide(`L’archive est incomplète : « ${name} », listé dans manifest.json, n’y figure pas.`);
    if (got.size !== want.size || got.sha256 !== want.sha256) {
      throw invalide(`L’archive est corrompue : « ${name} » n’a pas la somme de contrôle (SHA-256) ou la taille attendue. Utilisez une autre sauvegarde.`);
    }
  }
  for (const name of extracted.entries.keys()) {
    if (!expected.has(name)) throw invalide(`L’archive contient « ${name} », que manifest.json ne liste pas : elle a été modifiée.`);
  }
  return manifest;
}

/** The host to knock on to see whether the server is up (a wildcard address means this machine). */
function probeHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
}

function listening(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The refusal while `n` other sessions use the target PostgreSQL database. */
export function autresConnexions(n: number): string {
  return `${pluriel(n, 'autre connexion', 'autres connexions')} ${accord(n, 'est ouverte', 'sont ouvertes')} sur la base cible : arrêtez le serveur Quartier Vivant (et toute autre session sur cette base) avant de restaurer. ${RIEN}`;
}

/** The tables a refusal names by their count, when they have rows (tables.ts `resume`). */
const NOMMEES = ['housing_requests', 'user', 'signalements'] as const;

/** « a », « a et b », « a, b et c » */
const enumeration = (parts: string[]) => (parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} et ${parts.at(-1)!}`);

/**
 * The refusal when the target already holds data and --force is missing: the requests, accounts and reports it
 * holds, else « des données » (other tables), else « des fichiers » (documents or photos alone).
 */
export function dejaRempli(where: string, lignes: Record<string, number>, fichiers = false): string {
  const nommees = NOMMEES.flatMap((t) => {
    const n = lignes[t] ?? 0;
    const [singulier, plusieurs] = TABLES[t]!.resume!;
    return n > 0 ? [pluriel(n, singulier, plusieurs)] : [];
  });
  const autres = Object.values(lignes).some((n) => n > 0);
  const what = nommees.length > 0 ? enumeration(nommees) : autres || !fichiers ? 'des données' : 'des fichiers (documents ou photos)';
  return `${where} contient déjà ${what}. La restauration les remplacerait par le contenu de la sauvegarde : relancez avec --force pour confirmer (npm run restore -- <fichier> --force). ${RIEN}`;
}

/** Tables whose rows forbid a restore without --force: tables.ts `donnees`, and any table it does not know. */
const compteAuRefus = (table: string) => TABLES[table]?.contenu !== 'technique';

/** Refuses while the server may be using the target, or when the target already holds data (unless forced). */
async function checkTarget(config: Config, force: boolean): Promise<void> {
  const lignes: Record<string, number> = {};
  let fichiers = false;
  if (config.databaseUrl) {
    const client = new pg.Client({ connectionString: config.databaseUrl });
    try {
      await client.connect();
    } catch (error) {
      throw new CliError(1, `Impossible de joindre la base PostgreSQL de DATABASE_URL (${error instanceof Error ? error.message : String(error)}). ${RIEN}`);
    }
    try {
      const n = await autresSessions(client);
      if (n > 0) {
        throw new CliError(REFUS, autresConnexions(n));
      }
      const { rows } = await client.query<{ name: string }>('select tablename as name from pg_tables where schemaname = current_schema()');
      for (const { name } of rows.filter((r) => compteAuRefus(r.name))) {
        lignes[name] = Number((await client.query<{ n: string }>(`select count(*) as n from "${name.replaceAll('"', '""')}"`)).rows[0]?.n ?? 0);
      }
    } finally {
      await client.end();
    }
  } else {
    const host = probeHost(config.host);
    if (await listening(host, config.port)) {
      throw new CliError(
        REFUS,
        `Un serveur répond sur ${host}:${config.port} : arrêtez Quartier Vivant avant de restaurer (il continuerait d’écrire dans l’ancienne base). S’il s’agit d’un autre programme, indiquez le PORT de Quartier Vivant. ${RIEN}`,
      );
    }
    const file = path.join(config.dataDir, 'app.db');
    if (fs.existsSync(file)) {
      try {
        const db = new SqliteDatabase(file, { fileMustExist: true });
        try {
          const names = (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
          for (const name of names.filter(compteAuRefus)) {
            lignes[name] = Number((db.prepare(`select count(*) as n from "${name.replaceAll('"', '""')}"`).get() as { n: number }).n);
          }
        } finally {
          db.close();
        }
      } catch (error) {
        // A damaged database is a reason to restore, but only on purpose.
        if (!force) {
          throw new CliError(
            REFUS,
            `La base actuelle ${file} est illisible (${error instanceof Error ? error.message : String(error)}). Pour la remplacer par la sauvegarde, relancez avec --force. ${RIEN}`,
          );
        }
      }
    }
  }
  for (const dossier of Object.keys(DOSSIERS)) {
    const dir = path.join(config.dataDir, dossier);
    if (fichiers || !fs.existsSync(dir)) continue;
    fichiers = (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[]).some(
      (e) => e.isFile() && !path.relative(dir, e.parentPath).split(path.sep).includes('.tmp'),
    );
  }
  if (!force && (Object.values(lignes).some((n) => n > 0) || fichiers)) {
    throw new CliError(REFUS, dejaRempli(config.databaseUrl ? 'La base de DATABASE_URL' : `Le dossier ${config.dataDir}`, lignes, fichiers));
  }
}

/** Flushes every staged file and folder to the disk, many at a time (one by one, 20,000 files take minutes). */
async function flushAll(staging: string): Promise<void> {
  const entries = (await fsp.readdir(staging, { recursive: true, withFileTypes: true })).map((e) => path.join(e.parentPath, e.name));
  const queue = [...entries, staging];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      const handle = await fsp.open(item, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

/** Puts the checked contents in place: the database first (pg_restore runs in one transaction), then the folders of files. */
async function apply(config: Config, manifest: Manifest, staging: string): Promise<void> {
  const { dataDir } = config;
  if (config.databaseUrl) {
    const { dbname, env } = pgConnection(config.databaseUrl);
    try {
      await runTool(
        'pg_restore',
        ['--clean', '--if-exists', '--no-owner', '--no-privileges', '--no-comments', '--single-transaction', '--exit-on-error', `--dbname=${dbname}`, path.join(staging, databaseEntry('postgres'))],
        env,
      );
    } catch (error) {
      throw new CliError(1, `La restauration de la base PostgreSQL a échoué et a été annulée : ${error instanceof Error ? error.message : String(error)}. ${RIEN}`);
    }
  } else {
    const file = path.join(dataDir, 'app.db');
    // The old database's journal must not be replayed onto the restored one.
    for (const suffix of ['-wal', '-shm', '-journal']) await fsp.rm(file + suffix, { force: true });
    await fsp.rename(path.join(staging, databaseEntry('sqlite')), file);
  }
  // Each folder replaced whole, even one the archive has no file for (its rows are not in the restored base).
  for (const [dossier, prefix] of Object.entries(DOSSIERS)) {
    const target = path.join(dataDir, dossier);
    const staged = path.join(staging, prefix);
    await fsp.mkdir(staged, { recursive: true });
    if (fs.existsSync(target)) await fsp.rename(target, path.join(staging, `anciens-${dossier}`));
    await fsp.rename(staged, target);
  }
  if (manifest.secret && !config.authSecret) await fsp.rename(path.join(staging, SECRET_ENTRY), path.join(dataDir, SECRET_FILE));
  await syncDir(dataDir);
}

export interface RestoreResult {
  manifest: Manifest;
  ms: number;
}

export async function restore(config: Config, archive: string, { force = false } = {}): Promise<RestoreResult> {
  // The files go back to DATA_DIR's folders, where a server in S3 would never read them.
  if (config.stockage.type === 's3') {
    throw new CliError(
      REFUS,
      `STORAGE=s3 : cette commande ne sait remettre les documents que sur le disque (DATA_DIR), pas dans le bucket « ${config.stockage.bucket} ». ${RIEN} Restaurez la base et le bucket chacun avec ses outils (docs/operations.md « Stockage S3 »).`,
    );
  }
  const started = performance.now();
  const kind: DbKind = config.databaseUrl ? 'postgres' : 'sqlite';
  const stat = await fsp.stat(archive).catch(() => null);
  if (!stat?.isFile()) throw new CliError(1, `Archive introuvable : ${path.resolve(archive)}. ${RIEN}`);
  await checkTarget(config, force);

  const createdDataDir = !fs.existsSync(config.dataDir);
  await fsp.mkdir(config.dataDir, { recursive: true });
  // What an interrupted restore left behind (the server is stopped: nothing else writes there).
  for (const name of await fsp.readdir(config.dataDir)) {
    if (name.startsWith(STAGING_PREFIX)) await fsp.rm(path.join(config.dataDir, name), { recursive: true, force: true });
  }
  // Beside its destination (same filesystem: every move is a rename), removed whatever happens.
  const staging = path.join(config.dataDir, `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`);
  await fsp.mkdir(staging);
  let applied = false;
  try {
    const manifest = verify(await extract(archive, staging), kind);
    await flushAll(staging);
    await apply(config, manifest, staging);
    applied = true;
    return { manifest, ms: performance.now() - started };
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
    if (createdDataDir && !applied) await fsp.rm(config.dataDir, { recursive: true, force: true });
  }
}

/** « 0 fichier », « 1 fichier, vérifié (SHA-256) », « 2 fichiers, tous vérifiés (SHA-256) » */
function fichiersVerifies(n: number): string {
  if (n === 0) return pluriel(n, 'fichier', 'fichiers');
  return `${pluriel(n, 'fichier', 'fichiers')}, ${accord(n, 'vérifié', 'tous vérifiés')} (SHA-256)`;
}

export function summary(archive: string, { manifest, ms }: RestoreResult): string {
  const date = new Date(manifest.createdAt).toLocaleString('fr-FR', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });
  const lines = [
    `Restauration terminée en ${duree(ms)} depuis ${path.resolve(archive)} (sauvegarde du ${date} UTC, base ${manifest.database.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}, migration ${manifest.database.migration ?? 'aucune'}).`,
    `Restauré : ${resumeTables(manifest.tables)} ; ${fichiersVerifies(manifest.files.length)}.`,
  ];
  if (manifest.anomalies.length > 0) {
    lines.push(
      `Attention : ${pluriel(manifest.anomalies.length, 'fichier', 'fichiers')} ${accord(manifest.anomalies.length, 'manquait déjà ou différait', 'manquaient déjà ou différaient')} au moment de la sauvegarde (voir « anomalies » dans manifest.json) : ${manifest.anomalies
        .slice(0, 5)
        .map(nomDe)
        .join(', ')}${manifest.anomalies.length > 5 ? '…' : ''}.`,
    );
  }
  lines.push('Démarrez le serveur : il appliquera au démarrage les migrations plus récentes que la sauvegarde.');
  return lines.join('\n');
}

export async function run(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  const force = args.includes('--force');
  const rest = args.filter((a) => a !== '--force');
  const [file] = rest;
  if (!file || rest.length !== 1 || file.startsWith('-')) return { code: 2, out: USAGE };
  const lu = configDuProgramme(env);
  if (!('config' in lu)) return lu;
  const { config } = lu;
  try {
    return { code: 0, out: summary(file, await restore(config, file, { force })) };
  } catch (error) {
    if (error instanceof CliError) return { code: error.exitCode, out: error.message };
    return { code: 1, out: `La restauration a échoué : ${error instanceof Error ? error.message : String(error)}` };
  }
}

lancer(import.meta.url, run);
