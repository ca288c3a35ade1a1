// What `npm run backup` writes and `npm run restore` reads (docs/operations.md « Sauvegarder »).
import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { accord, pluriel } from '../../domain/pluriel.js';
import { z } from '../../domain/zod.js';
import { DOSSIER_PAR_DEFAUT, DOSSIERS, estDossier, TABLES, type Dossier } from './tables.js';

/**
 * The archive, a .tar.gz: `base/app.db` (SQLite) or `base/base.dump` (pg_dump's custom format), the
 * documents and profile pictures as `fichiers/<storage key>`, the technical reports' photos as
 * `photos-signalements/<storage key>` (tables.ts DOSSIERS), `secret/auth-secret` when the server generated its
 * secret, and `manifest.json` last (it lists the checksums of everything before it).
 *
 * Format 2 added the reports' photos (a file's `dossier`); a format 1 archive (documents and pictures only)
 * still restores.
 */
export const FORMAT = 'quartier-vivant-sauvegarde';
export const FORMAT_VERSION = 2;
export const MANIFEST = 'manifest.json';
export const SECRET_ENTRY = 'secret/auth-secret';
export const SECRET_FILE = 'auth-secret';
export const databaseEntry = (kind: DbKind): string => (kind === 'sqlite' ? 'base/app.db' : 'base/base.dump');

export type DbKind = 'sqlite' | 'postgres';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/u);
const dossierSchema = z.string().refine(estDossier);

/** A manifest's file's folder: format 1 knew only `uploads`. */
export const dossierDe = (f: { dossier?: string | undefined }): Dossier => (f.dossier !== undefined && estDossier(f.dossier) ? f.dossier : DOSSIER_PAR_DEFAUT);

/** A file's entry in the archive: `fichiers/<key>` for `uploads`, `photos-signalements/<key>`… */
export const entreeDe = (f: { dossier?: string | undefined; key: string }): string => DOSSIERS[dossierDe(f)] + f.key;

/** A file as the summaries name it: its key under `uploads` (as before), its folder and key elsewhere. */
export const nomDe = (f: { dossier?: string | undefined; key: string }): string => (dossierDe(f) === DOSSIER_PAR_DEFAUT ? f.key : `${dossierDe(f)}/${f.key}`);

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.number().int(),
  createdAt: z.string(),
  database: z.object({
    kind: z.enum(['sqlite', 'postgres']),
    entry: z.string(),
    size: z.number().int().nonnegative(),
    sha256: sha256Hex,
    /** The last migration the backed-up database had run (kysely_migration), null when none. */
    migration: z.string().nullable(),
  }),
  /** Rows per table in the snapshot. */
  tables: z.record(z.string(), z.number().int().nonnegative()),
  /**
   * Every file copied: its folder of DATA_DIR (absent: `uploads`, as format 1 wrote them), storage key under it,
   * size, SHA-256 of what was copied.
   */
  files: z.array(z.object({ dossier: dossierSchema.optional(), key: z.string(), size: z.number().int().nonnegative(), sha256: sha256Hex })),
  /**
   * Files the snapshot references that could not be copied as recorded: gone from the disk by the time
   * they were read (withdrawn or purged in between), or whose content no longer matches its row (SHA-256 of a
   * document, size of a report's photo).
   */
  anomalies: z.array(z.object({ dossier: dossierSchema.optional(), key: z.string(), problem: z.enum(['absent', 'contenu-different']) })),
  secret: z.object({ size: z.number().int().nonnegative(), sha256: sha256Hex }).nullable(),
});

export type Manifest = z.infer<typeof manifestSchema>;

/**
 * A storage key as the app makes them (`<request id>/<category>/<name>`, `avatars/<uid>/<version>.webp`):
 * relative, slash-separated, plain names, never the temp folder. Anything else in an archive is refused.
 */
export function isStorageKey(key: string): boolean {
  const parts = key.split('/');
  return (
    parts.length >= 2 &&
    parts.length <= 8 &&
    parts[0] !== '.tmp' &&
    parts.every((p) => p.length > 0 && p.length <= 255 && p !== '.' && p !== '..' && !p.startsWith('.') && /^[\p{L}\p{N}_.\- ]+$/u.test(p))
  );
}

/** Passes bytes through while counting them and hashing them with SHA-256. */
export class Hasher extends Transform {
  private readonly hash = createHash('sha256');
  size = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    callback(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

const integer = new Intl.NumberFormat('fr-FR');
const decimal = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });

/** « 12 345 » */
export const nombre = (n: number): string => integer.format(n);

/** « 1,5 Mo », « 830 ko », « 12 octets » */
export function taille(octets: number): string {
  if (octets >= 1024 ** 3) return `${decimal.format(octets / 1024 ** 3)} Go`;
  if (octets >= 1024 ** 2) return `${decimal.format(octets / 1024 ** 2)} Mo`;
  if (octets >= 1024) return `${decimal.format(octets / 1024)} ko`;
  return `${octets} ${accord(octets, 'octet', 'octets')}`;
}

/** « 4,2 s » */
export const duree = (ms: number): string => `${decimal.format(ms / 1000)} s`;

/**
 * The counts people care about first (tables.ts `resume`), in French, from a manifest's per-table counts; a
 * table the backed-up database did not have yet (an older version's archive) is left out.
 */
export function resumeTables(tables: Record<string, number>): string {
  return Object.entries(TABLES)
    .flatMap(([table, { resume }]) => (resume && table in tables ? [pluriel(tables[table]!, resume[0], resume[1])] : []))
    .join(', ');
}

/**
 * pg_dump / pg_restore's connection: the URL without its password, which goes in PGPASSWORD instead
 * (a command line is readable by every user of the machine).
 */
export function pgConnection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { dbname: url.toString(), env: password ? { ...process.env, PGPASSWORD: password } : { ...process.env } };
}

/**
 * How many other sessions are connected to the client's database, after waiting up to 3 s for them to leave: a
 * server just stopped has its connections still closing (PostgreSQL ends their processes a moment later).
 * Background processes (autovacuum) are not sessions and are not counted.
 */
export async function autresSessions(client: { query<R>(text: string): Promise<{ rows: R[] }> }): Promise<number> {
  let autres = 0;
  for (let essai = 0; essai < 10; essai += 1) {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'",
    );
    autres = Number(rows[0]?.n ?? 0);
    if (autres === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return autres;
}

/** Runs a command-line tool; rejects with its error output when it fails. */
export async function runTool(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { spawn } = await import('node:child_process');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 20_000) stderr += d;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(new Error(error.code === 'ENOENT' ? `${command} est introuvable : installez les outils clients de PostgreSQL (paquet postgresql-client).` : error.message));
    });
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} a échoué (code ${code}) : ${stderr.trim()}`));
    });
  });
}

/** A refusal or failure the command explains in French and ends with this exit code. */
export class CliError extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}
