import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { natif } from '../src/server/db/index.js';
import { createMailer, retryDelayMs, type Mailer } from '../src/server/mail/index.js';
import { createTestApp, demande, instructionsLues, planSqlite, type TestContext } from './helpers.js';
import { portLibre } from '../scripts/ports.js';

// A real SMTP server on loopback: the mail goes through nodemailer's SMTP transport, not a file.
const received: { to: string[]; raw: string }[] = [];
let smtp: SMTPServer;
let ctx: TestContext;

/** An SMTP server that keeps what it receives in `received`. */
function smtpServer(): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
}

beforeAll(async () => {
  smtp = smtpServer();
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  ctx = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Mairie annexe <mairie@example.org>' });
});
afterAll(async () => {
  await ctx.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

it('sends the private link through SMTP when SMTP_URL is set', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013smtp00001', email: 'Smtp@Example.org' }) });
  expect(res.statusCode).toBe(201);
  await ctx.app.deps.mailer.idle();
  expect(received).toHaveLength(1);
  expect(received[0]!.to).toEqual(['smtp@example.org']);
  expect(received[0]!.raw).toContain('From: Mairie annexe <mairie@example.org>');
  const unfolded = received[0]!.raw.replace(/=\r?\n/gu, '').replace(/=3D/gu, '=');
  expect(unfolded).toContain(res.json().data.privateLink);
});

it('keeps the request when the mail server is down (the failure is only logged)', async () => {
  const down = await createTestApp({ SMTP_URL: 'smtp://127.0.0.1:9' });
  try {
    const res = await down.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013smtp00002' }) });
    expect(res.statusCode).toBe(201);
    await down.app.deps.mailer.idle();
    const row = await down.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013smtp00002').executeTakeFirst();
    expect(row).toBeDefined();
  } finally {
    await down.close();
  }
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const emlIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.eml')) : []);
/**
 * An app whose outbox delivers to `serveur` (listening here on a free port), by hand: its own loop is stopped and the
 * returned mailer polls once an hour, so that a test's `idle()` is the only pass. `instance` makes another outbox over
 * the same database (another instance of the server), to `smtpUrl` or else to .eml files; `fermer` closes the mailer,
 * the app and the server.
 */
async function outboxVers(serveur: SMTPServer, options: { claimTimeoutMs?: number } = {}) {
  await new Promise<void>((resolve) => serveur.listen(0, '127.0.0.1', resolve));
  const app = await createTestApp();
  await app.app.deps.mailer.close();
  const instance = (smtpUrl: string | undefined) =>
    createMailer({
      smtpUrl,
      mailDir: path.join(app.dataDir, 'mail'),
      from: 'Mairie <mairie@example.org>',
      log: app.app.log,
      outbox: { db: app.app.deps.db, kind: app.app.deps.dbKind, pollMs: 3600_000, ...options },
    });
  const mailer = instance(`smtp://127.0.0.1:${(serveur.server.address() as AddressInfo).port}`);
  const fermer = async () => {
    await mailer.close();
    await app.close();
    await new Promise<void>((resolve) => serveur.close(() => resolve()));
  };
  return { app, mailer, instance, fermer };
}

const outboxRow = (app: FastifyInstance, subject: string) => app.deps.db.selectFrom('mailOutbox').selectAll().where('subject', '=', subject).executeTakeFirstOrThrow();

describe('the outbox (migration 0005): queued in the database, delivered by a loop, never lost', () => {
  it('keeps a queued mail across a restart: nothing leaves at close, the next start sends it once due', async () => {
    const first = await createTestApp();
    const dir = path.join(first.dataDir, 'mail');
    let second: FastifyInstance | undefined;
    try {
      await first.app.deps.mailer.enqueue({ to: 'redemarrage@example.org', subject: 'Après le redémarrage', text: 'Bonjour' }, { delayMs: 60_000 });
      await first.app.close();
      expect(emlIn(dir)).toEqual([]);
      second = await buildApp(first.config, { logger: false });
      await second.deps.mailer.idle();
      expect(emlIn(dir)).toEqual([]);
      // The minute has passed.
      await second.deps.db.updateTable('mailOutbox').set({ sendAfter: new Date().toISOString() }).where('subject', '=', 'Après le redémarrage').execute();
      await second.deps.mailer.idle();
      const files = emlIn(dir);
      expect(files).toHaveLength(1);
      expect(fs.readFileSync(path.join(dir, files[0]!), 'utf8')).toContain('To: redemarrage@example.org');
      // Sent: the row says when, and no longer holds the text.
      expect(await outboxRow(second, 'Après le redémarrage')).toMatchObject({ attempts: 1, lastError: null, body: '', sentAt: expect.any(String) });
    } finally {
      await second?.close();
      await first.close();
    }
  });

  it('stops its loop when the app closes, before the database is closed (no error after close)', async () => {
    const lines: string[] = [];
    const ctx2 = await createTestApp({}, { logger: { level: 'warn', stream: { write: (line: string) => lines.push(line) } } });
    try {
      await ctx2.app.deps.mailer.enqueue({ to: 'fermeture@example.org', subject: 'Fermeture', text: 'Bonjour' }, { delayMs: 60_000 });
      await ctx2.app.close();
      // The loop looks every second: three looks would each have failed on the closed database.
      await sleep(2500);
      expect(lines).toEqual([]);
    } finally {
      await ctx2.close();
    }
  });

  it('keeps a mail the SMTP server could not take, with the attempt and its error, and sends it at a later try', async () => {
    const port = await portLibre();
    const down = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    let back: SMTPServer | undefined;
    try {
      await down.app.deps.mailer.enqueue({ to: 'reessai@example.org', subject: 'Réessai', text: 'Bonjour' });
      await down.app.deps.mailer.idle();
      const failed = await outboxRow(down.app, 'Réessai');
      expect(failed).toMatchObject({ attempts: 1, sentAt: null, claimedAt: null, body: 'Bonjour' });
      expect(failed.lastError).toMatch(/ECONNREFUSED/u);
      // The next try is later (10 s after a first failure, doubling up to an hour).
      expect(Date.parse(failed.sendAfter)).toBeGreaterThan(Date.now() + 5000);
      expect(retryDelayMs(1)).toBe(10_000);
      expect(retryDelayMs(3)).toBe(40_000);
      expect(retryDelayMs(50)).toBe(3600_000);

      // The mail server comes back, and the time of the next try comes.
      back = smtpServer();
      await new Promise<void>((resolve) => back!.listen(port, '127.0.0.1', resolve));
      await down.app.deps.db.updateTable('mailOutbox').set({ sendAfter: new Date().toISOString() }).where('id', '=', failed.id).execute();
      await down.app.deps.mailer.idle();
      expect(received.filter((m) => m.to.includes('reessai@example.org'))).toHaveLength(1);
      expect(await outboxRow(down.app, 'Réessai')).toMatchObject({ attempts: 2, sentAt: expect.any(String), body: '' });
    } finally {
      await down.close();
      if (back) await new Promise<void>((resolve) => back!.close(() => resolve()));
    }
  });

  it('withdraws a request’s mail even while it is being sent: a failure then does not put it back, and no trace stays', async () => {
    // A mail server that holds the applicant's first message until told, then refuses it for now (451).
    let tenu: (() => void) | undefined;
    const recuPar: string[] = [];
    const serveur = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          const to = session.envelope.rcptTo[0]!.address;
          recuPar.push(to);
          if (to !== 'retrait.encours@example.org' || tenu) return callback();
          tenu = () => callback(Object.assign(new Error('Essayez plus tard'), { responseCode: 451 }));
        });
      },
    });
    const { app, mailer, fermer } = await outboxVers(serveur);
    try {
      const cree = await app.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013retrait01', email: 'retrait.encours@example.org' }) });
      expect(cree.statusCode).toBe(201);
      const { id, accessKey } = cree.json().data as { id: string; accessKey: string };
      // A pass starts and claims the registration mail, which the server holds.
      await mailer.enqueue({ to: 'declencheur@example.org', subject: 'Déclencheur', text: 'Bonjour' });
      for (let i = 0; i < 200 && !tenu; i++) await sleep(20);
      expect(tenu).toBeDefined();
      const retrait = await app.app.inject({ method: 'POST', url: '/app/api/logement/013retrait01/retirer', headers: { 'x-access-key': accessKey } });
      expect(retrait.statusCode).toBeLessThan(300);
      tenu!();
      await mailer.idle();
      // Nothing of the request is left in the outbox, to send again or to read.
      expect(await app.app.deps.db.selectFrom('mailOutbox').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
      await app.app.deps.db.updateTable('mailOutbox').set({ sendAfter: new Date(0).toISOString() }).where('sentAt', 'is', null).execute();
      await mailer.enqueue({ to: 'declencheur2@example.org', subject: 'Déclencheur', text: 'Bonjour' });
      await mailer.idle();
      // Its first try, and the word that the request is withdrawn (not tied to it); never the registration mail again.
      expect(recuPar.filter((to) => to === 'retrait.encours@example.org')).toHaveLength(2);
    } finally {
      await fermer();
    }
  });

  it('sends a backlog in passes that follow each other, not one batch per poll', async () => {
    const app = await createTestApp();
    // The app's own loop stops: only this one, whose poll never comes in the test, sends.
    await app.app.deps.mailer.close();
    const dir = path.join(app.dataDir, 'file');
    const mailer = createMailer({ smtpUrl: undefined, mailDir: dir, from: 'Mairie <mairie@example.org>', log: app.app.log, outbox: { db: app.app.deps.db, kind: app.app.deps.dbKind, pollMs: 3600_000 } });
    try {
      // Queued inside transactions, as a creation queues its mail: nothing leaves yet.
      for (let i = 0; i < 45; i++) {
        await app.app.deps.db.transaction().execute((trx) => mailer.enqueue({ to: `arriere${i}@example.org`, subject: `Arriéré ${i}`, text: 'Bonjour' }, { trx }));
      }
      expect(emlIn(dir)).toHaveLength(0);
      // One mail outside a transaction starts a pass, and the passes go on while batches come back full.
      await mailer.enqueue({ to: 'declencheur@example.org', subject: 'Déclencheur', text: 'Bonjour' });
      // A row is marked sent just after its file is written: wait for both.
      const unsent = () => app.app.deps.db.selectFrom('mailOutbox').select('id').where('sentAt', 'is', null).execute();
      for (let i = 0; i < 100 && (emlIn(dir).length < 46 || (await unsent()).length > 0); i++) await sleep(50);
      expect(emlIn(dir)).toHaveLength(46);
      expect(await unsent()).toEqual([]);
    } finally {
      await mailer.close();
      await app.close();
    }
  });

  it('SQLite: claims a batch by the mails’ keys, not by walking the whole backlog', async () => {
    const app = await createTestApp();
    const n = natif(app.app.deps.db);
    if (n?.kind !== 'sqlite') return void (await app.close());
    await app.app.deps.mailer.close();
    const dir = path.join(app.dataDir, 'file');
    const mailer = createMailer({ smtpUrl: undefined, mailDir: dir, from: 'Mairie <mairie@example.org>', log: app.app.log, outbox: { db: app.app.deps.db, kind: 'sqlite', pollMs: 3600_000 } });
    try {
      // The statements the outbox runs, as better-sqlite3 receives them (a claim returns its rows: `all`).
      const sources = await instructionsLues(n.sqlite, async () => {
        for (let i = 0; i < 30; i++) {
          await app.app.deps.db.transaction().execute((trx) => mailer.enqueue({ to: `file${i}@example.org`, subject: `File ${i}`, text: 'Bonjour' }, { trx }));
        }
        await mailer.enqueue({ to: 'declencheur@example.org', subject: 'Déclencheur', text: 'Bonjour' });
        for (let i = 0; i < 100 && emlIn(dir).length < 31; i++) await sleep(50);
      });
      expect(emlIn(dir)).toHaveLength(31);
      const claim = sources.find((s) => s.startsWith('update "mail_outbox" set "claimed_at"'));
      expect(claim).toBeDefined();
      // The rows to update by their key; the due index only in the choice of the batch.
      expect(planSqlite(n.sqlite, claim!)[0]).toBe('SEARCH mail_outbox USING INDEX sqlite_autoindex_mail_outbox_1 (id=?)');
    } finally {
      await mailer.close();
      await app.close();
    }
  });

  it('sends to several recipients at once over kept SMTP connections, each recipient’s mails in their order', async () => {
    // A slow mail server (80 ms a message; the first status held until another arrives) that counts its connections and the messages it holds at once.
    const recus: { to: string; subject: string }[] = [];
    let connexions = 0;
    let enCours = 0;
    let auPlus = 0;
    const lent = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onConnect(_session, callback) {
        connexions += 1;
        callback();
      },
      onData(stream, session, callback) {
        enCours += 1;
        auPlus = Math.max(auPlus, enCours);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const subject = /^Subject: (.*)$/mu.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '';
          const repondre = () => {
            recus.push({ to: session.envelope.rcptTo[0]!.address, subject });
            enCours -= 1;
            callback();
          };
          if (subject !== 'Statut 1') return void setTimeout(repondre, 80);
          // The first status is held until another message arrives beside it (10 s at most): a sender that sends one
          // mail at a time never gets there, however slow or busy the machine.
          const limite = Date.now() + 10_000;
          const attendre = () => (enCours > 1 || Date.now() > limite ? repondre() : void setTimeout(attendre, 10));
          attendre();
        });
      },
    });
    const { app, mailer, fermer } = await outboxVers(lent);
    try {
      // Ten mails, three of them to one person: queued together, claimed in one pass.
      await app.app.deps.db.transaction().execute(async (trx) => {
        for (const etape of ['Statut 1', 'Statut 2', 'Statut 3']) await mailer.enqueue({ to: 'meme@example.org', subject: etape, text: 'Bonjour' }, { trx });
        for (let i = 0; i < 7; i++) await mailer.enqueue({ to: `autre${i}@example.org`, subject: `Autre ${i}`, text: 'Bonjour' }, { trx });
      });
      await mailer.idle();
      expect(recus).toHaveLength(10);
      expect(recus.filter((r) => r.to === 'meme@example.org').map((r) => r.subject)).toEqual(['Statut 1', 'Statut 2', 'Statut 3']);
      // Side by side, never more than four; the connections are kept from one mail to the next.
      expect(auPlus).toBeGreaterThan(1);
      expect(auPlus).toBeLessThanOrEqual(4);
      expect(connexions).toBeLessThanOrEqual(4);
    } finally {
      await fermer();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('delivers each mail once when instances share one PostgreSQL database, however they race', async () => {
    const first = await createTestApp();
    const second = await buildApp(first.config, { logger: false });
    const dir = path.join(first.dataDir, 'mail');
    // Two more delivery loops on each app's pool, as further instances would be; they only run when asked.
    const workers = [first.app, second, first.app, second].map((app) =>
      createMailer({ smtpUrl: undefined, mailDir: dir, from: 'Mairie <mairie@example.org>', log: app.log, outbox: { db: app.deps.db, kind: app.deps.dbKind, pollMs: 3600_000 } }),
    );
    try {
      const count = 60;
      for (let i = 0; i < count; i++) await first.app.deps.mailer.enqueue({ to: `instance${i}@example.org`, subject: `Message ${i}`, text: 'Bonjour' }, { delayMs: 1500 });
      const { sendAfter } = await outboxRow(first.app, 'Message 59');
      await sleep(Date.parse(sendAfter) - Date.now() + 5);
      // Every loop claims at the same instant.
      await Promise.all([first.app.deps.mailer.idle(), second.deps.mailer.idle(), ...workers.map((w) => w.idle())]);
      const to = emlIn(dir).map((f) => /^To: (.*)$/mu.exec(fs.readFileSync(path.join(dir, f), 'utf8'))![1]);
      expect(to.sort()).toEqual(Array.from({ length: count }, (_, i) => `instance${i}@example.org`).sort());
      expect(await first.app.deps.db.selectFrom('mailOutbox').select('id').where('sentAt', 'is', null).execute()).toEqual([]);
    } finally {
      for (const w of workers) await w.close();
      await second.close();
      await first.close();
    }
  });

  it.skipIf(!process.env.DATABASE_URL)('gives back a later mail it claimed while another pass, not yet committed, was claiming the person’s first', async () => {
    const app = await createTestApp();
    const dir = path.join(app.dataDir, 'mail');
    const n = natif(app.app.deps.db);
    if (n?.kind !== 'postgres') throw new Error('PostgreSQL only');
    const autre = await n.pool.connect();
    try {
      await app.app.deps.mailer.enqueue({ to: 'course@example.org', subject: 'Premier', text: 'Bonjour' }, { delayMs: 1500 });
      await app.app.deps.mailer.enqueue({ to: 'course@example.org', subject: 'Second', text: 'Bonjour' }, { delayMs: 1500 });
      // Another instance's pass in the middle of claiming the first mail: its row locked, its claim not yet committed.
      await autre.query('begin');
      await autre.query(`select id from mail_outbox where subject = 'Premier' for update`);
      const { sendAfter } = await outboxRow(app.app, 'Second');
      await sleep(Date.parse(sendAfter) - Date.now() + 5);
      // This pass skips the locked first mail and may claim the second: it must give it back, unsent.
      await app.app.deps.mailer.idle();
      expect(emlIn(dir)).toEqual([]);
      expect(await outboxRow(app.app, 'Second')).toMatchObject({ sentAt: null, claimToken: null });
      // The other pass ends without sending (rolled back): the first mail leaves, then the second.
      await autre.query('rollback');
      await app.app.deps.mailer.idle();
      const [premier, second] = [await outboxRow(app.app, 'Premier'), await outboxRow(app.app, 'Second')];
      expect(premier.sentAt).not.toBeNull();
      expect(Date.parse(second.sentAt!)).toBeGreaterThanOrEqual(Date.parse(premier.sentAt!));
      expect(emlIn(dir).map((f) => /^Subject: (.*)$/mu.exec(fs.readFileSync(path.join(dir, f), 'utf8'))![1]).sort()).toEqual(['Premier', 'Second']);
    } finally {
      await autre.query('rollback').catch(() => undefined);
      autre.release();
      await app.close();
    }
  });
});

/** An SMTP server that refuses for now (451) the mail of subject `sujet` and keeps the others' subjects in `recus`. */
function refusant(sujet: string, recus: string[]): SMTPServer {
  return new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const subject = /^Subject: (.*)$/mu.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '';
        if (subject === sujet) return callback(Object.assign(new Error('Boîte momentanément pleine'), { responseCode: 451 }));
        recus.push(subject);
        callback();
      });
    },
  });
}

/**
 * An SMTP server that holds its answer to the first message until `liberer` is called (a slow exchange); the others are
 * answered at once. `recus`: each message's recipient, in the order received.
 */
function retenant(): { serveur: SMTPServer; recus: string[]; tenu: () => Promise<boolean>; liberer: () => void } {
  const recus: string[] = [];
  let tenu: (() => void) | undefined;
  const serveur = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        recus.push(session.envelope.rcptTo[0]!.address);
        if (tenu) return callback();
        tenu = () => callback();
      });
    },
  });
  return {
    serveur,
    recus,
    tenu: async () => {
      for (let i = 0; i < 250 && !tenu; i++) await sleep(20);
      return tenu !== undefined;
    },
    liberer: () => tenu?.(),
  };
}

/**
 * Two instances of the server over one database: the first sends through an SMTP server that holds its answer to the
 * first message until `liberer` (retenant), the second delivers to files (`dossier`: what it sends shows there).
 * Everything is closed after `corps`, the held answer given back first.
 */
async function deuxInstances(
  options: { claimTimeoutMs?: number },
  corps: (c: { app: TestContext; premiere: Mailer; seconde: Mailer; dossier: string } & Omit<ReturnType<typeof retenant>, 'serveur'>) => Promise<void>,
): Promise<void> {
  const { serveur, ...lent } = retenant();
  const { app, mailer: premiere, instance, fermer } = await outboxVers(serveur, options);
  const seconde = instance(undefined);
  try {
    await corps({ app, premiere, seconde, dossier: path.join(app.dataDir, 'mail'), ...lent });
  } finally {
    lent.liberer();
    await seconde.close();
    await fermer();
  }
}

describe('the outbox after a failure', () => {
  it('keeps one person’s mails in their order when the first fails: the next ones wait for its next try', async () => {
    const recus: string[] = [];
    const refuse = refusant('Ordre 1', recus);
    const { app, mailer, fermer } = await outboxVers(refuse);
    try {
      await app.app.deps.db.transaction().execute(async (trx) => {
        for (const [i, etape] of ['Ordre 1', 'Ordre 2', 'Ordre 3'].entries()) await mailer.enqueue({ to: 'ordre@example.org', subject: etape, text: 'Bonjour' }, { trx, delayMs: i });
      });
      await mailer.idle();
      const [un, deux, trois] = await Promise.all(['Ordre 1', 'Ordre 2', 'Ordre 3'].map((sujet) => outboxRow(app.app, sujet)));
      expect(recus).toEqual([]);
      expect(un).toMatchObject({ attempts: 1, sentAt: null });
      for (const suivant of [deux!, trois!]) expect(suivant).toMatchObject({ attempts: 0, sentAt: null, claimedAt: null });
      expect(Date.parse(deux!.sendAfter)).toBeGreaterThan(Date.parse(un!.sendAfter));
      expect(Date.parse(trois!.sendAfter)).toBeGreaterThan(Date.parse(deux!.sendAfter));
    } finally {
      await fermer();
    }
  });

  it('holds the failed mail, still first and claimed, until its followers are moved after its next try (no other instance slips one in)', async () => {
    const recus: string[] = [];
    const { app, mailer, fermer } = await outboxVers(refusant('Tenu 1', recus));
    const { db } = app.app.deps;
    if (app.app.deps.dbKind !== 'sqlite') return void (await fermer());
    try {
      // Each time a follower is put back, what another instance's claim would then see of the failed mail.
      await sql`create table vu_au_report (suivant_envoi text, echec_envoi text, echec_reserve text)`.execute(db);
      await sql`create trigger report after update of send_after on mail_outbox when new.subject <> 'Tenu 1'
        begin insert into vu_au_report select new.send_after, send_after, claimed_at from mail_outbox where subject = 'Tenu 1'; end`.execute(db);
      await db.transaction().execute(async (trx) => {
        for (const [i, etape] of ['Tenu 1', 'Tenu 2', 'Tenu 3'].entries()) await mailer.enqueue({ to: 'tenu@example.org', subject: etape, text: 'Bonjour' }, { trx, delayMs: i });
      });
      await mailer.idle();
      const vus = (await sql<{ suivantEnvoi: string; echecEnvoi: string; echecReserve: string | null }>`select * from vu_au_report`.execute(db)).rows;
      expect(vus).toHaveLength(2);
      for (const vu of vus) {
        expect(vu.echecReserve).toEqual(expect.any(String));
        expect(vu.echecEnvoi < vu.suivantEnvoi).toBe(true);
      }
      // Then the failed mail goes back to the queue for its next try, before its followers.
      const [un, deux] = await Promise.all(['Tenu 1', 'Tenu 2'].map((sujet) => outboxRow(app.app, sujet)));
      expect(un).toMatchObject({ attempts: 1, claimedAt: null, claimToken: null });
      expect(Date.parse(deux!.sendAfter)).toBeGreaterThan(Date.parse(un!.sendAfter));
    } finally {
      await fermer();
    }
  });

  it('keeps a later mail of that person, not yet due when the first failed, waiting for the first one’s next try', async () => {
    const recus: string[] = [];
    const refuse = refusant('Suite 1', recus);
    const { app, mailer, fermer } = await outboxVers(refuse);
    try {
      await mailer.enqueue({ to: 'suite@example.org', subject: 'Suite 1', text: 'Bonjour' }, { delayMs: 0 });
      await mailer.enqueue({ to: 'suite@example.org', subject: 'Suite 2', text: 'Bonjour' }, { delayMs: 300 });
      await mailer.idle();
      expect(await outboxRow(app.app, 'Suite 1')).toMatchObject({ attempts: 1, sentAt: null });
      // Past its own time, before the first one's next try: it still waits.
      await sleep(400);
      await mailer.idle();
      expect(recus).toEqual([]);
      const [un, deux] = await Promise.all(['Suite 1', 'Suite 2'].map((sujet) => outboxRow(app.app, sujet)));
      expect(deux).toMatchObject({ attempts: 0, sentAt: null, claimedAt: null });
      expect(Date.parse(deux!.sendAfter)).toBeGreaterThan(Date.parse(un!.sendAfter));
    } finally {
      await fermer();
    }
  });

  it('renews its claim while the mail server takes long: another instance does not send the mail a second time', async () => {
    // The first instance's mail server holds its answer longer than a claim lasts.
    const claimTimeoutMs = 300;
    await deuxInstances({ claimTimeoutMs }, async ({ app, premiere, seconde, dossier, recus, tenu, liberer }) => {
      await premiere.enqueue({ to: 'lent@example.org', subject: 'Lent', text: 'Bonjour' });
      expect(await tenu()).toBe(true);
      // Three times the claim's life, the second instance passing all along: the mail stays claimed by the first.
      for (let t = 0; t < 3 * claimTimeoutMs; t += 100) {
        await sleep(100);
        await seconde.idle();
      }
      expect(emlIn(dossier)).toEqual([]);
      const pendant = await outboxRow(app.app, 'Lent');
      expect(pendant).toMatchObject({ sentAt: null, claimToken: expect.any(String) });
      expect(Date.now() - Date.parse(pendant.claimedAt!)).toBeLessThan(claimTimeoutMs);
      liberer();
      await premiere.idle();
      expect(await outboxRow(app.app, 'Lent')).toMatchObject({ sentAt: expect.any(String), claimToken: null, attempts: 1 });
      await seconde.idle();
      expect(recus).toEqual(['lent@example.org']);
      expect(emlIn(dossier)).toEqual([]);
    });
  });

  it('keeps one person’s mails in their order across instances: a later mail waits while another instance sends the first', async () => {
    await deuxInstances({}, async ({ app, premiere, seconde, dossier, recus, tenu, liberer }) => {
      await premiere.enqueue({ to: 'ordre@example.org', subject: 'Enregistrée', text: 'Bonjour' });
      expect(await tenu()).toBe(true);
      // While the first instance is still sending the first mail, the second queues and passes: the next mail waits.
      await seconde.enqueue({ to: 'ordre@example.org', subject: 'Refusé', text: 'Bonjour' });
      await seconde.idle();
      expect(emlIn(dossier)).toEqual([]);
      expect(await outboxRow(app.app, 'Refusé')).toMatchObject({ sentAt: null, claimToken: null });
      liberer();
      await premiere.idle();
      // The first mail is sent: the next one leaves at the next pass, whichever instance makes it.
      await seconde.enqueue({ to: 'declencheur@example.org', subject: 'Déclencheur', text: 'Bonjour' });
      await seconde.idle();
      const [premier, second] = [await outboxRow(app.app, 'Enregistrée'), await outboxRow(app.app, 'Refusé')];
      expect(Date.parse(second.sentAt!)).toBeGreaterThanOrEqual(Date.parse(premier.sentAt!));
      // Each sent once, by one instance or the other.
      const fichiers = emlIn(dossier).filter((f) => fs.readFileSync(path.join(dossier, f), 'utf8').includes('To: ordre@example.org'));
      expect(recus.length + fichiers.length).toBe(2);
    });
  });

  it('goes on sending other people’s mails while one person’s many wait behind a mail another instance is sending', async () => {
    await deuxInstances({}, async ({ app, premiere, seconde, dossier, recus, tenu, liberer }) => {
      await premiere.enqueue({ to: 'bavard@example.org', subject: 'Premier', text: 'Bonjour' });
      expect(await tenu()).toBe(true);
      // More of that person's mails than a pass takes at once, then someone else's.
      for (let i = 0; i < 15; i++) await seconde.enqueue({ to: 'bavard@example.org', subject: `Suite ${i}`, text: 'Bonjour' });
      await seconde.enqueue({ to: 'voisine@example.org', subject: 'Pour la voisine', text: 'Bonjour' });
      await seconde.idle();
      const envoyes = emlIn(dossier).map((f) => fs.readFileSync(path.join(dossier, f), 'utf8'));
      expect(envoyes.filter((m) => m.includes('To: voisine@example.org'))).toHaveLength(1);
      expect(envoyes.filter((m) => m.includes('To: bavard@example.org'))).toEqual([]);
      liberer();
      await premiere.idle();
      expect(recus[0]).toBe('bavard@example.org');
      expect(await outboxRow(app.app, 'Premier')).toMatchObject({ sentAt: expect.any(String) });
    });
  });

  it('marks a sent mail as sent when the database fails for a moment just after: it is not sent again', async () => {
    const app = await createTestApp();
    const { db, dbKind } = app.app.deps;
    try {
      await sql`create table panne_marquage (x integer)`.execute(db);
      if (dbKind === 'sqlite') {
        await sql`create trigger panne_marquage_t before update of sent_at on mail_outbox when new.sent_at is not null and (select count(*) from panne_marquage) > 0 begin select raise(abort, 'disque momentanément indisponible'); end`.execute(db);
      } else {
        await sql`create function panne_marquage_f() returns trigger language plpgsql as $$ begin if exists (select 1 from panne_marquage) then raise exception 'disque momentanément indisponible'; end if; return new; end $$`.execute(db);
        await sql`create trigger panne_marquage_t before update of sent_at on mail_outbox for each row when (new.sent_at is not null) execute function panne_marquage_f()`.execute(db);
      }
      await sql`insert into panne_marquage values (1)`.execute(db);
      const fin = setTimeout(() => void sql`delete from panne_marquage`.execute(db), 300);
      await app.app.deps.mailer.enqueue({ to: 'marque@example.org', subject: 'Marquage', text: 'Bonjour' });
      await app.app.deps.mailer.idle();
      clearTimeout(fin);
      expect(await outboxRow(app.app, 'Marquage')).toMatchObject({ sentAt: expect.any(String), claimToken: null, body: '' });
      const dir = path.join(app.dataDir, 'mail');
      expect(fs.readdirSync(dir).filter((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes('Subject: Marquage'))).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});

