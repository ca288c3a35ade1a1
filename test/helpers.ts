import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { buildApp, type AppOptions } from '../src/server/app.js';
import type { Db } from '../src/server/db/index.js';
import { loadConfig, type Config } from '../src/server/config.js';
import { freshDatabaseUrl } from './db.js';

export interface TestContext {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * The tests' password hashing: scrypt as in production, at a cost of N = 16 instead of 16,384 (docs/decisions/0022).
 * Production's takes ~0.2 s of CPU per sign-up or sign-in on a CI machine; some 330 in each suite made a minute of it.
 * A test that passes `motsDePasse: undefined` gets production's (test/mots-de-passe.test.ts checks it).
 */
export const hachageDeTest = {
  hash: async (password: string) => {
    const salt = randomBytes(16).toString('hex');
    return `${salt}:${(await cleDeTest(password, salt)).toString('hex')}`;
  },
  verify: async ({ hash, password }: { hash: string; password: string }) => {
    const [salt, key] = hash.split(':');
    if (!salt || !key) return false;
    const attendu = Buffer.from(key, 'hex');
    const calcule = await cleDeTest(password, salt);
    return attendu.length === calcule.length && timingSafeEqual(attendu, calcule);
  },
};

function cleDeTest(password: string, salt: string): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, 64, { N: 16, r: 16, p: 1 }, (error, key) => (error ? reject(error) : resolve(key))));
}

export async function createTestApp(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestContext> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-test-'));
  // The migrated database to copy, under Vitest (the fuzz bench builds its app here too, without it).
  const database = await freshDatabaseUrl('qv_test', process.env.VITEST ? inject('modeleMigre') : undefined);
  const config = loadConfig(
    {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'http://quartier.test',
      // Tests talk only to loopback: the national address API is replaced by a closed local port.
      ADRESSE_API_URL: 'http://127.0.0.1:9/search/',
      ...env,
    },
    { databaseUrl: database.url },
  );
  const app = await buildApp(config, {
    logger: false,
    rateLimits: { create: false, upload: false, adresses: false, inscription: false, auth: false },
    motsDePasse: hachageDeTest,
    ...options,
  });
  sendOriginLikeABrowser(app, new URL(config.publicUrl).origin);
  return {
    app,
    config,
    dataDir,
    close: async () => {
      await app.close();
      await database.drop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Injected requests carry `Origin: PUBLIC_URL` as a browser's do on the site's own pages (the server
 * refuses state-changing requests with a session cookie from elsewhere). A test sets its own `origin`
 * header to send another, or `origin: undefined` to send none.
 */
function sendOriginLikeABrowser(app: FastifyInstance, origin: string): void {
  const inject = app.inject.bind(app) as (...args: unknown[]) => unknown;
  const withOrigin = (opts: unknown): unknown => {
    const options = (typeof opts === 'string' ? { url: opts } : opts) as { headers?: Record<string, unknown> } | undefined;
    if (!options || typeof options !== 'object') return opts;
    const headers = { ...(options.headers ?? {}) };
    if (!('origin' in headers)) headers.origin = origin;
    else if (headers.origin === undefined) delete headers.origin;
    return { ...options, headers };
  };
  (app as { inject: unknown }).inject = (opts?: unknown, callback?: unknown) =>
    opts === undefined ? inject() : callback === undefined ? inject(withOrigin(opts)) : inject(withOrigin(opts), callback);
}

/** A valid request body; override any field. */
export function demande(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    numeroUnique: `013${randomBytes(5).toString('hex')}`,
    prenom: 'Hélène',
    nom: 'Martin',
    email: 'helene.martin@example.org',
    motivations: 'Logement trop petit pour ma famille.',
    ...overrides,
  };
}

/** Every regular file under a folder, relative, skipping none. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** A multipart body built by the platform's own FormData encoder. */
export async function multipart(
  files: { field: string; name: string; content: Buffer | Uint8Array; type?: string }[],
): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const f of files) form.append(f.field, new Blob([new Uint8Array(f.content)], { type: f.type ?? 'application/octet-stream' }), f.name);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  };
}

/** Minimal real files of each accepted type (valid signatures). */
export const SAMPLES = {
  pdf: Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'),
  png: Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  ),
  jpeg: Buffer.from(
    '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
    'base64',
  ),
  exe: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from('PE\0\0'), randomBytes(200)]),
};

let accounts = 0;
/** Creates an account through the sign-up route, gives it a role, and returns its session cookie. */
export async function createAccount(ctx: TestContext, role: 'habitant' | 'manager' | 'admin' = 'habitant', overrides: Record<string, unknown> = {}) {
  accounts += 1;
  const email = `compte${accounts}.${randomBytes(3).toString('hex')}@example.org`;
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/app/api/user/inscription',
    payload: { nom: 'Agent', prenom: `Compte${accounts}`, birthday: '1980-01-01', residence: 'Mairie', rue: 'Avenue Marcel-Pagnol', email, password: 'une phrase de passe assez longue', ...overrides },
  });
  if (res.statusCode !== 201) throw new Error(`sign-up failed: ${res.body}`);
  await ctx.app.deps.db.updateTable('user').set({ userType: role }).where('email', '=', email).execute();
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  const cookie = list.map((c) => c.split(';')[0] ?? '').filter((c) => c.startsWith('qv.session_token=')).join('; ');
  return { cookie, email, uid: res.json().data.uid as string, prenom: res.json().data.prenom as string };
}

let inscriptions = 0;
/**
 * Signs a resident up through /user/inscription, as the sign-up page does (role habitant, address not yet
 * confirmed, a confirmation link e-mailed), and returns the address, the cookies the answer sets (cookieOf)
 * and the account's id. `overrides` replaces fields of the form (prenom, email…).
 */
export async function inscrire(ctx: TestContext, overrides: Record<string, unknown> = {}) {
  inscriptions += 1;
  const payload = {
    nom: 'Martin',
    prenom: 'Hélène',
    birthday: '1980-04-12',
    residence: 'Les Lauriers',
    rue: 'Avenue Marcel-Pagnol',
    email: `inscription${inscriptions}.${randomBytes(3).toString('hex')}@example.org`,
    password: 'un jardin sous la pluie',
    ...overrides,
  };
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload });
  if (res.statusCode !== 201) throw new Error(`sign-up answered ${res.statusCode}, not 201: ${res.body}`);
  return { email: String(payload.email), cookie: cookieOf(res), uid: res.json().data.uid as string };
}

/** The e-mails written to an address so far (DATA_DIR/mail, quoted-printable unfolded), oldest first. */
export async function mailsTo(ctx: TestContext, email: string): Promise<string[]> {
  await ctx.app.deps.mailer.idle();
  const dir = path.join(ctx.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/gu, '').replace(/=3D/gu, '='))
    .filter((m) => m.includes(`To: ${email}`));
}

/** The last link e-mailed to an address whose URL contains `pathPart`. */
export async function lienRecu(ctx: TestContext, email: string, pathPart = '/app/api/auth/'): Promise<string> {
  const link = (await mailsTo(ctx, email))
    .flatMap((m) => m.match(/https?:\/\/\S+/gu) ?? [])
    .filter((l) => l.includes(pathPart))
    .at(-1);
  if (!link) throw new Error(`no link mailed to ${email}`);
  return link;
}

/** The cookies an answer sets, as a `Cookie` header sends them back (the ones it clears left out). */
export function cookieOf(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'];
  const list: string[] = Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
  return list
    .map((c) => c.split(';')[0] ?? '')
    .filter((c) => !c.endsWith('='))
    .join('; ');
}

/**
 * The rate limits a test file about requests and technical reports turns off (sign-up, sign-in, uploads, addresses,
 * reports, photos, following, alerts), so that its many calls from one address are not refused; the files that test
 * a limit set it again.
 */
export const SANS_LIMITES_SIGNALEMENTS = {
  create: false,
  upload: false,
  adresses: false,
  inscription: false,
  auth: false,
  signalement: false,
  photosSignalement: false,
  suiviSignalement: false,
  alerteSignalement: false,
} as const;

/** SQLite: the statements better-sqlite3 runs with `all` (reads, and writes that return rows) while `fn` runs. */
export async function instructionsLues(sqlite: SqliteDatabase.Database, fn: () => Promise<void>): Promise<string[]> {
  const sources: string[] = [];
  const statement = Object.getPrototypeOf(sqlite.prepare('select 1')) as { all: (...args: unknown[]) => unknown };
  const all = statement.all;
  statement.all = function (this: { source: string }, ...args: unknown[]) {
    sources.push(this.source);
    return all.apply(this, args);
  };
  try {
    await fn();
  } finally {
    statement.all = all;
  }
  return sources;
}

/** SQLite: the query plan of one statement, its placeholders bound to null (`explain query plan`'s details). */
export function planSqlite(sqlite: SqliteDatabase.Database, source: string): string[] {
  const valeurs = Array.from({ length: source.split('?').length - 1 }, () => null);
  return (sqlite.prepare(`explain query plan ${source}`).all(...valeurs) as { detail: string }[]).map((r) => r.detail);
}

/**
 * PostgreSQL: waits until a statement of the app waits for a row lock (a test holds it in a transaction of its own),
 * 10 s at most: a test of a race then knows the other side reached the lock, however loaded the machine.
 */
export async function attendreUnVerrou(db: Db): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`.execute(db);
    if (Number(rows[0]?.n ?? 0) > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('aucune requête n’attend de verrou après 10 s');
}

/** Listens on a free loopback port (tests that need a real socket: streams, timeouts, fetch): its port and base URL. */
export async function surUnPort(app: FastifyInstance): Promise<{ port: number; base: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { port, base: `http://127.0.0.1:${port}` };
}
