// Kill test (docs/operations.md « Après un arrêt brutal »): the real server, in its own process, takes
// concurrent creations and uploads and is killed (SIGKILL) under load, then restarted on the same data.
// Whatever it acknowledged must be there, with its e-mail, and nothing of what it was writing may stay:
// no orphan document file, no temp file, no half-written e-mail.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/server/db/index.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { sweepLeftovers } from '../src/server/features/demandes/upload.js';
import { LocalStorage } from '../src/server/storage/index.js';
import { freshDatabaseUrl } from './db.js';
import { demande, filesUnder, multipart, SAMPLES } from './helpers.js';
import { portLibre } from '../scripts/ports.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLIENTS = 50;
const LOAD_MS = Number(process.env.CRASH_LOAD_MS ?? 2500);
const RUNS = Number(process.env.CRASH_RUNS ?? 1);

interface Server {
  child: ChildProcess;
  url: string;
  stderr: string[];
}

/** The server as `npm run dev` runs it (tsx, no build), on its own port and data. */
async function start(env: Record<string, string>): Promise<Server> {
  const port = await portLibre();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: url,
      LOG_LEVEL: 'error',
      RATE_LIMIT_MULTIPLIER: '1000',
      ADRESSE_API_URL: 'http://127.0.0.1:9/search/',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The log (errors only) and whatever the process says on stderr.
  const stderr: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`le serveur s'est arrêté (code ${child.exitCode}) : ${stderr.join('')}`);
    try {
      const r = await fetch(`${url}/app/api/parametres`);
      await r.arrayBuffer();
      if (r.ok) return { child, url, stderr };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`le serveur ne répond pas : ${stderr.join('')}`);
}

function kill(server: Server, signal: NodeJS.Signals): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => server.child.once('exit', () => r()));
  server.child.kill(signal);
  return exited;
}

interface Acknowledged {
  requests: string[];
  uploads: { numero: string; name: string }[];
  /** Answers other than the expected 201 (say, 5xx), by status: none is expected before the kill. */
  others: Map<number, number>;
}

/** CLIENTS clients, each creating a request then sending it a document, until `stop` says so; what succeeded goes in `ack`. */
async function load(url: string, stop: { now: boolean }, ack: Acknowledged): Promise<void> {
  const other = (status: number) => ack.others.set(status, (ack.others.get(status) ?? 0) + 1);
  let n = 0;
  const client = async (id: number) => {
    while (!stop.now) {
      const numero = `013k${id.toString().padStart(2, '0')}${(n++).toString(36).padStart(6, '0')}`;
      let key: string;
      try {
        const r = await fetch(`${url}/app/api/logement`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demande({ numeroUnique: numero, email: `${numero}@example.org` })) });
        const body = (await r.json()) as { data?: { accessKey: string } };
        if (r.status !== 201) {
          other(r.status);
          continue;
        }
        ack.requests.push(numero);
        key = body.data!.accessKey;
      } catch {
        return; // the server is gone
      }
      const name = `piece-${numero}.png`;
      const form = await multipart([{ field: 'livret', name, content: SAMPLES.png }]);
      try {
        const r = await fetch(`${url}/app/api/logement/upload-files/${numero}`, { method: 'POST', headers: { ...form.headers, 'x-access-key': key }, body: new Uint8Array(form.payload) });
        await r.arrayBuffer();
        if (r.status === 201) ack.uploads.push({ numero, name });
        else other(r.status);
      } catch {
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
}

/** The `.eml` files' text, quoted-printable soft breaks removed. */
async function mailTexts(dir: string): Promise<string[]> {
  const names = (await fsp.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.eml'));
  return Promise.all(names.map(async (f) => (await fsp.readFile(path.join(dir, f), 'utf8')).replace(/=\r?\n/gu, '')));
}

/**
 * Waits until the restarted server has sent every mail it may send. On PostgreSQL the mails the killed
 * instance had claimed stay claimed for CLAIM_TIMEOUT_MS (another instance may still be sending them),
 * then leave: those count as queued, not lost, and so do the later mails of their recipients, which wait for them (a
 * person's mails leave in their order). On SQLite the restart puts them back at once.
 */
async function waitForOutbox(db: Db, restartedAt: string): Promise<void> {
  const end = Date.now() + 30_000;
  const pending = async () => {
    const rows = await db
      .selectFrom('mailOutbox')
      .select(['recipient', 'claimedAt', 'attempts', 'lastError'])
      .where('sentAt', 'is', null)
      .orderBy('sendAfter')
      .orderBy('id')
      .execute();
    const attendent = new Set<string>();
    return rows.filter((row) => {
      if (row.claimedAt !== null && row.claimedAt < restartedAt) attendent.add(row.recipient);
      return !attendent.has(row.recipient);
    });
  };
  while (Date.now() < end) {
    if ((await pending()).length === 0) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  const left = await pending();
  throw new Error(`la file d'envoi ne s'est pas vidée en 30 s : ${JSON.stringify(left.slice(0, 5))} (${left.length})`);
}

async function run(env: Record<string, string>, dataDir: string, databaseUrl: string | undefined, round: number) {
  const first = await start(env);
  const stop = { now: false };
  const ack: Acknowledged = { requests: [], uploads: [], others: new Map() };
  const loading = load(first.url, stop, ack);
  // At least LOAD_MS of load, and until some creations and uploads were acknowledged (the first uploads
  // of a fresh server are slow: modules load on first use), 20 s at most.
  const started = Date.now();
  while (Date.now() - started < 20_000 && (Date.now() - started < LOAD_MS || ack.requests.length < 20 || ack.uploads.length < 10)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await kill(first, 'SIGKILL');
  stop.now = true;
  await loading;

  const { db } = openDatabase({ databaseUrl, dataDir });
  const uploads = path.join(dataDir, 'uploads');
  const mailDir = path.join(dataDir, 'mail');
  const leftovers = async () => {
    const keys = new Set((await db.selectFrom('documents').select('storageKey').execute()).map((d) => d.storageKey));
    // The restarted server's sweep may remove a folder while it is listed: listed again then.
    const lister = (essais: number): string[] => {
      try {
        return filesUnder(uploads);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOENT' || essais === 0) throw error;
        return lister(essais - 1);
      }
    };
    const files = lister(5).map((f) => f.split(path.sep).join('/'));
    return {
      orphans: files.filter((f) => !f.startsWith('.tmp/') && !f.startsWith('avatars/') && !keys.has(f)).length,
      temp: files.filter((f) => f.startsWith('.tmp/')).length,
      stubs: (await fsp.readdir(mailDir).catch(() => [] as string[])).filter((f) => f.endsWith('.tmp')).length,
    };
  };
  const killedWith = await leftovers();
  let restarted: Server | undefined;
  try {
    const restartedAt = new Date().toISOString();
    const second = await start(env);
    restarted = second;
    await waitForOutbox(db, restartedAt);
    // PostgreSQL: the start-up sweep takes its second look 20 s after the start, and leaves temp files to the sweep of
    // an hour later (another instance's upload may still need one): that sweep is run here.
    let left = await leftovers();
    const end = Date.now() + (databaseUrl ? 40_000 : 0);
    while (left.orphans + left.stubs + (databaseUrl ? 0 : left.temp) > 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 500));
      left = await leftovers();
    }
    if (databaseUrl) {
      expect(left.temp).toBeLessThanOrEqual(killedWith.temp);
      await sweepLeftovers({ repository: new DemandesRepository(db, 'postgres'), storage: new LocalStorage(uploads), mailDir }, { olderThanMs: 0 });
      left = await leftovers();
    }

    const requests = await db.selectFrom('housingRequests').select(['id', 'numeroUnique']).execute();
    const present = new Set(requests.map((r) => r.numeroUnique));
    const documents = await db
      .selectFrom('documents')
      .innerJoin('housingRequests', 'housingRequests.id', 'documents.housingRequestId')
      .select(['housingRequests.numeroUnique', 'documents.originalName', 'documents.storageKey', 'documents.size'])
      .execute();
    const documentOf = new Map(documents.map((d) => [`${d.numeroUnique}/${d.originalName}`, d]));
    const mails = (await mailTexts(mailDir)).join('\n');
    const queued = (await db.selectFrom('mailOutbox').select('body').where('sentAt', 'is', null).execute()).map((m) => m.body).join('\n');

    const missingRequests = ack.requests.filter((n) => !present.has(n));
    const missingMails = [...present].filter((n) => !mails.includes(n) && !queued.includes(n));
    const waitingMails = [...present].filter((n) => !mails.includes(n) && queued.includes(n));
    const missingDocuments = ack.uploads.filter((u) => !documentOf.has(`${u.numero}/${u.name}`));
    const missingFiles = documents.filter((d) => fs.statSync(path.join(uploads, d.storageKey), { throwIfNoEntry: false })?.size !== d.size);
    const figures = {
      round,
      base: databaseUrl ? 'postgres' : 'sqlite',
      creationsAcquittees: ack.requests.length,
      demandesPresentes: requests.length,
      presentesNonAcquittees: requests.length - ack.requests.filter((n) => present.has(n)).length,
      envoisAcquittes: ack.uploads.length,
      documentsPresents: documents.length,
      emlDesDemandes: requests.length - missingMails.length - waitingMails.length,
      mailsEnAttenteDeReprise: waitingMails.length,
      autresReponses: Object.fromEntries(ack.others),
      restesALArret: killedWith,
      apresRedemarrage: left,
    };
    console.log(`kill test ${JSON.stringify(figures)}`);

    expect(ack.requests.length).toBeGreaterThan(0);
    expect(ack.uploads.length).toBeGreaterThan(0);
    expect(missingRequests).toEqual([]);
    // Every request present, acknowledged or not, has its « demande enregistrée » e-mail with its numéro.
    expect(missingMails).toEqual([]);
    if (!databaseUrl) expect(waitingMails).toEqual([]);
    expect(missingDocuments).toEqual([]);
    expect(missingFiles).toEqual([]);
    expect(left).toEqual({ orphans: 0, temp: 0, stubs: 0 });
    // Before the kill, every answer was a success (a refusal would hide a fault).
    expect(Object.fromEntries(ack.others)).toEqual({});
    // The restarted server works.
    const again = await fetch(`${second.url}/app/api/logement`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(demande()) });
    expect(again.status).toBe(201);
    // Nothing went wrong in the restarted server (no error logged).
    expect(second.stderr.join('')).toBe('');
  } finally {
    await db.destroy();
    if (restarted) await kill(restarted, 'SIGTERM');
  }
}

describe('SIGKILL under load, then restart', () => {
  for (let round = 1; round <= RUNS; round++) {
    it(`keeps every acknowledged request, document and e-mail, and leaves no leftover (run ${round})`, { timeout: 120_000 }, async () => {
      const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-crash-'));
      const database = await freshDatabaseUrl('qv_crash');
      try {
        await run({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) }, dataDir, database.url, round);
      } finally {
        await database.drop();
        await fsp.rm(dataDir, { recursive: true, force: true });
      }
    });
  }
});
