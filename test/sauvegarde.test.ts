import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestSchema, type Manifest } from '../src/server/cli/archive.js';
import { run as backupRun } from '../src/server/cli/backup.js';
import { run as restoreRun } from '../src/server/cli/restore.js';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/config.js';
import { openDatabase, type Db } from '../src/server/db/index.js';
import { pictureVersion } from '../src/server/features/compte/vues.js';
import { freshDatabaseUrl } from './db.js';
import { createAccount, createTestApp, demande, filesUnder, multipart, SAMPLES, type TestContext } from './helpers.js';

let ctx: TestContext;
let work: string;
const drops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  ctx = await createTestApp();
  work = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-sauvegarde-'));
});
afterAll(async () => {
  await ctx.close();
  for (const drop of drops) await drop();
  await fsp.rm(work, { recursive: true, force: true });
});

/** A port nothing listens on (restore refuses while a server answers on the configured one). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The environment the commands read, as the server would (DATA_DIR, DATABASE_URL). */
const sourceEnv = () => ({ DATA_DIR: ctx.dataDir, DATABASE_URL: ctx.config.databaseUrl, LOG_LEVEL: 'silent' });

/** A fresh place to restore into: a temp DATA_DIR, and a fresh PostgreSQL database when DATABASE_URL is set. */
async function freshTarget(): Promise<{ env: Record<string, string | undefined>; dataDir: string; databaseUrl: string | undefined }> {
  const dataDir = path.join(work, `cible-${randomBytes(4).toString('hex')}`);
  const database = await freshDatabaseUrl('qv_restore');
  drops.push(database.drop);
  return { env: { DATA_DIR: dataDir, DATABASE_URL: database.url, PORT: String(await closedPort()), LOG_LEVEL: 'silent' }, dataDir, databaseUrl: database.url };
}

async function createWithDocuments(count: number): Promise<{ numero: string; key: string }> {
  const numero = `013${randomBytes(5).toString('hex')}`;
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: numero }) });
  expect(res.statusCode).toBe(201);
  const key = res.json().data.accessKey as string;
  // Random bytes after a real PNG signature: distinct files gzip cannot shrink.
  const files = Array.from({ length: count }, (_, i) => ({ field: 'identity', name: `piece-${i}.png`, content: Buffer.concat([SAMPLES.png, randomBytes(20_000 + i * 7_000)]) }));
  const body = await multipart(files);
  const up = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': key }, payload: body.payload });
  expect(up.statusCode).toBe(201);
  return { numero, key };
}

async function countsOf(db: Db, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of tables) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(db);
    out[table] = Number(rows[0]!.n);
  }
  return out;
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Every file under DATA_DIR/uploads, as storage keys (the temp folder left out). */
const storedKeys = (dataDir: string) =>
  filesUnder(path.join(dataDir, 'uploads'))
    .map((f) => f.split(path.sep).join('/'))
    .filter((k) => !k.startsWith('.tmp/'))
    .sort();

async function readManifest(archive: string): Promise<Manifest> {
  // manifest.json is the archive's last entry: read it with the system's tar, as an operator would.
  const { execFileSync } = await import('node:child_process');
  return manifestSchema.parse(JSON.parse(execFileSync('tar', ['-xzOf', archive, 'manifest.json'], { encoding: 'utf8' })));
}

describe('npm run backup, npm run restore', () => {
  let archive: string;
  let manifest: Manifest;

  it('writes one consistent archive while requests and documents keep arriving, and restores it whole', async () => {
    const first = await createWithDocuments(2);
    for (let i = 0; i < 24; i += 1) await createWithDocuments(2);
    const { cookie } = await createAccount(ctx);
    const { default: sharp } = await import('sharp');
    const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
    const pic = await multipart([{ field: 'pic', name: 'moi.jpg', content: photo }]);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...pic.headers, cookie }, payload: pic.payload })).statusCode).toBe(201);

    // Writers keep creating requests with documents before, during and after the backup.
    let running = true;
    let during = 0;
    let backingUp = false;
    const writer = async () => {
      while (running) {
        await createWithDocuments(1 + (during % 3));
        if (backingUp) during += 1;
      }
    };
    const writers = [writer(), writer(), writer()];
    await createWithDocuments(1);
    archive = path.join(work, 'sauvegarde.tar.gz');
    backingUp = true;
    const result = await backupRun([archive], sourceEnv());
    backingUp = false;
    running = false;
    await Promise.all(writers);
    expect(result.out).toMatch(/^Sauvegarde écrite : .*sauvegarde\.tar\.gz \(.+, en .+ s\)\.\nBase .* : \d+ demandes, \d+ documents/u);
    expect(result.code).toBe(0);
    expect(during).toBeGreaterThan(0);
    expect(fs.readdirSync(work).filter((f) => f.includes('partiel') || f.startsWith('.qv-'))).toEqual([]);
    expect(fs.statSync(archive).mode & 0o777).toBe(0o600);

    manifest = await readManifest(archive);
    // The live database went on: the archive holds the snapshot's rows, not today's.
    const live = await countsOf(ctx.app.deps.db, ['housing_requests', 'documents']);
    expect(live.housing_requests).toBeGreaterThan(manifest.tables.housing_requests!);
    expect(manifest.tables.documents).toBeGreaterThan(50);
    expect(manifest.anomalies).toEqual([]);
    expect(manifest.database.migration).toMatch(/^\d{4}_/u);

    const target = await freshTarget();
    const restored = await restoreRun([archive], target.env);
    expect(restored.out).toMatch(/^Restauration terminée en .* s depuis/u);
    expect(restored.code).toBe(0);
    expect(fs.readdirSync(target.dataDir).filter((f) => f.startsWith('.restauration-'))).toEqual([]);

    const { db } = openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
    try {
      // Counts per table: the manifest's, exactly.
      expect(await countsOf(db, Object.keys(manifest.tables))).toEqual(manifest.tables);
      // Every document row has its file with the recorded checksum, every picture its file, and no file is without a row.
      const documents = await db.selectFrom('documents').select(['storageKey', 'sha256']).execute();
      const users = await db.selectFrom('user').select(['id', 'image']).execute();
      const avatars = users.flatMap((u) => {
        const v = pictureVersion(u);
        return v ? [`avatars/${u.id}/${v}.webp`] : [];
      });
      expect(avatars).toHaveLength(1);
      expect(storedKeys(target.dataDir)).toEqual([...documents.map((d) => d.storageKey), ...avatars].sort());
      for (const d of documents) expect(sha256(path.join(target.dataDir, 'uploads', d.storageKey))).toBe(d.sha256);
      for (const key of avatars) expect(sha256(path.join(target.dataDir, 'uploads', key))).toBe(sha256(path.join(ctx.dataDir, 'uploads', key)));
    } finally {
      await db.destroy();
    }
    if (!target.databaseUrl) {
      expect(fs.existsSync(path.join(target.dataDir, 'app.db-wal'))).toBe(false);
      // The secret the server generated comes back too: sessions and e-mail links stay valid.
      expect(fs.readFileSync(path.join(target.dataDir, 'auth-secret'), 'utf8')).toBe(fs.readFileSync(path.join(ctx.dataDir, 'auth-secret'), 'utf8'));
    }

    // The app starts on the restored data (running its migrations) and serves a request and its document with its private key.
    const app = await buildApp(loadConfig(target.env as Record<string, string>, { databaseUrl: target.databaseUrl }), { logger: false });
    try {
      const full = await app.inject({ method: 'GET', url: `/app/api/logement/${first.numero}`, headers: { 'x-access-key': first.key } });
      expect(full.statusCode).toBe(200);
      const doc = full.json().data.documents.identity[0] as { id: string };
      const file = await app.inject({ method: 'GET', url: `/app/api/logement/${first.numero}/documents/${doc.id}`, headers: { 'x-access-key': first.key } });
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.subarray(0, 8)).toEqual(SAMPLES.png.subarray(0, 8));
    } finally {
      await app.close();
    }

    // A second restore onto data refuses, in French, unless forced.
    const again = await restoreRun([archive], target.env);
    expect(again.code).toBe(3);
    expect(again.out).toMatch(/contient déjà \d+ demande\(s\).*--force/u);
    expect((await restoreRun([archive, '--force'], target.env)).code).toBe(0);
  });

  /** Files under a DATA_DIR with their checksums, and the target database's rows per table: "untouched" is these unchanged. */
  async function fingerprint(target: Awaited<ReturnType<typeof freshTarget>>): Promise<unknown> {
    // Counted first: opening the SQLite file turns WAL on, which rewrites its header once.
    const { db } = openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
    let counts;
    try {
      counts = await countsOf(db, Object.keys(manifest.tables));
    } finally {
      await db.destroy();
    }
    const files = filesUnder(target.dataDir)
      .sort()
      .map((f) => [f, sha256(path.join(target.dataDir, f))]);
    return { files, counts };
  }

  /** A restored target holding data, to prove a refused restore leaves it as it was. */
  async function populatedTarget() {
    const target = await freshTarget();
    expect((await restoreRun([archive], target.env)).code).toBe(0);
    return target;
  }

  it('refuses an archive with one byte of a document changed, and leaves the target untouched', async () => {
    const target = await populatedTarget();
    const before = await fingerprint(target);
    // Flip one byte inside a document's content, then gzip again: only the checksums can tell.
    const tarball = zlib.gunzipSync(fs.readFileSync(archive));
    const doc = manifest.files.find((f) => !f.key.startsWith('avatars/'))!;
    // The document's bytes are random past the PNG signature: found once in the tar, at its entry's data.
    const at = tarball.indexOf(fs.readFileSync(path.join(ctx.dataDir, 'uploads', doc.key)).subarray(0, 4096));
    expect(at).toBeGreaterThanOrEqual(0);
    tarball.writeUInt8(tarball.readUInt8(at + 1000) ^ 0xff, at + 1000);
    const bad = path.join(work, 'alteree.tar.gz');
    fs.writeFileSync(bad, zlib.gzipSync(tarball));

    const res = await restoreRun([bad, '--force'], target.env);
    expect(res.code).toBe(1);
    expect(res.out).toBe(
      `L'archive est corrompue : « fichiers/${doc.key} » n'a pas la somme de contrôle (SHA-256) ou la taille attendue. Utilisez une autre sauvegarde. Rien n'a été restauré.`,
    );
    expect(await fingerprint(target)).toEqual(before);
  });

  it('refuses a damaged or truncated .tar.gz, and a file that is not a backup, leaving the target untouched', async () => {
    const target = await populatedTarget();
    const before = await fingerprint(target);
    const bytes = fs.readFileSync(archive);
    const flipped = Buffer.from(bytes);
    const middle = Math.floor(bytes.length / 2);
    flipped.writeUInt8(flipped.readUInt8(middle) ^ 0x01, middle);
    const cases: [string, Buffer, RegExp][] = [
      ['abimee.tar.gz', flipped, /^L'archive .* est illisible ou tronquée \(.+\) : elle a pu être abîmée pendant une copie\. Rien n'a été restauré\.$/u],
      ['tronquee.tar.gz', bytes.subarray(0, Math.floor(bytes.length * 0.7)), /est illisible ou tronquée .* Rien n'a été restauré\.$/u],
      ['autre.tar.gz', zlib.gzipSync(Buffer.alloc(1024)), /ne contient pas de manifest\.json.*Rien n'a été restauré\.$/u],
    ];
    for (const [name, content, message] of cases) {
      const file = path.join(work, name);
      fs.writeFileSync(file, content);
      const res = await restoreRun([file, '--force'], target.env);
      expect(res.out).toMatch(message);
      expect(res.code).toBe(1);
    }
    const missing = await restoreRun([path.join(work, 'absente.tar.gz')], target.env);
    expect(missing).toEqual({ code: 1, out: `Archive introuvable : ${path.join(work, 'absente.tar.gz')}. Rien n'a été restauré.` });
    expect(await fingerprint(target)).toEqual(before);
  });

  it('reports in the manifest, and in French, a referenced file gone or changed on the disk, and restores the rest', async () => {
    const [gone, changed] = await ctx.app.deps.db.selectFrom('documents').select('storageKey').orderBy('storageKey').limit(2).execute();
    // As if a withdrawal or a purge had removed one file after the snapshot, and the disk had altered another.
    fs.rmSync(path.join(ctx.dataDir, 'uploads', gone!.storageKey));
    fs.appendFileSync(path.join(ctx.dataDir, 'uploads', changed!.storageKey), 'x');
    const file = path.join(work, 'anomalies.tar.gz');
    const res = await backupRun([file], sourceEnv());
    expect(res.code).toBe(0);
    expect(res.out).toContain(`Attention : 1 fichier(s) référencé(s) par la base avaient disparu au moment de la copie (retirés ou purgés entre-temps ?) : ${gone!.storageKey}.`);
    expect(res.out).toContain(`Attention : 1 document(s) n'ont plus le contenu enregistré dans la base (somme SHA-256 différente) : ${changed!.storageKey}.`);
    const written = await readManifest(file);
    expect(written.anomalies).toEqual([
      { key: gone!.storageKey, problem: 'absent' },
      { key: changed!.storageKey, problem: 'contenu-different' },
    ]);
    expect(written.files.map((f) => f.key)).not.toContain(gone!.storageKey);

    const target = await freshTarget();
    const restored = await restoreRun([file], target.env);
    expect(restored.code).toBe(0);
    expect(restored.out).toContain(`Attention : 2 fichier(s) manquaient déjà ou différaient au moment de la sauvegarde (voir « anomalies » dans manifest.json) : ${gone!.storageKey}, ${changed!.storageKey}.`);
    expect(storedKeys(target.dataDir)).toEqual(written.files.map((f) => f.key).sort());
  });

  it('replaces a damaged SQLite database only when told to (--force)', async () => {
    if (ctx.config.databaseUrl) return;
    const target = await freshTarget();
    fs.mkdirSync(target.dataDir, { recursive: true });
    fs.writeFileSync(path.join(target.dataDir, 'app.db'), randomBytes(8192));
    fs.mkdirSync(path.join(target.dataDir, '.restauration-0123456789ab'));
    const refused = await restoreRun([archive], target.env);
    expect(refused.code).toBe(3);
    expect(refused.out).toMatch(/^La base actuelle .*app\.db est illisible \(.+\)\. Pour la remplacer par la sauvegarde, relancez avec --force\. Rien n'a été restauré\.$/u);
    expect((await restoreRun([archive, '--force'], target.env)).code).toBe(0);
    // An interrupted restore's leftovers are gone too.
    expect(fs.readdirSync(target.dataDir).filter((f) => f.startsWith('.restauration-'))).toEqual([]);
    const { db } = openDatabase({ databaseUrl: undefined, dataDir: target.dataDir });
    try {
      expect((await countsOf(db, ['housing_requests'])).housing_requests).toBe(manifest.tables.housing_requests);
    } finally {
      await db.destroy();
    }
  });

  it('refuses while a server answers on the configured port (SQLite), and explains its usage', async () => {
    expect(await backupRun([], sourceEnv())).toEqual({ code: 2, out: 'Usage : npm run backup -- <fichier.tar.gz>' });
    expect(await restoreRun([], sourceEnv())).toEqual({ code: 2, out: 'Usage : npm run restore -- <fichier.tar.gz> [--force]' });
    if (ctx.config.databaseUrl) return;
    const server = net.createServer((s) => s.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const target = await freshTarget();
      const res = await restoreRun([archive], { ...target.env, PORT: String((server.address() as net.AddressInfo).port) });
      expect(res.code).toBe(3);
      expect(res.out).toMatch(/^Un serveur répond sur 127\.0\.0\.1:\d+ : arrêtez Quartier Vivant avant de restaurer/u);
      expect(fs.existsSync(target.dataDir)).toBe(false);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
