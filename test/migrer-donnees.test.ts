import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointA } from '../src/domain/geometrie.js';
import { buildApp } from '../src/server/app.js';
import { NON_COPIEES, ordreDesTables, RECONSTRUITES, run, SEMEES } from '../src/server/cli/migrer-donnees.js';
import { TABLES } from '../src/server/cli/tables.js';
import { loadConfig } from '../src/server/config.js';
import { migrate, migrator, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from './db.js';
import { demande, multipart, SAMPLES, SANS_LIMITES_SIGNALEMENTS } from './helpers.js';
import { demarrerS3, type ServeurS3 } from './s3.js';

/**
 * `npm run migrate-data` (docs/operations.md « Passer d’un serveur à plusieurs : migrer les données »): a one-server
 * installation (the app on SQLite and disk, filled through its HTTP API) moved to a fresh PostgreSQL database and a
 * real S3-compatible server on loopback, interrupted twice and resumed, then served by the app on the target. Needs
 * PostgreSQL (DATABASE_URL): skipped on the SQLite run.
 */
const ORIGINE = 'http://quartier.test';
const MOT_DE_PASSE = 'une phrase de passe assez longue';
const CENTRE = { lat: 43.529444, lon: 5.413889 };

interface Installation {
  app: FastifyInstance;
  dataDir: string;
  /** Injects as a browser on the site's pages would (the Origin header that cookie-bearing writes need). */
  appel(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

async function demarrer(dataDir: string, databaseUrl: string | undefined, env: Record<string, string> = {}): Promise<Installation> {
  const config = loadConfig(
    { DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: ORIGINE, ADRESSE_API_URL: 'http://127.0.0.1:9/search/', ...env },
    { databaseUrl },
  );
  const app = await buildApp(config, { logger: false, rateLimits: SANS_LIMITES_SIGNALEMENTS });
  return {
    app,
    dataDir,
    appel: (options) => app.inject({ ...options, headers: { origin: ORIGINE, ...options.headers } }),
    close: () => app.close(),
  };
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A session cookie from an answer of better-auth. */
function cookieDe(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'];
  const list = Array.isArray(raw) ? raw.map(String) : [String(raw)];
  return list.map((c) => c.split(';')[0] ?? '').filter((c) => c.startsWith('qv.session_token=')).join('; ');
}

async function compte(inst: Installation, role: 'habitant' | 'admin', prenom: string) {
  const email = `${prenom.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()}.${randomBytes(3).toString('hex')}@example.org`;
  const res = await inst.appel({
    method: 'POST',
    url: '/app/api/user/inscription',
    payload: { nom: 'Migration', prenom, birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email, password: MOT_DE_PASSE },
  });
  expect(res.statusCode, res.body).toBe(201);
  await inst.app.deps.db.updateTable('user').set({ userType: role, emailVerified: sql<boolean>`true` }).where('email', '=', email).execute();
  return { email, uid: res.json().data.uid as string, cookie: cookieDe(res) };
}

/** A housing request through the API, with `documents` uploaded (several categories). */
async function deposer(inst: Installation, nom: string, documents: { field: string; name: string; content: Buffer }[], cookie?: string) {
  const numero = `013${randomBytes(5).toString('hex')}`;
  const res = await inst.appel({ method: 'POST', url: '/app/api/logement', headers: cookie ? { cookie } : {}, payload: demande({ numeroUnique: numero, nom, email: `${nom.toLowerCase()}@example.org` }) });
  expect(res.statusCode, res.body).toBe(201);
  const cle = res.json().data.accessKey as string;
  if (documents.length > 0) {
    const body = await multipart(documents);
    const up = await inst.appel({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': cle }, payload: body.payload });
    expect(up.statusCode, up.body).toBe(201);
  }
  return { numero, cle };
}

let signalements = 0;
async function signaler(inst: Installation, photos: number, cookie?: string) {
  signalements += 1;
  const res = await inst.appel({
    method: 'POST',
    url: '/app/api/technique/signalements',
    headers: cookie ? { cookie } : {},
    payload: {
      categorie: 'voirie',
      titre: `Lampadaire penché n° ${signalements}`,
      description: 'Il penche dangereusement au-dessus du trottoir.',
      ...pointA(CENTRE, 120 + 60 * signalements, (signalements * 53) % 360),
      adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
      email: `voisine${signalements}@example.org`,
      nom: 'Camille Martin',
      nomMasque: false,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { numero, cle } = res.json().data as { numero: string; cle: string };
  for (let i = 0; i < photos; i += 1) {
    const content = await sharp(randomBytes(32 * 32 * 3), { raw: { width: 32, height: 32, channels: 3 } }).jpeg().toBuffer();
    const form = await multipart([{ field: 'photo', name: `photo-${i}.jpg`, content }]);
    const up = await inst.appel({ method: 'POST', url: `/app/api/technique/signalements/${numero}/photos`, headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
    expect(up.statusCode, up.body).toBe(201);
  }
  return numero;
}

const pdf = (texte: string) => Buffer.concat([SAMPLES.pdf.subarray(0, -6), Buffer.from(`% ${texte} ${randomBytes(2000).toString('hex')}\n%%EOF\n`)]);

/** Rows per table of a database (SQLite file or PostgreSQL URL); the migration's marker is left out of `taches`. */
async function lignesSqlite(dataDir: string): Promise<Record<string, number>> {
  const db = new SqliteDatabase(path.join(dataDir, 'app.db'), { readonly: true });
  try {
    const noms = (db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
    return Object.fromEntries(noms.map((n) => [n, Number((db.prepare(`select count(*) as n from "${n}"`).get() as { n: number }).n)]));
  } finally {
    db.close();
  }
}

async function requetePg<T extends pg.QueryResultRow>(url: string, texte: string, valeurs: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(texte, valeurs)).rows;
  } finally {
    await client.end();
  }
}

async function lignesPg(url: string): Promise<Record<string, number>> {
  const noms = (await requetePg<{ name: string }>(url, 'select tablename as name from pg_tables where schemaname = current_schema()')).map((r) => r.name);
  const out: Record<string, number> = {};
  for (const n of noms) {
    const filtre = n === 'taches' ? " where nom not like 'migration-donnees:%'" : '';
    out[n] = Number((await requetePg<{ n: string }>(url, `select count(*) as n from "${n}"${filtre}`))[0]!.n);
  }
  return out;
}

describe.skipIf(!process.env.DATABASE_URL)('npm run migrate-data: SQLite and disk → PostgreSQL and S3', () => {
  let work: string;
  let s3: ServeurS3;
  let source: string;
  let cible: { url: string; drop(): Promise<void> };
  const drops: (() => Promise<void>)[] = [];
  let env: Record<string, string>;
  let secret: string;
  /** What the source holds, as the tests look for it on the target. */
  const faits = {} as {
    demande: { numero: string; cle: string };
    retiree: string;
    habitant: { email: string; uid: string; cookie: string };
    admin: { email: string; uid: string; cookie: string };
    apiKey: string;
    avatar: Buffer;
    dernierSignalement: string;
    nomCherche: string;
    etiquette: string;
  };

  const args = (...autres: string[]) => ['--from', source, '--to', cible.url, ...autres];

  beforeAll(async () => {
    work = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-migrer-'));
    s3 = await demarrerS3();
    source = path.join(work, 'ancien');
    const url = await freshDatabaseUrl('qv_migrer');
    cible = { url: url.url!, drop: url.drop };
    drops.push(url.drop);

    // The old server: SQLite and files under its DATA_DIR, filled through its HTTP API.
    const ancien = await demarrer(source, undefined);
    faits.habitant = await compte(ancien, 'habitant', 'Hélène');
    faits.admin = await compte(ancien, 'admin', 'Agent');
    faits.avatar = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2266aa' } }).jpeg().toBuffer();
    const pic = await multipart([{ field: 'pic', name: 'moi.jpg', content: faits.avatar }]);
    expect((await ancien.appel({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...pic.headers, cookie: faits.habitant.cookie }, payload: pic.payload })).statusCode).toBe(201);
    faits.avatar = await fsp.readFile(path.join(source, 'uploads', 'avatars', faits.habitant.uid, fs.readdirSync(path.join(source, 'uploads', 'avatars', faits.habitant.uid))[0]!));

    faits.nomCherche = `Ndiaye${randomBytes(2).toString('hex')}`;
    faits.demande = await deposer(
      ancien,
      faits.nomCherche,
      [
        { field: 'livret', name: 'livret-de-famille.pdf', content: pdf('livret') },
        { field: 'identity', name: 'carte.png', content: Buffer.concat([SAMPLES.png, randomBytes(3000)]) },
        { field: 'tax', name: 'avis-impot.pdf', content: pdf('impot') },
        { field: 'salary', name: 'bulletin.jpg', content: SAMPLES.jpeg },
      ],
      faits.habitant.cookie,
    );
    for (let i = 0; i < 7; i += 1) await deposer(ancien, `Martin${i}`, [{ field: i % 2 ? 'other' : 'identity', name: `piece-${i}.pdf`, content: pdf(`piece ${i}`) }]);
    const retiree = await deposer(ancien, 'Retrait', [{ field: 'tax', name: 'avis.pdf', content: pdf('retrait') }]);
    expect((await ancien.appel({ method: 'POST', url: `/app/api/logement/${retiree.numero}/retirer`, headers: { 'x-access-key': retiree.cle } })).statusCode).toBe(200);
    faits.retiree = retiree.numero;

    const admin = { cookie: faits.admin.cookie };
    const statut = await ancien.appel({ method: 'POST', url: '/app/api/logement/update/status', headers: admin, payload: { logementId: faits.demande.numero, newStatus: 'En cours de traitement' } });
    expect(statut.statusCode, statut.body).toBe(200);
    const note = await ancien.appel({ method: 'POST', url: `/app/api/logement/${faits.demande.numero}/notes`, headers: admin, payload: { texte: 'Dossier complet, à présenter en commission.' } });
    expect(note.statusCode, note.body).toBe(201);
    const etiquette = await ancien.appel({ method: 'POST', url: '/app/api/etiquettes', headers: admin, payload: { nom: 'Commission', couleur: 'vert' } });
    expect(etiquette.statusCode, etiquette.body).toBe(201);
    faits.etiquette = etiquette.json().data.id as string;
    const posee = await ancien.appel({ method: 'PUT', url: `/app/api/logement/${faits.demande.numero}/etiquettes`, headers: admin, payload: { ids: [faits.etiquette] } });
    expect(posee.statusCode, posee.body).toBe(200);

    await signaler(ancien, 2, faits.habitant.cookie);
    await signaler(ancien, 1);
    const cle = await ancien.appel({ method: 'POST', url: '/app/api/open311/cles', headers: admin, payload: { libelle: 'Logiciel de la voirie' } });
    expect(cle.statusCode, cle.body).toBe(201);
    faits.apiKey = cle.json().data.apiKey as string;
    const viaOpen311 = await ancien.appel({
      method: 'POST',
      url: '/open311/v2/requests.json',
      payload: { api_key: faits.apiKey, service_code: 'voirie', ...((p) => ({ lat: p.lat, long: p.lon }))(pointA(CENTRE, 90, 10)), address_string: 'Avenue Marcel-Pagnol', email: 'open311@example.org', description: 'Trou dans la chaussée' },
    });
    expect(viaOpen311.statusCode, viaOpen311.body).toBe(200);
    faits.dernierSignalement = viaOpen311.json()[0].service_request_id as string;
    // The town hall removed a category the target's migrations seed, and gave another its service's address.
    expect((await ancien.appel({ method: 'DELETE', url: '/app/api/technique/categories/admin/mobilier-urbain', headers: admin })).statusCode).toBe(204);
    expect((await ancien.appel({ method: 'PUT', url: '/app/api/technique/categories/admin/eclairage', headers: admin, payload: { emailService: 'eclairage@mairie.example' } })).statusCode).toBe(200);
    await ancien.close();
    secret = fs.readFileSync(path.join(source, 'auth-secret'), 'utf8').trim();
    env = { ...s3.env, DATA_DIR: path.join(work, 'nouveau'), LOG_LEVEL: 'silent', AUTH_SECRET: secret };
  });

  afterAll(async () => {
    for (const drop of drops) await drop();
    await s3?.close();
    if (work) await fsp.rm(work, { recursive: true, force: true });
  });

  it('refuses clearly, touching nothing: usage, a missing source, a source not migrated, the old server still running', async () => {
    expect((await run([], env)).code).toBe(2);
    expect((await run(['--from', source], env)).code).toBe(2);
    expect((await run(['--from', source, '--to', 'mysql://x'], env)).out).toMatch(/^--to doit être l’adresse de la base PostgreSQL/u);

    const absente = await run(['--from', path.join(work, 'rien'), '--to', cible.url], env);
    expect(absente).toMatchObject({ code: 1 });
    expect(absente.out).toMatch(/^Source introuvable : le dossier .*rien n’existe pas/u);

    // A database left at an old migration: the old server was never started with this version.
    const vieux = path.join(work, 'vieux');
    const { db } = openDatabase({ databaseUrl: undefined, dataDir: vieux });
    await migrator(db).migrateTo('0010_effacement');
    await db.destroy();
    const ancienne = await run(['--from', vieux, '--to', cible.url], env);
    expect(ancienne.code).toBe(3);
    expect(ancienne.out).toMatch(/^La base source n’est pas à jour : sa dernière migration est 0010_effacement, cette version de l’application en compte \d+ de plus .*Démarrez une fois l’ancien serveur/u);

    // The old server still running on its database.
    const enMarche = await demarrer(source, undefined);
    try {
      const refus = await run(args(), env);
      expect(refus.code).toBe(3);
      expect(refus.out).toMatch(/est ouverte par un autre programme : l’ancien serveur tourne encore \? Arrêtez-le/u);
    } finally {
      await enMarche.close();
    }
    // Nothing was written to the target.
    expect(await requetePg(cible.url, "select 1 from pg_tables where schemaname = current_schema() and tablename = 'housing_requests'")).toEqual([]);
    expect(await s3.objets()).toEqual([]);
  });

  it('copies every table and file; interrupted in the rows then in the files, it resumes to the same result, nothing duplicated', async () => {
    const progression: string[] = [];
    const ecrire = (ligne: string) => progression.push(ligne);
    const avant = await lignesSqlite(source);

    // 1. Cut in the middle of the rows (batches of 7): some tables copied, no file yet.
    const premiere = await run(args('--lot', '7', '--arret-apres', '40'), env, { ecrire });
    expect(premiere.code, premiere.out).toBe(1);
    expect(premiere.out).toMatch(/^Migration interrompue après \d+ lignes copiées et 0 fichier copié par cette passe\. .*relancez la même commande/u);
    const partielles = await lignesPg(cible.url);
    const somme = (lignes: Record<string, number>) => Object.entries(lignes).reduce((n, [t, l]) => n + (t in partielles && t in avant && !NON_COPIEES.has(t) ? l : 0), 0);
    expect(somme(partielles)).toBeGreaterThanOrEqual(40);
    expect(somme(partielles)).toBeLessThan(somme(avant));
    expect(await s3.objets()).toEqual([]);

    // 2. Resumed, cut after 3 files: every row there, 3 whole objects, no temp object.
    const seconde = await run(args('--parallele', '1', '--arret-apres-fichiers', '3'), env, { ecrire });
    expect(seconde.code, seconde.out).toBe(1);
    expect(seconde.out).toMatch(/après \d+ lignes copiées et 3 fichiers copiés/u);
    expect(await s3.objets()).toHaveLength(3);

    // 3. Resumed to the end (one file at a time: s3rver removes the temp objects' folder left empty by a deletion while
    // another upload is about to write in it, and crashes; bench/migrer.ts works around it in the server's process).
    const fin = await run(args('--parallele', '1'), env, { ecrire });
    expect(fin.code, fin.out).toBe(0);
    const lignes = fin.out.split('\n');
    expect(lignes[0]).toMatch(/^Migration terminée en .* s \(reprise d’une migration interrompue\) : .*ancien → postgres:\/\/.*, fichiers dans le bucket S3 « quartier-vivant »\.$/u);
    expect(lignes).toContain(`  housing_requests : ${avant.housing_requests} → ${avant.housing_requests}`);
    expect(lignes).toContain(`  documents : ${avant.documents} → ${avant.documents}`);
    const fichiers = avant.documents! + avant.signalement_photos! + 1;
    expect(fin.out).toContain(`Fichiers référencés par la base : ${fichiers} ; ${fichiers - 3} copiés, 3 déjà présents ; ${fichiers} vérifiés (SHA-256 relu dans la cible) ; 0 problème.`);
    expect(fin.out).toContain('Sessions : 2 sessions copiées ; elles restent ouvertes');
    expect(fin.out).toMatch(/Tout est copié et vérifié/u);
    expect(progression[0]).toMatch(/^Migration de .*ancien vers postgres:\/\/.* et le bucket S3 « quartier-vivant »\.$/u);
    expect(progression).toContain(`Fichiers : ${fichiers} à copier ou vérifier…`);

    // Every table of both databases, row for row; the derived ones kept as the app's triggers keep them.
    const apres = await lignesPg(cible.url);
    const communes = Object.keys(avant).filter((t) => t in apres && !NON_COPIEES.has(t));
    expect(communes.length).toBeGreaterThan(25);
    for (const table of communes) expect(apres[table], table).toBe(avant[table]);
    const resumees = lignes.filter((l) => /^ {2}\w+ : /u.test(l)).map((l) => l.trim().split(' ')[0]);
    expect(resumees.sort()).toEqual(communes.sort());
    const [total] = await requetePg<{ n: string }>(cible.url, 'select n from housing_requests_total');
    expect(Number(total!.n)).toBe(avant.housing_requests! - 1);
    const [totalSignalements] = await requetePg<{ n: string }>(cible.url, 'select n from signalements_total');
    expect(Number(totalSignalements!.n)).toBe(avant.signalements);
    // Converted to PostgreSQL's types: booleans, dates.
    const [habitant] = await requetePg<{ email_verified: boolean; created_at: Date }>(cible.url, 'select email_verified, created_at from "user" where id = $1', [faits.habitant.uid]);
    expect(habitant!.email_verified).toBe(true);
    expect(habitant!.created_at).toBeInstanceOf(Date);
    // The seeded categories are the source's: one removed, one with its service's address.
    const categories = await requetePg<{ code: string; email_service: string | null }>(cible.url, 'select code, email_service from signalement_categories order by code');
    expect(categories.map((c) => c.code)).not.toContain('mobilier-urbain');
    expect(categories.find((c) => c.code === 'eclairage')?.email_service).toBe('eclairage@mairie.example');
    const marque = await requetePg<{ nom: string; derniere_fin: string | null }>(cible.url, "select nom, derniere_fin from taches where nom like 'migration-donnees:%'");
    expect(marque).toHaveLength(1);
    expect(marque[0]!.derniere_fin).not.toBeNull();

    // Every file in the bucket under its prefix, byte for byte (documents against their recorded SHA-256), and nothing else.
    const sqlite = new SqliteDatabase(path.join(source, 'app.db'), { readonly: true });
    const documents = sqlite.prepare('select storage_key, sha256 from documents').all() as { storage_key: string; sha256: string }[];
    const photos = sqlite.prepare('select storage_key from signalement_photos').all() as { storage_key: string }[];
    sqlite.close();
    const objet = async (key: string) => Buffer.from(await (await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }))).Body!.transformToByteArray());
    for (const d of documents) expect(sha256(await objet(`uploads/${d.storage_key}`)), d.storage_key).toBe(d.sha256);
    for (const p of photos) expect((await objet(`photos-signalements/${p.storage_key}`)).equals(fs.readFileSync(path.join(source, 'photos-signalements', p.storage_key)))).toBe(true);
    const attendus = [
      ...documents.map((d) => `uploads/${d.storage_key}`),
      ...photos.map((p) => `photos-signalements/${p.storage_key}`),
      ...fs.readdirSync(path.join(source, 'uploads', 'avatars', faits.habitant.uid)).map((f) => `uploads/avatars/${faits.habitant.uid}/${f}`),
    ].sort();
    expect(await s3.objets()).toEqual(attendus);

    // 4. Once more: nothing copied again, everything verified again.
    const encore = await run(args(), env, { ecrire });
    expect(encore.code, encore.out).toBe(0);
    expect(encore.out).toContain(`0 copié, ${fichiers} déjà présents ; ${fichiers} vérifiés`);
    expect(await lignesPg(cible.url)).toEqual(apres);
    expect(await s3.objets()).toEqual(attendus);
  });

  it('leaves a target the app serves as if it had filled it: documents, sessions, sign-in, search, numbers that continue', async () => {
    const nouveau = await demarrer(env.DATA_DIR!, cible.url, { ...s3.env, AUTH_SECRET: secret });
    try {
      // The request and its documents, read through S3 with its private link.
      const vue = await nouveau.appel({ method: 'GET', url: `/app/api/logement/${faits.demande.numero}`, headers: { 'x-access-key': faits.demande.cle } });
      expect(vue.statusCode, vue.body).toBe(200);
      const data = vue.json().data as { statutDeLaDemande: string; documents: Record<string, { id: string; name: string }[]> };
      expect(data.statutDeLaDemande).toBe('En cours de traitement');
      expect(Object.keys(data.documents).filter((k) => data.documents[k]!.length > 0).sort()).toEqual(['identity', 'livret', 'salary', 'tax']);
      const bulletin = data.documents.salary![0]!;
      const lu = await nouveau.appel({ method: 'GET', url: `/app/api/logement/${faits.demande.numero}/documents/${bulletin.id}`, headers: { 'x-access-key': faits.demande.cle } });
      expect(lu.statusCode).toBe(200);
      expect(lu.rawPayload.equals(SAMPLES.jpeg)).toBe(true);

      // The session opened on the old server is still open (same AUTH_SECRET); the password still signs in.
      const moi = await nouveau.appel({ method: 'GET', url: '/app/api/user/me', headers: { cookie: faits.habitant.cookie } });
      expect(moi.statusCode, moi.body).toBe(200);
      const avatar = await nouveau.appel({ method: 'GET', url: `/app/api/user/pic/${faits.habitant.uid}`, headers: { cookie: faits.habitant.cookie } });
      expect(avatar.statusCode).toBe(200);
      expect(avatar.rawPayload.equals(faits.avatar)).toBe(true);
      const connexion = await nouveau.appel({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email: faits.admin.email, password: MOT_DE_PASSE } });
      expect(connexion.statusCode, connexion.body).toBe(200);
      const admin = { cookie: cookieDe(connexion) };

      // The managers' search finds migrated rows; the whole list's total comes from the rebuilt counter.
      const trouvees = await nouveau.appel({ method: 'GET', url: `/app/api/logement?q=${faits.nomCherche.slice(0, 8).toLowerCase()}`, headers: admin });
      expect(trouvees.statusCode, trouvees.body).toBe(200);
      expect((trouvees.json().data as { numeroUnique: string }[]).map((d) => d.numeroUnique)).toEqual([faits.demande.numero]);
      // A label and a search together (PostgreSQL reads the labels each request's row carries: filled as the rows came).
      const etiquetees = await nouveau.appel({ method: 'GET', url: `/app/api/logement?etiquette=${faits.etiquette}&q=${faits.nomCherche.slice(0, 8).toLowerCase()}`, headers: admin });
      expect((etiquetees.json().data as { numeroUnique: string }[]).map((d) => d.numeroUnique)).toEqual([faits.demande.numero]);
      const tout = await nouveau.appel({ method: 'GET', url: '/app/api/logement', headers: admin });
      expect(tout.json().total).toBe(8);
      const rapports = await nouveau.appel({ method: 'GET', url: '/app/api/technique/gestion/signalements?q=penche', headers: admin });
      expect(rapports.statusCode, rapports.body).toBe(200);
      expect((rapports.json().data as unknown[]).length).toBe(2);

      // New rows: a request (the total follows), a report numbered after the migrated ones, through the migrated Open311 key.
      await deposer(nouveau, 'Nouvelle', [{ field: 'livret', name: 'livret.pdf', content: pdf('nouvelle') }]);
      expect((await nouveau.appel({ method: 'GET', url: '/app/api/logement', headers: admin })).json().total).toBe(9);
      const [annee, numero] = faits.dernierSignalement.split('-');
      const suivant = await nouveau.appel({
        method: 'POST',
        url: '/open311/v2/requests.json',
        payload: { api_key: faits.apiKey, service_code: 'voirie', lat: CENTRE.lat, long: CENTRE.lon, address_string: 'Avenue Marcel-Pagnol', email: 'open311@example.org', description: 'Encore un trou' },
      });
      expect(suivant.statusCode, suivant.body).toBe(200);
      expect(suivant.json()[0].service_request_id).toBe(`${annee}-${String(Number(numero) + 1).padStart(numero!.length, '0')}`);
      expect(await signaler(nouveau, 1)).toBe(`${annee}-${String(Number(numero) + 2).padStart(numero!.length, '0')}`);
      // The erased request is still left out.
      expect((await nouveau.appel({ method: 'GET', url: `/app/api/logement/${faits.retiree}` })).statusCode).toBe(404);
    } finally {
      await nouveau.close();
    }
  });

  it('refuses a source changed since the first run, another installation, and a target holding data of its own', async () => {
    // The old server started again and given a new request after the migration began.
    const redemarre = await demarrer(source, undefined);
    await deposer(redemarre, 'Tardive', []);
    await redemarre.close();
    const change = await run(args(), env);
    expect(change.code).toBe(3);
    expect(change.out).toMatch(/^La base source a changé depuis la première passe de cette migration .* Videz la base cible/u);

    // Another installation into the same target.
    const autre = path.join(work, 'autre');
    const autreApp = await demarrer(autre, undefined);
    await deposer(autreApp, 'Ailleurs', []);
    await autreApp.close();
    const ailleurs = await run(['--from', autre, '--to', cible.url], env);
    expect(ailleurs.code).toBe(3);
    expect(ailleurs.out).toMatch(/^La base cible contient déjà les données d’une autre installation/u);

    // A target where the app already served (no marker): refused, named by what it holds.
    const servie = await freshDatabaseUrl('qv_migrer_servie');
    drops.push(servie.drop);
    const app = await demarrer(path.join(work, 'servie'), servie.url);
    await compte(app, 'habitant', 'Léa');
    await app.close();
    const remplie = await run(['--from', autre, '--to', servie.url!], env);
    expect(remplie.code).toBe(3);
    expect(remplie.out).toMatch(/^La base cible contient déjà 1 compte, qui ne viennent pas de cette source/u);
  });

  it('names a damaged or missing file (no personal data), copies everything else, exits 4; once fixed, a re-run ends at 0 (STORAGE=disk target)', async () => {
    // A copy of the old installation whose disk lost a photo and damaged a document; another folder as target.
    const abime = path.join(work, 'abime');
    fs.cpSync(source, abime, { recursive: true });
    const sqlite = new SqliteDatabase(path.join(abime, 'app.db'), { readonly: true });
    const doc = sqlite.prepare('select storage_key, sha256 from documents order by storage_key limit 1').get() as { storage_key: string; sha256: string };
    const photo = sqlite.prepare('select storage_key from signalement_photos order by storage_key limit 1').get() as { storage_key: string };
    const references = (sqlite.prepare('select (select count(*) from documents) + (select count(*) from signalement_photos) as n').get() as { n: number }).n + 1;
    sqlite.close();
    const fichierDoc = path.join(abime, 'uploads', doc.storage_key);
    const fichierPhoto = path.join(abime, 'photos-signalements', photo.storage_key);
    const bonDoc = fs.readFileSync(fichierDoc);
    const bonnePhoto = fs.readFileSync(fichierPhoto);
    fs.writeFileSync(fichierDoc, randomBytes(bonDoc.length));
    fs.rmSync(fichierPhoto);
    fs.mkdirSync(path.join(abime, 'photos-signalements', 'reste'), { recursive: true });
    fs.writeFileSync(path.join(abime, 'photos-signalements', 'reste', 'orphelin.jpg'), SAMPLES.jpeg);
    // The target folder already holds a wrong profile picture under the right key (an earlier copy by hand).
    const disque = path.join(work, 'disque');
    const avatars = fs.readdirSync(path.join(abime, 'uploads', 'avatars', faits.habitant.uid));
    const cleAvatar = path.join('avatars', faits.habitant.uid, avatars[0]!);
    fs.mkdirSync(path.dirname(path.join(disque, 'uploads', cleAvatar)), { recursive: true });
    fs.writeFileSync(path.join(disque, 'uploads', cleAvatar), 'pas la bonne photo');
    fs.mkdirSync(path.join(disque, 'photos-signalements', 'ailleurs'), { recursive: true });
    fs.writeFileSync(path.join(disque, 'photos-signalements', 'ailleurs', 'autre.jpg'), SAMPLES.jpeg);

    const base = await freshDatabaseUrl('qv_migrer_disque');
    drops.push(base.drop);
    const envDisque = { DATA_DIR: disque, STORAGE: 'disk', LOG_LEVEL: 'silent' };
    const avecProblemes = await run(['--from', abime, '--to', base.url!], envDisque, { ecrire: () => {} });
    expect(avecProblemes.code, avecProblemes.out).toBe(4);
    expect(avecProblemes.alerte).toBe(true);
    const lignes = avecProblemes.out.split('\n');
    expect(lignes[0]).toMatch(/^Migration allée au bout, avec des problèmes en .* fichiers dans le dossier .*disque\.$/u);
    expect(avecProblemes.out).toContain(`Fichiers référencés par la base : ${references} ; ${references - 1} copiés, 0 déjà présent ; ${references - 2} vérifiés (SHA-256 relu dans la cible) ; 2 problèmes.`);
    const [demandeId, documentId] = doc.storage_key.split('/');
    expect(lignes).toContain(`  uploads/${demandeId}/${documentId}/… : copié, mais son contenu n’est plus celui que la base a enregistré à son dépôt (somme SHA-256 ou taille) : le disque de la source l’a abîmé`);
    expect(lignes).toContain(`  photos-signalements/${photo.storage_key} : absent du disque de la source`);
    expect(avecProblemes.out).toContain('1 fichier de la source qu’aucune ligne ne désigne (restes d’envois interrompus, anciennes photos) n’a pas été copié : photos-signalements/reste/orphelin.jpg.');
    expect(avecProblemes.out).toContain('1 fichier du stockage cible qu’aucune ligne de la source ne désigne y est resté');
    expect(avecProblemes.out).toMatch(/le secret de cette configuration n’est pas celui de l’ancien serveur : avec lui, chacun devra se reconnecter/u);
    // No document's original name in the summary (it may be personal).
    expect(avecProblemes.out).not.toMatch(/piece-|livret-de-famille|avis-impot/u);
    // Everything else copied: every row, the profile picture replaced by the right one, the damaged document as it was.
    const dansLaSource = await lignesSqlite(abime);
    const dansLaCible = await lignesPg(base.url!);
    for (const table of Object.keys(dansLaSource).filter((t) => t in dansLaCible && !NON_COPIEES.has(t))) expect(dansLaCible[table], table).toBe(dansLaSource[table]);
    expect(fs.readFileSync(path.join(disque, 'uploads', cleAvatar)).equals(fs.readFileSync(path.join(abime, 'uploads', cleAvatar)))).toBe(true);
    expect(fs.existsSync(path.join(disque, 'photos-signalements', 'reste'))).toBe(false);
    expect((await requetePg<{ derniere_fin: string | null }>(base.url!, "select derniere_fin from taches where nom like 'migration-donnees:%'"))[0]!.derniere_fin).toBeNull();

    // Fixed from another copy of the files: the same command ends at 0, copying only what was wrong.
    fs.writeFileSync(fichierDoc, bonDoc);
    fs.writeFileSync(fichierPhoto, bonnePhoto);
    const reparee = await run(['--from', abime, '--to', base.url!], envDisque, { ecrire: () => {} });
    expect(reparee.code, reparee.out).toBe(0);
    expect(reparee.out).toContain(`Fichiers référencés par la base : ${references} ; 2 copiés, ${references - 2} déjà présents ; ${references} vérifiés (SHA-256 relu dans la cible) ; 0 problème.`);
    expect(sha256(fs.readFileSync(path.join(disque, 'uploads', doc.storage_key)))).toBe(doc.sha256);
  });

  it('knows every table: PostgreSQL-only ones rebuilt, seeded ones replaced, foreign keys in order', async () => {
    for (const [table, { seulement }] of Object.entries(TABLES)) {
      if (seulement === 'postgres') expect(RECONSTRUITES[table], `${table}: add how to rebuild it to RECONSTRUITES`).toBeDefined();
    }
    // What a fresh target holds once migrated: only the seeded tables have rows (else add the table to SEMEES).
    const neuve = await freshDatabaseUrl('qv_migrer_neuve');
    drops.push(neuve.drop);
    const { db } = openDatabase({ databaseUrl: neuve.url, dataDir: work });
    await migrate(db);
    await db.destroy();
    const remplies = Object.entries(await lignesPg(neuve.url!)).filter(([t, n]) => n > 0 && !NON_COPIEES.has(t) && !(t in RECONSTRUITES));
    expect(remplies.map(([t]) => t).sort()).toEqual([...SEMEES].sort());
    // Parents before children.
    expect(ordreDesTables(['documents', 'signalements', 'user', 'housing_requests', 'open311_cles'], [['documents', 'housing_requests'], ['housing_requests', 'user'], ['signalements', 'open311_cles']])).toEqual(
      ['user', 'housing_requests', 'documents', 'open311_cles', 'signalements'],
    );
    expect(() => ordreDesTables(['a', 'b'], [['a', 'b'], ['b', 'a']])).toThrow(/cycle/u);
  });
});
