import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointA } from '../src/domain/geometrie.js';
import { buildApp } from '../src/server/app.js';
import { run as sauvegarder } from '../src/server/cli/backup.js';
import { run as restaurer } from '../src/server/cli/restore.js';
import { ConfigError, loadConfig } from '../src/server/config.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { sweepLeftovers } from '../src/server/features/demandes/upload.js';
import { createAccount, createTestApp, demande, filesUnder, multipart, SAMPLES, SANS_LIMITES_SIGNALEMENTS, type TestContext } from './helpers.js';
import { freshDatabaseUrl } from './db.js';
import { demarrerS3, type ServeurS3 } from './s3.js';

/**
 * The whole app with STORAGE=s3 against a real S3-compatible server on loopback (test/s3.ts): documents, the
 * zip, profile pictures and report photos go to the bucket under their prefix, come back byte for byte, and
 * leave it when withdrawn; nothing is written under DATA_DIR's folders. A real database per file (SQLite, or
 * PostgreSQL with DATABASE_URL).
 */
let s3: ServeurS3;
let ctx: TestContext;

beforeAll(async () => {
  s3 = await demarrerS3();
  ctx = await createTestApp(s3.env, { rateLimits: SANS_LIMITES_SIGNALEMENTS });
});
afterAll(async () => {
  await ctx?.close();
  await s3?.close();
});

/** The entries of a zip, read from its central directory (stored entries: the app does not compress). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.set(name, zip.subarray(dataAt, dataAt + size));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** An object's bytes, read from the bucket directly. */
async function objet(key: string): Promise<Buffer> {
  const answer = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from(await answer.Body!.transformToByteArray());
}

/** Nothing of the app's files under DATA_DIR: only the database, the mails and the generated secret. */
const fichiersSurLeDisque = () => [...filesUnder(path.join(ctx.dataDir, 'uploads')), ...filesUnder(path.join(ctx.dataDir, 'photos-signalements'))];

async function creer() {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; numeroUnique: string; accessKey: string };
}

/** A 6 MB PDF (a long comment): more than one 5 MiB part, so a multipart upload. */
const grandPdf = Buffer.concat([SAMPLES.pdf.subarray(0, -6), Buffer.from(`%${randomBytes(4608 * 1024).toString('base64')}\n`), Buffer.from('%%EOF\n')]);

describe('housing request documents in S3', () => {
  it('stores uploads under uploads/ in the bucket, serves each one and the zip byte for byte, and removes them on withdrawal', async () => {
    const { id, numeroUnique, accessKey } = await creer();
    const body = await multipart([
      { field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf },
      { field: 'identity', name: 'carte.png', content: SAMPLES.png },
      { field: 'salary', name: 'bulletin.pdf', content: grandPdf },
    ]);
    const parties = () => s3.requetes.filter((r) => r.startsWith('PUT ') && r.includes('partNumber=')).length;
    const partiesAvant = parties();
    const up = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload });
    expect(up.statusCode, up.body).toBe(201);
    // The 6 MB document went up in two parts of a multipart upload, the small ones in one request each.
    expect(parties() - partiesAvant).toBe(2);

    const docs = await ctx.app.deps.db.selectFrom('documents').select(['id', 'storageKey', 'originalName']).where('housingRequestId', '=', id).orderBy('originalName').execute();
    expect(docs.map((d) => d.originalName)).toEqual(['bulletin.pdf', 'carte.png', 'livret.pdf']);
    expect(await s3.objets(`uploads/${id}/`)).toEqual(docs.map((d) => `uploads/${d.storageKey}`).sort());
    expect(await s3.objets('uploads/.tmp/')).toEqual([]);
    expect(fichiersSurLeDisque()).toEqual([]);
    const attendu = new Map([
      ['livret.pdf', SAMPLES.pdf],
      ['carte.png', SAMPLES.png],
      ['bulletin.pdf', grandPdf],
    ]);
    for (const d of docs) expect((await objet(`uploads/${d.storageKey}`)).equals(attendu.get(d.originalName)!), d.originalName).toBe(true);

    for (const d of docs) {
      const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}/documents/${d.id}`, headers: { 'x-access-key': accessKey } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.rawPayload.equals(attendu.get(d.originalName)!), d.originalName).toBe(true);
    }
    const zip = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}/documents.zip`, headers: { 'x-access-key': accessKey } });
    expect(zip.statusCode).toBe(200);
    const entrees = unzip(zip.rawPayload);
    expect(entrees.size).toBe(3);
    expect([...entrees.values()].map((b) => b.length).sort((a, b) => a - b)).toEqual([SAMPLES.png.length, SAMPLES.pdf.length, grandPdf.length].sort((a, b) => a - b));
    for (const [nom, contenu] of entrees) expect([...attendu.values()].some((b) => b.equals(contenu)), nom).toBe(true);

    const retrait = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${numeroUnique}/retirer`, headers: { 'x-access-key': accessKey } });
    expect(retrait.statusCode, retrait.body).toBe(200);
    expect(await s3.objets(`uploads/${id}/`)).toEqual([]);
  });

  it('answers 404 DOCUMENT_NOT_FOUND for a recorded document whose object left the bucket', async () => {
    const { id, numeroUnique, accessKey } = await creer();
    const body = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf }]);
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload })).statusCode).toBe(201);
    const doc = await ctx.app.deps.db.selectFrom('documents').select(['id', 'storageKey']).where('housingRequestId', '=', id).executeTakeFirstOrThrow();
    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `uploads/${doc.storageKey}` }));
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}/documents/${doc.id}`, headers: { 'x-access-key': accessKey } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('DOCUMENT_NOT_FOUND');
  });

  it('keeps nothing of a refused upload: no object, no temp', async () => {
    const { id, numeroUnique, accessKey } = await creer();
    // A good file then a forbidden one: the call is all-or-nothing.
    const body = await multipart([
      { field: 'livret', name: 'livret.pdf', content: grandPdf },
      { field: 'identity', name: 'carte.png', content: SAMPLES.exe },
    ]);
    const res = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload });
    expect(res.statusCode).toBe(415);
    expect(await s3.objets(`uploads/${id}/`)).toEqual([]);
    expect(await s3.objets('uploads/.tmp/')).toEqual([]);
  });

  it('checks a PDF before it takes its place in the bucket: one with JavaScript is refused (415), no object, no temp', async () => {
    const { id, numeroUnique, accessKey } = await creer();
    const doc = await PDFDocument.create();
    doc.addPage([200, 200]);
    doc.catalog.set(PDFName.of('OpenAction'), doc.context.register(doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of('app.alert(1)') })));
    const body = await multipart([{ field: 'tax', name: 'avis.pdf', content: await doc.save() }]);
    const res = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload });
    expect([res.statusCode, res.json().error.code]).toEqual([415, 'PDF_ACTIVE_CONTENT']);
    expect(await s3.objets(`uploads/${id}/`)).toEqual([]);
    expect(await s3.objets('uploads/.tmp/')).toEqual([]);
  });

  it('sweeps orphan objects and leftover temps from the bucket, never a recorded document nor a picture', async () => {
    const { id, numeroUnique, accessKey } = await creer();
    const body = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf }]);
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload })).statusCode).toBe(201);
    const gardes = await s3.objets(`uploads/${id}/`);
    expect(gardes).toHaveLength(1);
    for (const Key of ['uploads/fantome/doc/other-1-x.pdf', 'uploads/.tmp/coupe-par-un-arret', 'uploads/avatars/quelquun/v1.webp']) {
      await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key, Body: 'reste' }));
    }
    const balayes = await sweepLeftovers(
      { repository: new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind), storage: ctx.app.deps.storage, mailDir: path.join(ctx.dataDir, 'mail') },
      { olderThanMs: 0 },
    );
    expect(balayes).toMatchObject({ temp: 1, orphans: 1 });
    const restent = await s3.objets('uploads/');
    expect(restent).toEqual(expect.arrayContaining([...gardes, 'uploads/avatars/quelquun/v1.webp']));
    expect(restent).not.toContain('uploads/fantome/doc/other-1-x.pdf');
    expect(restent).not.toContain('uploads/.tmp/coupe-par-un-arret');
  });
});

describe('profile pictures and report photos in S3', () => {
  it('stores a profile picture under uploads/avatars/ and serves it', async () => {
    const compte = await createAccount(ctx);
    const image = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
    const form = await multipart([{ field: 'pic', name: 'moi.jpg', content: image }]);
    const up = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...form.headers, cookie: compte.cookie }, payload: form.payload });
    expect(up.statusCode, up.body).toBe(201);
    const [cle] = await s3.objets(`uploads/avatars/${compte.uid}/`);
    expect(cle).toMatch(new RegExp(`^uploads/avatars/${compte.uid}/[^/]+\\.webp$`, 'u'));
    const servie = await ctx.app.inject({ method: 'GET', url: up.json().data.pic, headers: { cookie: compte.cookie } });
    expect(servie.statusCode).toBe(200);
    expect(servie.rawPayload.equals(await objet(cle!))).toBe(true);
  });

  it('stores a report photo under photos-signalements/, serves it, and gives it in the account’s export', async () => {
    const compte = await createAccount(ctx);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/technique/signalements',
      headers: { cookie: compte.cookie },
      payload: {
        categorie: 'voirie',
        titre: 'Trottoir abîmé',
        description: 'Une dalle soulevée devant l’école.',
        ...pointA({ lat: 43.529444, lon: 5.413889 }, 200, 45),
        adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
        email: compte.email,
        nom: 'Camille Martin',
        nomMasque: false,
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const { numero, cle } = res.json().data as { numero: string; cle: string };
    const image = await sharp(randomBytes(64 * 64 * 3), { raw: { width: 64, height: 64, channels: 3 } }).png().toBuffer();
    const form = await multipart([{ field: 'photo', name: 'trottoir.png', content: image, type: 'image/png' }]);
    const up = await ctx.app.inject({ method: 'POST', url: `/app/api/technique/signalements/${numero}/photos`, headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
    expect(up.statusCode, up.body).toBe(201);

    const photo = await ctx.app.deps.db.selectFrom('signalementPhotos as p').innerJoin('signalements as s', 's.id', 'p.signalementId').select(['p.storageKey']).where('s.numero', '=', numero).executeTakeFirstOrThrow();
    expect(await s3.objets('photos-signalements/')).toContain(`photos-signalements/${photo.storageKey}`);
    // Not under uploads/: the documents' sweep would take it for an orphan.
    expect((await s3.objets('uploads/')).some((k) => k.endsWith(photo.storageKey))).toBe(false);
    expect(fichiersSurLeDisque()).toEqual([]);
    const stocke = await objet(`photos-signalements/${photo.storageKey}`);
    expect((await sharp(stocke).metadata()).format).toBe('jpeg');

    const servie = await ctx.app.inject({ method: 'GET', url: up.json().data.url });
    expect(servie.statusCode).toBe(200);
    expect(servie.rawPayload.equals(stocke)).toBe(true);

    const exporte = await ctx.app.inject({ method: 'GET', url: '/app/api/compte/export.zip', headers: { cookie: compte.cookie } });
    expect(exporte.statusCode).toBe(200);
    const photos = [...unzip(exporte.rawPayload)].filter(([nom]) => nom.startsWith(`signalement-${numero}/`) && nom.endsWith('.jpg'));
    expect(photos).toHaveLength(1);
    expect(photos[0]![1].equals(stocke)).toBe(true);
  });
});

describe('configuration and tools with STORAGE=s3', () => {
  it('refuses STORAGE=s3 without its bucket or keys, naming the variable, and never shows the secret', () => {
    const erreur = (env: Record<string, string>) => {
      try {
        loadConfig({ DATA_DIR: os.tmpdir(), ...env });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).message;
      }
      return null;
    };
    const complet = { STORAGE: 's3', S3_BUCKET: 'qv-documents', S3_ACCESS_KEY_ID: 'AKIAEXEMPLE', S3_SECRET_ACCESS_KEY: 'secret-tres-secret' };
    expect(erreur({ ...complet, S3_BUCKET: '' })).toBe('Configuration invalide : S3_BUCKET doit être défini quand STORAGE=s3 (le nom du bucket où ranger les documents).');
    expect(erreur({ ...complet, S3_ACCESS_KEY_ID: '' })).toBe('Configuration invalide : S3_ACCESS_KEY_ID doit être défini quand STORAGE=s3, avec S3_SECRET_ACCESS_KEY.');
    expect(erreur({ ...complet, S3_SECRET_ACCESS_KEY: ' ' })).toBe('Configuration invalide : S3_SECRET_ACCESS_KEY doit être défini quand STORAGE=s3, avec S3_ACCESS_KEY_ID.');
    expect(erreur({ ...complet, STORAGE: 'nfs' })).toMatch(/^Configuration invalide : STORAGE doit valoir disk \(dossier DATA_DIR\) ou s3/u);
    expect(erreur({ ...complet, S3_FORCE_PATH_STYLE: 'oui' })).toMatch(/^Configuration invalide : S3_FORCE_PATH_STYLE doit valoir true/u);
    expect(erreur({ ...complet, S3_ENDPOINT: 'minio:9000' })).toMatch(/^Configuration invalide : S3_ENDPOINT doit être une URL http\(s\)/u);
    expect(erreur({ ...complet, S3_BUCKET: 'Mon Bucket' })).toMatch(/^Configuration invalide : S3_BUCKET doit être un nom de bucket/u);
    // Disk by default; the S3 variables are ignored without STORAGE=s3.
    expect(loadConfig({ DATA_DIR: os.tmpdir(), S3_BUCKET: 'qv-docs' }).stockage).toEqual({ type: 'disque' });

    const config = loadConfig({ DATA_DIR: os.tmpdir(), ...complet, S3_ENDPOINT: 'https://s3.fr-par.scw.cloud', S3_REGION: 'fr-par', S3_FORCE_PATH_STYLE: 'true' });
    expect(config.stockage).toMatchObject({
      type: 's3',
      bucket: 'qv-documents',
      connexion: { endpoint: 'https://s3.fr-par.scw.cloud', region: 'fr-par', forcePathStyle: true, credentials: { accessKeyId: 'AKIAEXEMPLE' } },
    });
    expect(config.stockage.type === 's3' && config.stockage.connexion.credentials.secretAccessKey).toBe('secret-tres-secret');
    // Logged or serialized whole, the configuration never shows the secret.
    expect(JSON.stringify(config)).not.toContain('secret-tres-secret');
    expect(loadConfig({ DATA_DIR: os.tmpdir(), ...complet }).stockage).toMatchObject({ connexion: { region: 'us-east-1', forcePathStyle: false, endpoint: undefined } });
  });

  it('does not start on a bucket it cannot reach, and says which', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-s3-absent-'));
    const database = await freshDatabaseUrl();
    try {
      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...s3.env, S3_BUCKET: 'bucket-absent' }, { databaseUrl: database.url });
      await expect(buildApp(config, { logger: false })).rejects.toThrow('le bucket S3 « bucket-absent » est introuvable ou inaccessible (HTTP 404)');
    } finally {
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to back up or restore rather than make an archive without the bucket’s documents', async () => {
    const dossier = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-sauvegarde-s3-'));
    try {
      const env = { ...s3.env, DATA_DIR: ctx.dataDir, ...(ctx.config.databaseUrl ? { DATABASE_URL: ctx.config.databaseUrl } : {}) };
      const archive = path.join(dossier, 'qv.tar.gz');
      const sauvegarde = await sauvegarder([archive], env);
      expect(sauvegarde.code).toBe(1);
      expect(sauvegarde.out).toContain('STORAGE=s3 : cette commande ne sait copier que les documents rangés sur le disque (DATA_DIR), pas ceux du bucket « quartier-vivant ». Aucune archive n’a été écrite');
      expect(fs.readdirSync(dossier)).toEqual([]);
      fs.writeFileSync(archive, 'pas une archive');
      const restauration = await restaurer([archive], env);
      expect(restauration.code).toBe(3);
      expect(restauration.out).toContain('Rien n’a été restauré.');
      expect(restauration.out).toContain('« quartier-vivant »');
    } finally {
      fs.rmSync(dossier, { recursive: true, force: true });
    }
  });
});
