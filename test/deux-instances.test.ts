// Two instances of the app on one PostgreSQL database, one Redis and one S3 server (issue 15 point 2;
// docs/operations.md « Plusieurs instances »): whatever a person or a manager does through one instance, the other
// sees — the session, the documents, the rate-limit counts, the live events, the bulk actions' progress — the
// outbox and the daily job work once between them, and an instance killed in the middle of things loses nothing the
// other acknowledged. Runs on CI's PostgreSQL pass, when Redis answers (REDIS_URL, else 127.0.0.1:6379); on SQLite
// one process serves everything, so it is skipped.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type AppOptions } from '../src/server/app.js';
import { loadConfig, type Config } from '../src/server/config.js';
import { openDatabase } from '../src/server/db/index.js';
import { RedisBus } from '../src/server/events/index.js';
import { CLAIM_TIMEOUT_MS, createMailer } from '../src/server/mail/index.js';
import { freshDatabaseUrl, surPostgres } from './db.js';
import { demande, multipart, SAMPLES, surUnPort } from './helpers.js';
import { demarrerS3, type ServeurS3 } from './s3.js';
import { effacerCles, REDIS_URL, redisRepond } from './redis.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ORIGIN = 'http://quartier.test';
const MESSAGE_429 = 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.';

const actif = surPostgres && (await redisRepond(REDIS_URL));

/** The log lines (JSON) both in-process instances write at level info. */
const lignes: string[] = [];
const journal = { level: 'info', stream: { write: (ligne: string) => void lignes.push(ligne) } };
const messagesDuJournal = () => lignes.map((l) => JSON.parse(l) as { msg?: string; level: number });

const prefixe = `qv-test-${randomBytes(4).toString('hex')}:`;
let database: Awaited<ReturnType<typeof freshDatabaseUrl>>;
let dataDir: string;
/** The documents' and photos' bucket (s3rver on loopback); DATA_DIR stays shared for the e-mails written as files. */
let s3: ServeurS3;
let config: Config;
let A: FastifyInstance;
let B: FastifyInstance;
let urlA: string;
let urlB: string;
/** The addresses whose requests the daily job must remind, seeded before A and B start. */
const aRappeler: string[] = [];

const options = (): AppOptions => ({
  logger: journal,
  // Off but the ones tested here: the address suggestions (per IP, @fastify/rate-limit) and sign-in (better-auth).
  rateLimits: { create: false, upload: false, inscription: false, renvoiLien: false, renvoiLienNumero: false, adresses: { max: 4, timeWindow: '1 minute' }, auth: { window: 60, max: 3 } },
});

const listen = async (app: FastifyInstance) => {
  return (await surUnPort(app)).base;
};

interface MailRecu {
  to: string;
  sujet: string;
  corps: string;
}

/** A header's encoded words (RFC 2047, UTF-8, Q or B) decoded. */
function decoderEntete(valeur: string): string {
  return valeur.replace(/=\?utf-8\?([qb])\?([^?]*)\?=\s*/giu, (_tout, codage: string, texte: string) =>
    codage.toLowerCase() === 'b'
      ? Buffer.from(texte, 'base64').toString('utf8')
      : Buffer.from(texte.replace(/_/gu, ' ').replace(/=([0-9a-f]{2})/giu, (_q, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'),
  );
}

/** The `.eml` files written so far (DATA_DIR/mail, shared by the instances; temp stubs left out): recipient, subject, text. */
async function mails(): Promise<MailRecu[]> {
  const dir = path.join(dataDir, 'mail');
  const names = (await fsp.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml') && !f.startsWith('.'));
  return Promise.all(
    names.map(async (f) => {
      const brut = await fsp.readFile(path.join(dir, f), 'utf8');
      const fin = brut.search(/\r?\n\r?\n/u);
      const entetes = brut.slice(0, fin).replace(/\r?\n[ \t]+/gu, ' ');
      const entete = (nom: string) => decoderEntete(new RegExp(`^${nom}: (.*)$`, 'imu').exec(entetes)?.[1] ?? '');
      const corps = Buffer.from(
        brut
          .slice(fin)
          .replace(/=\r?\n/gu, '')
          .replace(/=([0-9A-F]{2})/gu, (_q, h: string) => String.fromCharCode(parseInt(h, 16))),
        'latin1',
      ).toString('utf8');
      return { to: entete('To'), sujet: entete('Subject'), corps };
    }),
  );
}
const mailsA = async (email: string) => (await mails()).filter((m) => m.to === email);

/** Waits for `condition`, 20 s at most. */
async function attendre<T>(lire: () => Promise<T>, condition: (valeur: T) => boolean, quoi: string): Promise<T> {
  const fin = Date.now() + 20_000;
  for (;;) {
    const valeur = await lire();
    if (condition(valeur)) return valeur;
    if (Date.now() > fin) throw new Error(`${quoi} : toujours pas au bout de 20 s (${JSON.stringify(valeur)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A sign-in through `url` (over HTTP, as a browser). */
async function connexion(url: string, email: string, password: string): Promise<Response> {
  return fetch(`${url}/app/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN }, body: JSON.stringify({ email, password }) });
}
const cookieDe = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .filter((c) => c.startsWith('qv.session_token=') && !c.endsWith('='))
    .join('; ');

const PASSWORD = 'une phrase de passe assez longue';
let nComptes = 0;
/** An account made through `app` (sign-up), with a role. */
async function compte(app: FastifyInstance, role: 'habitant' | 'manager'): Promise<{ email: string; uid: string }> {
  nComptes += 1;
  const email = `deux${nComptes}.${randomBytes(3).toString('hex')}@example.org`;
  const res = await app.inject({
    method: 'POST',
    url: '/app/api/user/inscription',
    headers: { origin: ORIGIN },
    payload: { nom: 'Agent', prenom: `Deux${nComptes}`, birthday: '1980-01-01', residence: 'Mairie', rue: 'Avenue Marcel-Pagnol', email, password: PASSWORD },
  });
  if (res.statusCode !== 201) throw new Error(`sign-up failed: ${res.body}`);
  await app.deps.db.updateTable('user').set({ userType: role, emailVerified: 1 }).where('email', '=', email).execute();
  return { email, uid: res.json().data.uid as string };
}

beforeAll(async () => {
  if (!actif) return;
  database = await freshDatabaseUrl('qv_deux');
  dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-deux-'));
  s3 = await demarrerS3();
  config = loadConfig(
    { DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: ORIGIN, ADRESSE_API_URL: 'http://127.0.0.1:9/search/', REDIS_URL, REDIS_PREFIX: prefixe, ...s3.env },
    { databaseUrl: database.url, delaiAnnulationMs: 0 },
  );
  // Requests due for their 30-day reminder, made before both instances start; the job is made due again.
  const graine = await buildApp(config, { logger: false, rateLimits: { create: false } });
  for (let i = 0; i < 3; i++) {
    const email = `rappel${i}.${randomBytes(3).toString('hex')}@example.org`;
    const res = await graine.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ email }) });
    expect(res.statusCode, res.body).toBe(201);
    aRappeler.push(email);
  }
  await graine.deps.db.updateTable('housingRequests').set({ valideJusqua: new Date(Date.now() + 20 * 86_400_000).toISOString() }).execute();
  await graine.close();
  const { db } = openDatabase({ databaseUrl: database.url, dataDir });
  await db.updateTable('taches').set({ bailJusqua: '', derniereFin: null }).execute();
  await db.destroy();
  // Both start at once: each one's scheduler looks at once whether the daily job is due.
  [A, B] = await Promise.all([buildApp(config, options()), buildApp(config, options())]);
  [urlA, urlB] = await Promise.all([listen(A), listen(B)]);
}, 60_000);

afterAll(async () => {
  if (!actif) return;
  await Promise.all([A?.close(), B?.close()]);
  // This run's keys only (REDIS_PREFIX): the rate-limit counters.
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  redis.on('error', () => undefined);
  await redis.connect();
  await effacerCles(redis, prefixe);
  redis.disconnect();
  await database.drop();
  await s3.close();
  await fsp.rm(dataDir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!actif)('two instances on one PostgreSQL, one Redis and one S3 server', () => {
  it('run the daily job once between them, and send each of its e-mails once', async () => {
    const db = A.deps.db;
    await attendre(() => db.selectFrom('taches').select(['derniereFin', 'bailJusqua']).where('nom', '=', 'cycle-de-vie').executeTakeFirstOrThrow(), (t) => t.derniereFin !== null && t.bailJusqua === '', 'la tâche quotidienne');
    await Promise.all([A.deps.mailer.idle(), B.deps.mailer.idle()]);
    const passes = messagesDuJournal().filter((l) => l.msg === 'cycle de vie des demandes : tâche quotidienne passée');
    expect(passes).toHaveLength(1);
    for (const email of aRappeler) expect((await mailsA(email)).filter((m) => m.sujet.startsWith('Renouvelez'))).toHaveLength(1);
  });

  it('share the live events, the rate limits and the readiness check through Redis', async () => {
    expect(A.deps.bus).toBeInstanceOf(RedisBus);
    expect(B.deps.bus).toBeInstanceOf(RedisBus);
    const readyz = await fetch(`${urlA}/readyz`);
    expect(readyz.status).toBe(200);
    expect(((await readyz.json()) as { verifications: Record<string, string> }).verifications).toMatchObject({ redis: 'ok', base: 'ok' });
  });

  it('let a person sign in on one and act with that session on the other, and sign out there for both', async () => {
    const { email } = await compte(A, 'habitant');
    const res = await connexion(urlA, email, PASSWORD);
    expect(res.status).toBe(200);
    const cookie = cookieDe(res);
    const moi = await fetch(`${urlB}/app/api/user/me`, { headers: { cookie } });
    expect(moi.status).toBe(200);
    expect(((await moi.json()) as { data: { email: string } }).data.email).toBe(email);
    const profil = await fetch(`${urlB}/app/api/user/me`, { method: 'PATCH', headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify({ prenom: 'Mireille' }) });
    expect(profil.status, await profil.text()).toBe(200);
    expect(((await (await fetch(`${urlA}/app/api/user/me`, { headers: { cookie } })).json()) as { data: { prenom: string } }).data.prenom).toBe('Mireille');
    const sortie = await fetch(`${urlB}/app/api/auth/sign-out`, { method: 'POST', headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' }, body: '{}' });
    expect(sortie.status).toBe(200);
    expect((await fetch(`${urlA}/app/api/user/me`, { headers: { cookie } })).status).toBe(401);
  });

  it('serve on one the documents sent through the other', async () => {
    const creee = await fetch(`${urlA}/app/api/logement`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demande()) });
    expect(creee.status).toBe(201);
    const { numeroUnique, accessKey } = ((await creee.json()) as { data: { numeroUnique: string; accessKey: string } }).data;
    const pdf = Buffer.concat([SAMPLES.pdf, Buffer.from(`% ${randomBytes(8).toString('hex')}\n`)]);
    const form = await multipart([
      { field: 'identity', name: 'carte.png', content: SAMPLES.png, type: 'image/png' },
      { field: 'tax', name: 'avis.pdf', content: pdf, type: 'application/pdf' },
    ]);
    const envoi = await fetch(`${urlA}/app/api/logement/upload-files/${numeroUnique}`, { method: 'POST', headers: { ...form.headers, 'x-access-key': accessKey }, body: new Uint8Array(form.payload) });
    expect(envoi.status, await envoi.clone().text()).toBe(201);
    const vue = await fetch(`${urlB}/app/api/logement/${numeroUnique}`, { headers: { 'x-access-key': accessKey } });
    const documents = ((await vue.json()) as { data: { documents: Record<string, { fileUrl: string; name: string }[]> } }).data.documents;
    expect(documents.identity!.map((d) => d.name)).toEqual(['carte.png']);
    const [png, avis] = await Promise.all(
      [documents.identity![0]!, documents.tax![0]!].map(async (d) => {
        const r = await fetch(`${urlB}${d.fileUrl}`, { headers: { 'x-access-key': accessKey } });
        expect(r.status).toBe(200);
        return Buffer.from(await r.arrayBuffer());
      }),
    );
    expect(png!.equals(SAMPLES.png)).toBe(true);
    expect(avis!.equals(pdf)).toBe(true);
    // In the bucket, not on either instance's disk.
    const row = await A.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow();
    expect((await s3.objets(`uploads/${row.id}/`)).length).toBe(2);
    await expect(fsp.readdir(path.join(dataDir, 'uploads', row.id))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('count a rate limit across both, and answer the 429 in French on either', async () => {
    const adresses = (app: FastifyInstance) => app.inject({ method: 'GET', url: '/app/api/adresses?q=avenue', remoteAddress: '192.0.2.7' });
    const codes = [];
    for (const app of [A, B, A, B, A, B]) codes.push((await adresses(app)).statusCode);
    expect(codes).toEqual([200, 200, 200, 200, 429, 429]);
    const refus = await adresses(B);
    expect(refus.json().error).toEqual({ code: 'RATE_LIMITED', message: MESSAGE_429 });
    // Another address is counted on its own.
    expect((await A.inject({ method: 'GET', url: '/app/api/adresses?q=avenue', remoteAddress: '192.0.2.8' })).statusCode).toBe(200);
    // The counter is Redis's, under this run's prefix.
    const redis = new Redis(REDIS_URL);
    try {
      expect((await redis.keys(`${prefixe}limites:*`)).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
    // better-auth's sign-in limit (in the database) too: 3 a minute per address, whichever instance is asked.
    const signIn = (app: FastifyInstance) =>
      app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', remoteAddress: '192.0.2.9', headers: { origin: ORIGIN }, payload: { email: 'personne@example.org', password: 'pas le bon mot de passe' } });
    const tentatives = [];
    for (const app of [A, B, A, B]) tentatives.push(await signIn(app));
    expect(tentatives.map((r) => r.statusCode)).toEqual([401, 401, 401, 429]);
    expect(tentatives[3]!.json().error.message).toBe(MESSAGE_429);
  });

  it('bring a status change made on one to a live stream opened on the other', async () => {
    const gestionnaire = await compte(B, 'manager');
    const cookie = cookieDe(await connexion(urlA, gestionnaire.email, PASSWORD));
    const numero = `013deux${randomBytes(3).toString('hex')}`;
    expect((await B.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: numero }) })).statusCode).toBe(201);
    // What crosses Redis, heard by a subscriber of this run's channel.
    const ecoute = new Redis(REDIS_URL);
    const entendus: string[] = [];
    ecoute.on('message', (_canal: string, message: string) => entendus.push(message));
    await ecoute.subscribe(`${prefixe}statut`);
    const controleur = new AbortController();
    try {
      // Bounded: an event that never comes fails the test instead of holding it.
      const flux = await fetch(`${urlB}/app/api/evenements`, { headers: { cookie }, signal: AbortSignal.any([controleur.signal, AbortSignal.timeout(10_000)]) });
      expect(flux.status).toBe(200);
      const lecteur = flux.body!.getReader();
      let texte = '';
      while (!texte.includes('retry:')) texte += new TextDecoder().decode((await lecteur.read()).value);
      const change = await fetch(`${urlA}/app/api/logement/update/status`, {
        method: 'POST',
        headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ logementId: numero, newStatus: 'Passage CAL' }),
      });
      expect(change.status).toBe(200);
      while (!texte.includes('event: statut')) texte += new TextDecoder().decode((await lecteur.read()).value);
      expect(JSON.parse(/data: (.*)\n/u.exec(texte.slice(texte.indexOf('event: statut')))![1]!)).toMatchObject({ numeroUnique: numero, statutDeLaDemande: 'Passage CAL' });
      expect(entendus.map((m) => JSON.parse(m) as { numeroUnique: string }).map((e) => e.numeroUnique)).toContain(numero);
    } finally {
      controleur.abort();
      ecoute.disconnect();
    }
  });

  it('show a bulk action’s progress through either, and refuse a second one on the other', async () => {
    const gestionnaire = await compte(A, 'manager');
    const cookie = cookieDe(await connexion(urlA, gestionnaire.email, PASSWORD));
    const numeros = Array.from({ length: 5 }, (_, i) => `013lotdeux${i}${randomBytes(2).toString('hex')}`);
    for (const n of numeros) expect((await A.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: n }) })).statusCode).toBe(201);
    const lance = await fetch(`${urlA}/app/api/lots`, {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ selection: { mode: 'numeros', numeros }, action: { type: 'suivre' } }),
    });
    expect(lance.status).toBe(202);
    const { id } = ((await lance.json()) as { data: { id: string } }).data;
    const etat = await attendre(
      async () => ((await (await fetch(`${urlB}/app/api/lots/${id}`, { headers: { cookie } })).json()) as { data: { fini: boolean } }).data,
      (e) => e.fini,
      'le lot',
    );
    expect(etat).toEqual({ id, total: 5, faits: 5, inchanges: 0, completes: 0, echecs: 0, fini: true });
    // While one runs (its lease held), the other instance refuses a second one to the same manager.
    await A.deps.db.updateTable('lots').set({ fini: 0, bailJusqua: new Date(Date.now() + 60_000).toISOString() }).where('id', '=', id).execute();
    const second = await fetch(`${urlB}/app/api/lots`, {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ selection: { mode: 'numeros', numeros }, action: { type: 'suivre' } }),
    });
    expect(second.status).toBe(409);
    await A.deps.db.updateTable('lots').set({ fini: 1 }).where('id', '=', id).execute();
  });

  it('send each queued e-mail once, however many instances deliver at the same time', async () => {
    const lot = randomBytes(3).toString('hex');
    const maintenant = new Date().toISOString();
    const lignesDeFile = Array.from({ length: 80 }, (_, i) => ({
      id: crypto.randomUUID(),
      key: null,
      recipient: `file${i}.${lot}@example.org`,
      subject: `Essai ${i}`,
      body: `Message ${i}`,
      createdAt: maintenant,
      sendAfter: maintenant,
      attempts: 0,
      housingRequestId: null,
      piecesJointes: null,
    }));
    // A and B, and the outbox loops of six more instances (each on its own connections), all claiming at once.
    const autres = Array.from({ length: 6 }, () => {
      const { db } = openDatabase({ databaseUrl: database.url, dataDir });
      return { db, mailer: createMailer({ smtpUrl: undefined, mailDir: path.join(dataDir, 'mail'), from: config.mailFrom, log: A.log, outbox: { db, kind: 'postgres', pollMs: 60_000 } }) };
    });
    try {
      await A.deps.db.insertInto('mailOutbox').values(lignesDeFile).execute();
      await Promise.all([A.deps.mailer.idle(), B.deps.mailer.idle(), ...autres.map((a) => a.mailer.idle())]);
    } finally {
      for (const a of autres) {
        await a.mailer.close();
        await a.db.destroy();
      }
    }
    const recus = (await mails()).filter((m) => m.to.endsWith(`.${lot}@example.org`));
    const parDestinataire = new Map<string, number>();
    for (const m of recus) parDestinataire.set(m.to, (parDestinataire.get(m.to) ?? 0) + 1);
    expect(parDestinataire.size).toBe(80);
    expect([...parDestinataire.values()].every((n) => n === 1)).toBe(true);
    const envoyees = await A.deps.db.selectFrom('mailOutbox').select('id').where('recipient', 'like', `%.${lot}@example.org`).where('sentAt', 'is not', null).execute();
    expect(envoyees).toHaveLength(80);
  });

  it('lose nothing the other acknowledged when one is killed in the middle of a bulk action and of sending e-mails', { timeout: 120_000 }, async () => {
    // A third instance, in its own process (the server as `npm start` runs it): the one that is killed.
    const tuee = await demarrer();
    try {
      const gestionnaire = await compte(B, 'manager');
      const cookie = cookieDe(await connexion(tuee.url, gestionnaire.email, PASSWORD));
      expect(cookie).not.toBe('');
      const numeros = Array.from({ length: 60 }, (_, i) => `013tue${String(i).padStart(3, '0')}${randomBytes(2).toString('hex')}`);
      for (let i = 0; i < numeros.length; i += 20) {
        await Promise.all(numeros.slice(i, i + 20).map(async (n) => expect((await B.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: n, email: `${n}@example.org` }) })).statusCode).toBe(201)));
      }
      const lance = await fetch(`${tuee.url}/app/api/lots`, {
        method: 'POST',
        headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ selection: { mode: 'numeros', numeros }, action: { type: 'statut', statut: 'Passage CAL' } }),
      });
      expect(lance.status).toBe(202);
      const { id } = ((await lance.json()) as { data: { id: string } }).data;
      // Meanwhile B takes new requests; the killed instance's outbox loop may be claiming their e-mails.
      const acquittees: string[] = [];
      let arret = false;
      const charge = (async () => {
        for (let i = 0; !arret; i++) {
          const n = `013ack${String(i).padStart(4, '0')}${randomBytes(2).toString('hex')}`;
          const res = await B.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: n, email: `${n}@example.org` }) });
          if (res.statusCode === 201) acquittees.push(n);
        }
      })();
      // Killed once the action is under way, not done.
      const avant = await attendre(
        async () => ((await (await fetch(`${urlB}/app/api/lots/${id}`, { headers: { cookie } })).json()) as { data: { faits: number } }).data,
        (e) => e.faits >= 3,
        'le lot sur l’instance tuée',
      );
      tuee.child.kill('SIGKILL');
      await new Promise<void>((r) => (tuee.child.exitCode !== null || tuee.child.signalCode !== null ? r() : tuee.child.once('exit', () => r())));
      const mort = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 300));
      arret = true;
      await charge;
      expect(avant.faits).toBeLessThan(numeros.length);
      expect(acquittees.length).toBeGreaterThan(0);

      const db = B.deps.db;
      // Every request B acknowledged is there.
      const presentes = new Set((await db.selectFrom('housingRequests').select('numeroUnique').where('numeroUnique', 'in', acquittees).execute()).map((r) => r.numeroUnique));
      expect(acquittees.filter((n) => !presentes.has(n))).toEqual([]);
      // The action's requests: each changed one has its one history line and its one e-mail queued or sent; the rest untouched.
      const lignes = await db
        .selectFrom('housingRequests')
        .leftJoin('statusEvents', (j) => j.onRef('statusEvents.housingRequestId', '=', 'housingRequests.id').on('statusEvents.toStatus', '=', 'Passage CAL'))
        .select(['housingRequests.numeroUnique', 'housingRequests.statutDeLaDemande', 'statusEvents.id as evenement'])
        .where('housingRequests.numeroUnique', 'in', numeros)
        .execute();
      const changees = lignes.filter((l) => l.statutDeLaDemande === 'Passage CAL');
      expect(changees.every((l) => l.evenement !== null)).toBe(true);
      expect(new Set(changees.map((l) => l.numeroUnique)).size).toBe(changees.length);
      expect(lignes.filter((l) => l.statutDeLaDemande !== 'Passage CAL').every((l) => l.evenement === null)).toBe(true);
      expect(changees.length).toBeGreaterThanOrEqual(avant.faits);
      expect(changees.length).toBeLessThan(numeros.length);
      // Its progress, read through B once its lease has passed (time moved on in the database): cut short.
      await db.updateTable('lots').set({ bailJusqua: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
      const apres = ((await (await fetch(`${urlB}/app/api/lots/${id}`, { headers: { cookie } })).json()) as { data: Record<string, unknown> }).data;
      expect(apres).toMatchObject({ id, total: numeros.length, fini: true, interrompu: true });
      expect(Number(apres.faits)).toBeGreaterThanOrEqual(changees.length - 1);

      // The e-mails the killed instance had claimed come back to the queue once their claim is stale (moved back in
      // time here, once A and B have delivered what they had claimed themselves), and the instances still running send
      // them: every request of this test gets its « demande enregistrée » and, when changed, its status e-mail. At most
      // one may go twice: the one being delivered at the kill (written, not yet marked sent).
      await Promise.all([A.deps.mailer.idle(), B.deps.mailer.idle()]);
      const reprises = await db
        .updateTable('mailOutbox')
        .set({ claimedAt: new Date(Date.now() - CLAIM_TIMEOUT_MS - 1000).toISOString() })
        .where('sentAt', 'is', null)
        .where('claimedAt', '<=', mort)
        .executeTakeFirst();
      // The status e-mails wait for the undo window (10 s on the killed instance): over, too.
      await db.updateTable('mailOutbox').set({ sendAfter: new Date().toISOString() }).where('sentAt', 'is', null).where('sendAfter', '>', new Date().toISOString()).execute();
      // A, still running, sends some of them too.
      await Promise.all([A.deps.mailer.idle(), B.deps.mailer.idle()]);
      await attendre(
        () => db.selectFrom('mailOutbox').select(['recipient', 'claimedAt']).where('sentAt', 'is', null).where('sendAfter', '<=', new Date().toISOString()).execute(),
        (restantes) => restantes.length === 0,
        'la file d’envoi',
      );
      const texte = await mails();
      const compter = (email: string, sujet: RegExp) => texte.filter((m) => m.to === email && sujet.test(m.sujet)).length;
      const doublons: string[] = [];
      for (const n of [...numeros, ...acquittees]) {
        const enregistree = compter(`${n}@example.org`, /est enregistrée$/u);
        expect(enregistree, n).toBeGreaterThanOrEqual(1);
        if (enregistree > 1) doublons.push(n);
      }
      for (const l of changees) {
        const statut = compter(`${l.numeroUnique}@example.org`, /: Passage CAL$/u);
        expect(statut, l.numeroUnique).toBeGreaterThanOrEqual(1);
        if (statut > 1) doublons.push(l.numeroUnique);
      }
      expect(doublons.length).toBeLessThanOrEqual(1);
      console.log(
        `deux instances, arrêt brutal ${JSON.stringify({ lot: numeros.length, faitsAvantArret: avant.faits, changees: changees.length, acquitteesParB: acquittees.length, mailsReprisALInstanceTuee: Number(reprises.numUpdatedRows), doublons: doublons.length })}`,
      );
    } finally {
      if (tuee.child.exitCode === null && tuee.child.signalCode === null) tuee.child.kill('SIGKILL');
    }
  });

  it('wrote no error in their logs meanwhile', () => {
    expect(messagesDuJournal().filter((l) => l.level >= 50)).toEqual([]);
  });
});

/** The server as `npm start` runs it (main.ts, through tsx), on this test's database, Redis and folder. */
async function demarrer(): Promise<{ child: ChildProcess; url: string }> {
  const port = await new Promise<number>((resolve, reject) => {
    const sonde = net.createServer();
    sonde.once('error', reject);
    sonde.listen(0, '127.0.0.1', () => {
      const { port: p } = sonde.address() as net.AddressInfo;
      sonde.close(() => resolve(p));
    });
  });
  const url = `http://127.0.0.1:${port}`;
  const sortie: string[] = [];
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: ORIGIN,
      LOG_LEVEL: 'error',
      RATE_LIMIT_MULTIPLIER: '1000',
      ADRESSE_API_URL: 'http://127.0.0.1:9/search/',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url!,
      REDIS_URL,
      REDIS_PREFIX: prefixe,
      ...s3.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => sortie.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => sortie.push(c.toString()));
  const fin = Date.now() + 30_000;
  while (Date.now() < fin) {
    if (child.exitCode !== null) throw new Error(`l’instance s’est arrêtée (code ${child.exitCode}) : ${sortie.join('')}`);
    try {
      const r = await fetch(`${url}/app/api/parametres`);
      await r.arrayBuffer();
      if (r.ok) return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`l’instance ne répond pas : ${sortie.join('')}`);
}
