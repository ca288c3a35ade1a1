import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { pointA } from '../src/domain/geometrie.js';
import { entreeDe, manifestSchema, type Manifest } from '../src/server/cli/archive.js';
import { run as backupRun, summary as backupSummary } from '../src/server/cli/backup.js';
import { autresConnexions, dejaRempli, run as restoreRun, summary as restoreSummary } from '../src/server/cli/restore.js';
import { COLONNE_DE_FICHIER, DOSSIERS, TABLES } from '../src/server/cli/tables.js';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/config.js';
import { openDatabase, type Db } from '../src/server/db/index.js';
import { DOSSIER_PHOTOS_SIGNALEMENTS } from '../src/server/features/compte/donnees-signalements.js';
import { pictureVersion } from '../src/server/features/compte/vues.js';
import { freshDatabaseUrl } from './db.js';
import { createAccount, createTestApp, demande, filesUnder, multipart, SAMPLES, SANS_LIMITES_SIGNALEMENTS, type TestContext } from './helpers.js';

let ctx: TestContext;
let work: string;
const drops: (() => Promise<void>)[] = [];
/** Rows per table, and DATA_DIR's entries, of the server just started (before any test wrote anything). */
let auDemarrage: { lignes: Record<string, number>; entrees: string[] };

/** Reports, photos, followings and alerts are many here: the per-IP limits would refuse them. */

beforeAll(async () => {
  ctx = await createTestApp({}, { rateLimits: SANS_LIMITES_SIGNALEMENTS });
  work = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-sauvegarde-'));
  auDemarrage = { lignes: await countsOf(ctx.app.deps.db, await tablesOf(ctx.app.deps.db)), entrees: fs.readdirSync(ctx.dataDir).sort() };
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

/** The tables of a database, as the backup lists them. */
async function tablesOf(db: Db): Promise<string[]> {
  const { rows } = ctx.config.databaseUrl
    ? await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = current_schema() order by tablename`.execute(db)
    : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`.execute(db);
  return rows.map((r) => r.name);
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

/** Every file under DATA_DIR/uploads (or another folder of files), as storage keys (the temp folder left out). */
const storedKeys = (dataDir: string, dossier = 'uploads') =>
  filesUnder(path.join(dataDir, dossier))
    .map((f) => f.split(path.sep).join('/'))
    .filter((k) => !k.startsWith('.tmp/'))
    .sort();

const CENTRE = { lat: 43.529444, lon: 5.413889 };
let signalements = 0;

/**
 * A technical report through the public API (by `cookie`'s account when given), with `photos` photos (distinct
 * random pixels: files found once in a tar), followed by `suiveurs` other addresses.
 */
async function signaler({ photos = 1, suiveurs = 0, cookie }: { photos?: number; suiveurs?: number; cookie?: string } = {}) {
  signalements += 1;
  const n = signalements;
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/app/api/technique/signalements',
    headers: cookie ? { cookie } : {},
    payload: {
      categorie: 'voirie',
      titre: `Nid-de-poule n° ${n}`,
      description: 'Un trou profond au milieu de la chaussée.',
      ...pointA(CENTRE, 150 + 100 * (n % 5), (n * 47) % 360),
      adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
      email: `signalant${n}@example.org`,
      nom: 'Camille Martin',
      nomMasque: false,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { numero, cle } = res.json().data as { numero: string; cle: string };
  const ids: string[] = [];
  for (let i = 0; i < photos; i += 1) {
    const content = await sharp(randomBytes(48 * 48 * 3), { raw: { width: 48, height: 48, channels: 3 } }).jpeg().toBuffer();
    const form = await multipart([{ field: 'photo', name: `photo-${i}.jpg`, content, type: 'image/jpeg' }]);
    const up = await ctx.app.inject({ method: 'POST', url: `/app/api/technique/signalements/${numero}/photos`, headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
    expect(up.statusCode, up.body).toBe(201);
    ids.push((up.json().data as { id: string }).id);
  }
  for (let i = 0; i < suiveurs; i += 1) {
    const suivre = await ctx.app.inject({ method: 'POST', url: `/app/api/technique/signalements/${numero}/suivre`, payload: { email: `voisin${n}-${i}@example.org` } });
    expect(suivre.statusCode, suivre.body).toBe(200);
  }
  return { numero, cle, photos: ids };
}

/** A district alert asked for (unconfirmed), then confirmed when `confirmee`. */
async function alerte(email: string, confirmee: boolean) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/technique/alertes', payload: { email } });
  expect(res.statusCode, res.body).toBeLessThan(300);
  if (confirmee) await ctx.app.deps.db.updateTable('signalementAlertes').set({ confirmeLe: new Date().toISOString() }).where('email', '=', email).execute();
}

async function readManifest(archive: string): Promise<Manifest> {
  // manifest.json is the archive's last entry: read it with the system's tar, as an operator would.
  const { execFileSync } = await import('node:child_process');
  return manifestSchema.parse(JSON.parse(execFileSync('tar', ['-xzOf', archive, 'manifest.json'], { encoding: 'utf8' })));
}

// Each test runs the CLIs as processes: on a CI machine busy with three suites at once, one took over 30 s.
describe('npm run backup, npm run restore', { timeout: 90_000 }, () => {
  let archive: string;
  let manifest: Manifest;

  it('writes one consistent archive while requests and documents keep arriving, and restores it whole', async () => {
    const first = await createWithDocuments(2);
    for (let i = 0; i < 24; i += 1) await createWithDocuments(2);
    const { cookie, uid } = await createAccount(ctx);
    const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
    const pic = await multipart([{ field: 'pic', name: 'moi.jpg', content: photo }]);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...pic.headers, cookie }, payload: pic.payload })).statusCode).toBe(201);
    // Technical reports: one by the account, with photos, followers and the district's alerts.
    const rapport = await signaler({ photos: 2, suiveurs: 2, cookie });
    await signaler({ photos: 3, suiveurs: 1 });
    await signaler({ photos: 0 });
    await alerte('alerte.confirmee@example.org', true);
    await alerte('alerte.en-attente@example.org', false);

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
    // Nothing to point out: the summary goes to stdout.
    expect(result.alerte).toBeUndefined();
    expect(result.out).toContain('Fichiers : ');
    expect(result.out).toContain('dont 5 photos de signalements.');
    expect(result.out).toMatch(/, 3 signalements, 5 photos de signalements\.\n/u);
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
    // The reports' tables are counted like every table, their photos carried with their folder.
    expect(manifest.tables).toMatchObject({ signalements: 3, signalement_photos: 5, signalement_suiveurs: 6, signalement_alertes: 2 });
    expect(manifest.files.filter((f) => f.dossier === DOSSIER_PHOTOS_SIGNALEMENTS)).toHaveLength(5);

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
      // Every report photo row has its file, with the bytes the source had (recorded size, same SHA-256), and no
      // photo file is without its row.
      const photos = await db.selectFrom('signalementPhotos').select(['storageKey', 'taille']).execute();
      expect(photos).toHaveLength(5);
      expect(storedKeys(target.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS)).toEqual(photos.map((p) => p.storageKey).sort());
      for (const p of photos) {
        const file = path.join(target.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS, p.storageKey);
        expect(fs.statSync(file).size).toBe(p.taille);
        expect(sha256(file)).toBe(sha256(path.join(ctx.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS, p.storageKey)));
      }
      // Followers, alerts (confirmed or not) and the report's link to its account come back as they were.
      // (The writers above only add housing requests: the live reports' tables are the snapshot's.)
      const suiveurs = (d: Db) => d.selectFrom('signalementSuiveurs').select(['signalementId', 'email']).orderBy('email').execute();
      expect(await suiveurs(db)).toEqual(await suiveurs(ctx.app.deps.db));
      expect(await db.selectFrom('signalementAlertes').select(['email', 'confirmeLe']).orderBy('email').execute()).toEqual([
        { email: 'alerte.confirmee@example.org', confirmeLe: expect.any(String) },
        { email: 'alerte.en-attente@example.org', confirmeLe: null },
      ]);
      expect((await db.selectFrom('signalements').select('ownerUserId').where('numero', '=', rapport.numero).executeTakeFirstOrThrow()).ownerUserId).toBe(uid);
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
      // And a report with its photo.
      const vue = await app.inject({ method: 'GET', url: `/app/api/technique/signalements/${rapport.numero}` });
      expect(vue.statusCode).toBe(200);
      const photo = await app.inject({ method: 'GET', url: `/app/api/technique/signalements/${rapport.numero}/photos/${rapport.photos[0]}` });
      expect(photo.statusCode).toBe(200);
      expect(photo.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    } finally {
      await app.close();
    }

    // A second restore onto data refuses, in French, unless forced.
    const again = await restoreRun([archive], target.env);
    expect(again.code).toBe(3);
    // Many requests, the one account and the three reports made above: « demandes », « 1 compte », « 3 signalements ».
    expect(again.out).toBe(
      `${target.databaseUrl ? 'La base de DATABASE_URL' : `Le dossier ${target.dataDir}`} contient déjà ${manifest.tables.housing_requests} demandes, 1 compte et 3 signalements. La restauration les remplacerait par le contenu de la sauvegarde : relancez avec --force pour confirmer (npm run restore -- <fichier> --force). Rien n’a été restauré.`,
    );
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

  it('refuses an archive with one byte of a document or of a report photo changed, and leaves the target untouched', async () => {
    const target = await populatedTarget();
    const before = await fingerprint(target);
    const tarball = zlib.gunzipSync(fs.readFileSync(archive));
    const doc = manifest.files.find((f) => f.dossier === 'uploads' && !f.key.startsWith('avatars/'))!;
    const photo = manifest.files.find((f) => f.dossier === DOSSIER_PHOTOS_SIGNALEMENTS)!;
    for (const f of [doc, photo]) {
      // Flip one byte inside the file's content, then gzip again: only the checksums can tell. The document's bytes
      // are random past the PNG signature, the photo's pixels random: each found once in the tar, at its entry's data.
      const content = fs.readFileSync(path.join(ctx.dataDir, f.dossier!, f.key));
      const at = tarball.indexOf(content.subarray(0, Math.min(4096, content.length)));
      expect(at).toBeGreaterThanOrEqual(0);
      const altered = Buffer.from(tarball);
      const where = at + Math.floor(content.length / 2);
      altered.writeUInt8(altered.readUInt8(where) ^ 0xff, where);
      const bad = path.join(work, 'alteree.tar.gz');
      fs.writeFileSync(bad, zlib.gzipSync(altered));

      const res = await restoreRun([bad, '--force'], target.env);
      expect(res.code).toBe(1);
      expect(res.out).toBe(
        `L’archive est corrompue : « ${entreeDe(f)} » n’a pas la somme de contrôle (SHA-256) ou la taille attendue. Utilisez une autre sauvegarde. Rien n’a été restauré.`,
      );
    }
    expect(entreeDe(photo)).toBe(`photos-signalements/${photo.key}`);
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
      ['abimee.tar.gz', flipped, /^L’archive .* est illisible ou tronquée \(.+\) : elle a pu être abîmée pendant une copie\. Rien n’a été restauré\.$/u],
      ['tronquee.tar.gz', bytes.subarray(0, Math.floor(bytes.length * 0.7)), /est illisible ou tronquée .* Rien n’a été restauré\.$/u],
      ['autre.tar.gz', zlib.gzipSync(Buffer.alloc(1024)), /ne contient pas de manifest\.json.*Rien n’a été restauré\.$/u],
    ];
    for (const [name, content, message] of cases) {
      const file = path.join(work, name);
      fs.writeFileSync(file, content);
      const res = await restoreRun([file, '--force'], target.env);
      expect(res.out).toMatch(message);
      expect(res.code).toBe(1);
    }
    const missing = await restoreRun([path.join(work, 'absente.tar.gz')], target.env);
    expect(missing).toEqual({ code: 1, out: `Archive introuvable : ${path.join(work, 'absente.tar.gz')}. Rien n’a été restauré.` });
    expect(await fingerprint(target)).toEqual(before);
  });

  it('reports in the manifest, and in French, a referenced file gone or changed on the disk, and restores the rest', async () => {
    const [gone, changed] = await ctx.app.deps.db.selectFrom('documents').select('storageKey').orderBy('storageKey').limit(2).execute();
    const [photoGone, photoChanged] = await ctx.app.deps.db.selectFrom('signalementPhotos').select('storageKey').orderBy('storageKey').limit(2).execute();
    // As if a withdrawal or a purge had removed one file after the snapshot, and the disk had altered another:
    // a document (its SHA-256 recorded at upload) and a report photo (its size recorded).
    fs.rmSync(path.join(ctx.dataDir, 'uploads', gone!.storageKey));
    fs.appendFileSync(path.join(ctx.dataDir, 'uploads', changed!.storageKey), 'x');
    fs.rmSync(path.join(ctx.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS, photoGone!.storageKey));
    fs.appendFileSync(path.join(ctx.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS, photoChanged!.storageKey), 'x');
    const file = path.join(work, 'anomalies.tar.gz');
    const res = await backupRun([file], sourceEnv());
    expect(res.code).toBe(0);
    // Said on stderr (cron mails it).
    expect(res.alerte).toBe(true);
    const photoGoneName = `photos-signalements/${photoGone!.storageKey}`;
    const photoChangedName = `photos-signalements/${photoChanged!.storageKey}`;
    expect(res.out).toContain(
      `Attention : 2 fichiers référencés par la base avaient disparu au moment de la copie (retirés ou purgés entre-temps ?) : ${gone!.storageKey}, ${photoGoneName}.`,
    );
    expect(res.out).toContain(
      `Attention : 2 fichiers n’ont plus le contenu enregistré dans la base (somme SHA-256 ou taille différente) : ${changed!.storageKey}, ${photoChangedName}.`,
    );
    const written = await readManifest(file);
    expect(written.anomalies).toEqual([
      { dossier: 'uploads', key: gone!.storageKey, problem: 'absent' },
      { dossier: 'uploads', key: changed!.storageKey, problem: 'contenu-different' },
      { dossier: DOSSIER_PHOTOS_SIGNALEMENTS, key: photoGone!.storageKey, problem: 'absent' },
      { dossier: DOSSIER_PHOTOS_SIGNALEMENTS, key: photoChanged!.storageKey, problem: 'contenu-different' },
    ]);
    expect(written.files.map((f) => f.key)).not.toContain(gone!.storageKey);
    expect(written.files.map((f) => f.key)).not.toContain(photoGone!.storageKey);

    const target = await freshTarget();
    const restored = await restoreRun([file], target.env);
    expect(restored.code).toBe(0);
    expect(restored.out).toContain(
      `Attention : 4 fichiers manquaient déjà ou différaient au moment de la sauvegarde (voir « anomalies » dans manifest.json) : ${gone!.storageKey}, ${changed!.storageKey}, ${photoGoneName}, ${photoChangedName}.`,
    );
    expect(storedKeys(target.dataDir)).toEqual(written.files.filter((f) => f.dossier === 'uploads').map((f) => f.key).sort());
    expect(storedKeys(target.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS)).toEqual(written.files.filter((f) => f.dossier === DOSSIER_PHOTOS_SIGNALEMENTS).map((f) => f.key).sort());
  });

  it('refuses, without --force, to restore over a target that holds only technical reports or alerts', async () => {
    const target = await freshTarget();
    // The target's server started once and took one report: no request, no account, no file.
    const app = await buildApp(loadConfig(target.env as Record<string, string>, { databaseUrl: target.databaseUrl }), { logger: false });
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/app/api/technique/signalements',
        payload: { categorie: 'voirie', titre: 'Lampadaire éteint', description: '', ...CENTRE, adresse: 'Avenue Marcel-Pagnol', email: 'seul@example.org', nom: '', nomMasque: false },
      });
      expect(res.statusCode, res.body).toBe(201);
    } finally {
      await app.close();
    }
    const where = target.databaseUrl ? 'La base de DATABASE_URL' : `Le dossier ${target.dataDir}`;
    const refused = await restoreRun([archive], target.env);
    expect(refused).toEqual({
      code: 3,
      out: `${where} contient déjà 1 signalement. La restauration les remplacerait par le contenu de la sauvegarde : relancez avec --force pour confirmer (npm run restore -- <fichier> --force). Rien n’a été restauré.`,
    });
    expect((await restoreRun([archive, '--force'], target.env)).code).toBe(0);
  });

  it('replaces a damaged SQLite database only when told to (--force)', async () => {
    if (ctx.config.databaseUrl) return;
    const target = await freshTarget();
    fs.mkdirSync(target.dataDir, { recursive: true });
    fs.writeFileSync(path.join(target.dataDir, 'app.db'), randomBytes(8192));
    fs.mkdirSync(path.join(target.dataDir, '.restauration-0123456789ab'));
    const refused = await restoreRun([archive], target.env);
    expect(refused.code).toBe(3);
    expect(refused.out).toMatch(/^La base actuelle .*app\.db est illisible \(.+\)\. Pour la remplacer par la sauvegarde, relancez avec --force\. Rien n’a été restauré\.$/u);
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

  it('refuses while another session uses the target database (PostgreSQL); a session that closes as it starts is waited for', async () => {
    if (!ctx.config.databaseUrl) return;
    const target = await freshTarget();
    const autre = new pg.Client({ connectionString: target.databaseUrl });
    await autre.connect();
    try {
      expect(await restoreRun([archive], target.env)).toEqual({ code: 3, out: autresConnexions(1) });
    } finally {
      await autre.end();
    }
    // A session that ends as the restore starts (a server just stopped, its connections still closing) is waited for.
    const finissante = new pg.Client({ connectionString: target.databaseUrl });
    await finissante.connect();
    const fermeture = new Promise((resolve) => setTimeout(resolve, 500)).then(() => finissante.end());
    expect((await restoreRun([archive], target.env)).code).toBe(0);
    await fermeture;
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

describe('the French of the summaries and refusals: singular for 0 and 1, plural from 2', () => {
  /** A manifest with `n` rows in each counted table, `n` files of 1 byte each, and the anomalies given. */
  const manifestDe = (n: number, anomalies: Manifest['anomalies']): Manifest => ({
    format: 'quartier-vivant-sauvegarde',
    formatVersion: 1,
    createdAt: '2025-03-14T09:30:00.000Z',
    database: { kind: 'sqlite', entry: 'base/app.db', size: 4096, sha256: '0'.repeat(64), migration: '0012_recherche' },
    tables: { housing_requests: n, documents: n, status_events: n, user: n, mail_outbox: n },
    files: Array.from({ length: n }, (_, i) => ({ key: `d${i}/identity/piece.pdf`, size: 1, sha256: '0'.repeat(64) })),
    anomalies,
    secret: null,
  });
  const absents = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `a${i}/identity/absente.pdf`, problem: 'absent' as const }));
  const differents = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `c${i}/identity/changee.pdf`, problem: 'contenu-different' as const }));

  it('backup: « 1 fichier référencé … avait disparu », « 2 fichiers référencés … avaient disparu », and the counts', () => {
    const une = backupSummary('une.tar.gz', { manifest: manifestDe(1, [...absents(1), ...differents(1)]), archiveSize: 1, ms: 1500 });
    expect(une.split('\n')).toEqual([
      `Sauvegarde écrite : ${path.resolve('une.tar.gz')} (1 octet, en 1,5 s).`,
      'Base SQLite (migration 0012_recherche) : 1 demande, 1 document, 1 changement de statut, 1 compte, 1 e-mail.',
      'Fichiers : 1 (1 octet).',
      'Attention : 1 fichier référencé par la base avait disparu au moment de la copie (retiré ou purgé entre-temps ?) : a0/identity/absente.pdf. La liste complète est dans manifest.json (« anomalies »).',
      'Attention : 1 fichier n’a plus le contenu enregistré dans la base (somme SHA-256 ou taille différente) : c0/identity/changee.pdf. Vérifiez le disque ; la liste complète est dans manifest.json.',
    ]);
    const deux = backupSummary('deux.tar.gz', { manifest: manifestDe(2, [...absents(2), ...differents(2)]), archiveSize: 2, ms: 1500 });
    expect(deux.split('\n')).toEqual([
      `Sauvegarde écrite : ${path.resolve('deux.tar.gz')} (2 octets, en 1,5 s).`,
      'Base SQLite (migration 0012_recherche) : 2 demandes, 2 documents, 2 changements de statut, 2 comptes, 2 e-mails.',
      'Fichiers : 2 (2 octets).',
      'Attention : 2 fichiers référencés par la base avaient disparu au moment de la copie (retirés ou purgés entre-temps ?) : a0/identity/absente.pdf, a1/identity/absente.pdf. La liste complète est dans manifest.json (« anomalies »).',
      'Attention : 2 fichiers n’ont plus le contenu enregistré dans la base (somme SHA-256 ou taille différente) : c0/identity/changee.pdf, c1/identity/changee.pdf. Vérifiez le disque ; la liste complète est dans manifest.json.',
    ]);
  });

  it('restore: « 1 fichier, vérifié », « 2 fichiers, tous vérifiés », « 1 fichier manquait », « 2 fichiers manquaient »', () => {
    const lignes = (n: number, anomalies: Manifest['anomalies']) => restoreSummary('s.tar.gz', { manifest: manifestDe(n, anomalies), ms: 1500 }).split('\n').slice(1);
    expect(lignes(1, absents(1))).toEqual([
      'Restauré : 1 demande, 1 document, 1 changement de statut, 1 compte, 1 e-mail ; 1 fichier, vérifié (SHA-256).',
      'Attention : 1 fichier manquait déjà ou différait au moment de la sauvegarde (voir « anomalies » dans manifest.json) : a0/identity/absente.pdf.',
      'Démarrez le serveur : il appliquera au démarrage les migrations plus récentes que la sauvegarde.',
    ]);
    expect(lignes(2, [...absents(1), ...differents(1)])).toEqual([
      'Restauré : 2 demandes, 2 documents, 2 changements de statut, 2 comptes, 2 e-mails ; 2 fichiers, tous vérifiés (SHA-256).',
      'Attention : 2 fichiers manquaient déjà ou différaient au moment de la sauvegarde (voir « anomalies » dans manifest.json) : a0/identity/absente.pdf, c0/identity/changee.pdf.',
      'Démarrez le serveur : il appliquera au démarrage les migrations plus récentes que la sauvegarde.',
    ]);
    expect(lignes(0, [])).toEqual([
      'Restauré : 0 demande, 0 document, 0 changement de statut, 0 compte, 0 e-mail ; 0 fichier.',
      'Démarrez le serveur : il appliquera au démarrage les migrations plus récentes que la sauvegarde.',
    ]);
  });

  it('backup: tables it does not know, and tables naming files it does not copy, are said (« 1 table inconnue », « 2 tables »)', () => {
    const une = backupSummary('une.tar.gz', { manifest: manifestDe(1, []), archiveSize: 1, ms: 1500, inconnues: ['notes_futures'], fichiersNonCouverts: ['pieces_futures'] });
    expect(une.split('\n').slice(3)).toEqual([
      'Attention : la table pieces_futures désigne des fichiers (colonne storage_key) que cette version de la sauvegarde ne copie pas : l’archive a la base, pas ces fichiers. Signalez-le aux développeurs (src/server/cli/tables.ts).',
      'Attention : 1 table inconnue de cette version de la sauvegarde (notes_futures) : elle est copiée avec la base, mais un éventuel fichier qu’elle désigne ne l’est pas. L’application est-elle à jour (npm run build) ? Sinon, signalez-le aux développeurs (src/server/cli/tables.ts).',
    ]);
    const deux = backupSummary('deux.tar.gz', { manifest: manifestDe(2, []), archiveSize: 1, ms: 1500, inconnues: ['a', 'b'], fichiersNonCouverts: ['c', 'd'] });
    expect(deux).toContain('Attention : les tables c, d désignent des fichiers');
    expect(deux).toContain('Attention : 2 tables inconnues de cette version de la sauvegarde (a, b) : elles sont copiées avec la base, mais un éventuel fichier qu’elles désignent ne l’est pas.');
  });

  it('backup and restore: the reports and their photos counted when the archive has them, left out of an older archive’s summary', () => {
    const m = manifestDe(2, [{ dossier: DOSSIER_PHOTOS_SIGNALEMENTS, key: 's1/p1.jpg', problem: 'absent' }]);
    m.tables = { ...m.tables, signalements: 1, signalement_photos: 2 };
    m.files.push({ dossier: DOSSIER_PHOTOS_SIGNALEMENTS, key: 's1/p2.jpg', size: 1, sha256: '0'.repeat(64) });
    expect(backupSummary('s.tar.gz', { manifest: m, archiveSize: 3, ms: 1500 }).split('\n').slice(1)).toEqual([
      'Base SQLite (migration 0012_recherche) : 2 demandes, 2 documents, 2 changements de statut, 2 comptes, 2 e-mails, 1 signalement, 2 photos de signalements.',
      'Fichiers : 3 (3 octets), dont 1 photo de signalement.',
      'Attention : 1 fichier référencé par la base avait disparu au moment de la copie (retiré ou purgé entre-temps ?) : photos-signalements/s1/p1.jpg. La liste complète est dans manifest.json (« anomalies »).',
    ]);
    // A format 1 manifest (before the reports' photos: no `dossier`) still reads, its files under `fichiers/`.
    const ancien = manifestSchema.parse({ ...manifestDe(1, absents(1)), formatVersion: 1 });
    expect(ancien.files.map(entreeDe)).toEqual(['fichiers/d0/identity/piece.pdf']);
    expect(restoreSummary('s.tar.gz', { manifest: ancien, ms: 1 }).split('\n')[1]).toBe(
      'Restauré : 1 demande, 1 document, 1 changement de statut, 1 compte, 1 e-mail ; 1 fichier, vérifié (SHA-256).',
    );
  });

  it('restore refuses with « 1 autre connexion est ouverte », « 2 autres connexions sont ouvertes », « 1 demande et 1 compte »', () => {
    const arretez = 'sur la base cible : arrêtez le serveur Quartier Vivant (et toute autre session sur cette base) avant de restaurer. Rien n’a été restauré.';
    expect(autresConnexions(1)).toBe(`1 autre connexion est ouverte ${arretez}`);
    expect(autresConnexions(2)).toBe(`2 autres connexions sont ouvertes ${arretez}`);
    const remplacerait = 'La restauration les remplacerait par le contenu de la sauvegarde : relancez avec --force pour confirmer (npm run restore -- <fichier> --force). Rien n’a été restauré.';
    const base = 'La base de DATABASE_URL';
    expect(dejaRempli(base, { housing_requests: 1, user: 1 })).toBe(`${base} contient déjà 1 demande et 1 compte. ${remplacerait}`);
    expect(dejaRempli(base, { housing_requests: 2, user: 2, signalements: 2 })).toBe(`${base} contient déjà 2 demandes, 2 comptes et 2 signalements. ${remplacerait}`);
    expect(dejaRempli('Le dossier /srv/qv', { housing_requests: 0, user: 1 })).toBe(`Le dossier /srv/qv contient déjà 1 compte. ${remplacerait}`);
    expect(dejaRempli('Le dossier /srv/qv', { signalement_alertes: 1 })).toBe(`Le dossier /srv/qv contient déjà des données. ${remplacerait}`);
    expect(dejaRempli('Le dossier /srv/qv', { housing_requests: 0 }, true)).toBe(`Le dossier /srv/qv contient déjà des fichiers (documents ou photos). ${remplacerait}`);
  });
});

describe('src/server/cli/tables.ts: every table and every folder of files is known to the backup', () => {
  it('lists every table of the migrated database, and only those, each with what it is', async () => {
    const tables = await tablesOf(ctx.app.deps.db);
    const kind = ctx.config.databaseUrl ? 'postgres' : 'sqlite';
    // A table added by a migration: add its line to TABLES (`donnees` or `technique`, and `fichiers` if its rows name files).
    expect(tables.filter((t) => !Object.hasOwn(TABLES, t)), 'tables missing from src/server/cli/tables.ts').toEqual([]);
    const attendues = Object.entries(TABLES)
      .filter(([, t]) => (t.seulement ?? kind) === kind)
      .map(([name]) => name);
    expect(attendues.filter((t) => !tables.includes(t)), 'lines of src/server/cli/tables.ts for tables the database does not have').toEqual([]);
  });

  it('copies the files of every table whose rows name stored files', async () => {
    const { rows } = ctx.config.databaseUrl
      ? await sql<{ t: string; c: string }>`select table_name as t, column_name as c from information_schema.columns where table_schema = current_schema()`.execute(ctx.app.deps.db)
      : await sql<{ t: string; c: string }>`select m.name as t, c.name as c from sqlite_master m join pragma_table_info(m.name) c where m.type = 'table' and m.name not like 'sqlite_%'`.execute(ctx.app.deps.db);
    const avecFichiers = [...new Set(rows.filter((r) => COLONNE_DE_FICHIER.test(r.c)).map((r) => r.t))].sort();
    expect(avecFichiers).toEqual(['documents', 'signalement_photos']);
    expect(avecFichiers.filter((t) => !TABLES[t]?.fichiers)).toEqual([]);
  });

  it('counts as data (a restore over it needs --force) only tables a server that just started leaves empty', () => {
    const remplies = Object.entries(auDemarrage.lignes).filter(([t, n]) => n > 0 && TABLES[t]?.contenu !== 'technique');
    expect(remplies, 'tables filled at start: mark them `technique` in src/server/cli/tables.ts').toEqual([]);
  });

  it('knows every entry the server makes in DATA_DIR: saved (the database, the secret, each folder of files) or deliberately not (mail copies)', () => {
    const sauvegardees = ['app.db', 'auth-secret', ...Object.keys(DOSSIERS)];
    const nonSauvegardees = ['app.db-wal', 'app.db-shm', 'mail'];
    expect(auDemarrage.entrees.filter((e) => !sauvegardees.includes(e) && !nonSauvegardees.includes(e)), 'a new folder of DATA_DIR: add it to DOSSIERS in src/server/cli/tables.ts, or here if it holds nothing to keep').toEqual([]);
    expect(auDemarrage.entrees).toContain(DOSSIER_PHOTOS_SIGNALEMENTS);
  });
});
