// A full or read-only disk: creation, upload and sign-up answer 507 or 503 in French, write nothing
// half-way, and the server answers the next request once space is back (docs/operations.md
// « Disque plein ou en lecture seule »). The disk is real: DATA_DIR on a small tmpfs (the tests run as
// root, who ignores file permissions but not a full or read-only file system); SQLite's own limit
// (`max_page_count`, `query_only`) stands for a full or read-only database.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../src/domain/erreurs.js';
import { createTestApp, demande, filesUnder, multipart, SAMPLES, type TestContext } from './helpers.js';

function mountTmpfs(dir: string, sizeKb: number): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0755`, 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const unmount = (dir: string) => execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
const remount = (dir: string, mode: 'ro' | 'rw') => execFileSync('mount', ['-o', `remount,${mode}`, dir], { stdio: 'ignore' });

/** Fills the file system of `dir` to its last byte with one file, and answers that file's path. */
function fill(dir: string): string {
  const filler = path.join(dir, 'filler');
  const { bavail, bsize } = fs.statfsSync(dir);
  const fd = fs.openSync(filler, 'w');
  try {
    fs.writeSync(fd, Buffer.alloc(Number(bavail) * Number(bsize)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** A PNG of about `kb` kilobytes (a valid signature, then padding). */
const bigPng = (kb: number) => Buffer.concat([SAMPLES.png, Buffer.alloc(kb * 1024)]);

const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-mount-probe-'));
const canMount = mountTmpfs(probe, 64);
if (canMount) unmount(probe);
fs.rmSync(probe, { recursive: true, force: true });

interface Counts {
  requests: number;
  documents: number;
  users: number;
  mails: number;
}

async function counts(ctx: TestContext): Promise<Counts> {
  const { db } = ctx.app.deps;
  const n = async (table: 'housingRequests' | 'documents' | 'user' | 'mailOutbox') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { requests: await n('housingRequests'), documents: await n('documents'), users: await n('user'), mails: await n('mailOutbox') };
}

function signUp(ctx: TestContext, email: string) {
  return ctx.app.inject({
    method: 'POST',
    url: '/app/api/user/inscription',
    payload: { nom: 'Durand', prenom: 'Alix', birthday: '1985-03-02', residence: 'Les Lauves', rue: 'Avenue Marcel-Pagnol', email, password: 'une phrase de passe assez longue' },
  });
}

async function upload(ctx: TestContext, numero: string, key: string, content: Buffer, name = 'livret.png') {
  const body = await multipart([{ field: 'livret', name, content }]);
  return ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': key }, payload: body.payload });
}

function expectStorageError(res: { statusCode: number; json(): unknown }, status: 507 | 503) {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toEqual({
    error: status === 507 ? { code: 'DISK_FULL', message: MESSAGES.disquePlein } : { code: 'STORAGE_UNAVAILABLE', message: MESSAGES.stockageIndisponible },
  });
}

/** Upload files other than the temp folder: documents and pictures. */
const storedFiles = (ctx: TestContext) => filesUnder(path.join(ctx.dataDir, 'uploads')).filter((f) => !f.startsWith('.tmp'));
const tempFiles = (ctx: TestContext) => filesUnder(path.join(ctx.dataDir, 'uploads', '.tmp'));

describe.skipIf(!canMount)('DATA_DIR on a full file system (tmpfs)', () => {
  let ctx: TestContext;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-disque-'));
    expect(mountTmpfs(dataDir, 24 * 1024)).toBe(true);
    fs.mkdirSync(path.join(dataDir, 'uploads'));
    // The documents have their own small file system, to be made read-only on its own.
    expect(mountTmpfs(path.join(dataDir, 'uploads'), 4 * 1024)).toBe(true);
    ctx = await createTestApp({ DATA_DIR: dataDir });
    fs.rmSync(ctx.dataDir, { recursive: true, force: true });
    ctx.dataDir = dataDir;
  });
  afterAll(async () => {
    await ctx?.close();
    unmount(path.join(dataDir, 'uploads'));
    unmount(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses an upload with 507 when the documents disk is full, keeps nothing, and takes it once space is back', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013plein0001' }) });
    expect(created.statusCode).toBe(201);
    const key = created.json().data.accessKey as string;
    const before = await counts(ctx);
    const filler = fill(path.join(dataDir, 'uploads'));

    expectStorageError(await upload(ctx, '013plein0001', key, bigPng(300)), 507);
    expect(await counts(ctx)).toEqual(before);
    expect(storedFiles(ctx)).toEqual(['filler']);
    expect(tempFiles(ctx)).toEqual([]);

    // A PDF is checked and written by one task of the background thread: from memory (small), or read back from its
    // temp file (300 KB: past what is held in memory), which the full disk already refuses.
    const grandPdf = await PDFDocument.create();
    grandPdf.addPage([200, 200]);
    grandPdf.context.register(grandPdf.context.stream(new Uint8Array(300 * 1024).fill(0x20)));
    const pdfs = [SAMPLES.pdf, Buffer.from(await grandPdf.save({ useObjectStreams: false }))];
    for (const pdf of pdfs) {
      expectStorageError(await upload(ctx, '013plein0001', key, pdf, 'avis.pdf'), 507);
      expect(await counts(ctx)).toEqual(before);
      expect(storedFiles(ctx)).toEqual(['filler']);
      expect(tempFiles(ctx)).toEqual([]);
    }

    fs.rmSync(filler);
    expect((await upload(ctx, '013plein0001', key, bigPng(300))).statusCode).toBe(201);
    for (const pdf of pdfs) expect((await upload(ctx, '013plein0001', key, pdf, 'avis.pdf')).statusCode).toBe(201);
    expect((await counts(ctx)).documents).toBe(before.documents + 3);
  });

  it('refuses an upload with 503 when the documents disk is read-only, and takes it once writable again', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013lecture01' }) });
    const key = created.json().data.accessKey as string;
    const before = await counts(ctx);
    const files = storedFiles(ctx);
    remount(path.join(dataDir, 'uploads'), 'ro');
    try {
      expectStorageError(await upload(ctx, '013lecture01', key, SAMPLES.png), 503);
    } finally {
      remount(path.join(dataDir, 'uploads'), 'rw');
    }
    expect(await counts(ctx)).toEqual(before);
    expect(storedFiles(ctx)).toEqual(files);
    expect((await upload(ctx, '013lecture01', key, SAMPLES.png)).statusCode).toBe(201);
  });

  it('refuses a creation, an upload and a sign-up with 507 when the database disk is full, writes no row and no file, then accepts them', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013plein0003' }) });
    const key = created.json().data.accessKey as string;
    const { db } = ctx.app.deps;
    await ctx.app.deps.mailer.idle();
    if (ctx.app.deps.dbKind === 'sqlite') {
      // An empty write-ahead log: the next write needs new blocks of the full disk.
      await sql`pragma wal_checkpoint(truncate)`.execute(db);
    }
    const before = await counts(ctx);
    const files = storedFiles(ctx);
    const filler = fill(dataDir);
    try {
      // PostgreSQL keeps its data elsewhere: only the documents' side is at stake here.
      if (ctx.app.deps.dbKind === 'sqlite') {
        expectStorageError(await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013plein0002' }) }), 507);
        // The document's file reached its place (its own disk has room), then its row could not be written: it goes.
        expectStorageError(await upload(ctx, '013plein0003', key, SAMPLES.png), 507);
        expectStorageError(await signUp(ctx, 'alix.plein@example.org'), 507);
        expect(await counts(ctx)).toEqual(before);
        expect(storedFiles(ctx)).toEqual(files);
        expect(tempFiles(ctx)).toEqual([]);
      }
    } finally {
      fs.rmSync(filler);
    }
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013plein0002' }) })).statusCode).toBe(201);
    expect((await upload(ctx, '013plein0003', key, SAMPLES.png)).statusCode).toBe(201);
    expect((await signUp(ctx, 'alix.plein@example.org')).statusCode).toBe(201);
  });
});

describe('a full or read-only database', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp();
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** SQLite: the database may not grow past its current pages (SQLITE_FULL), or not be written (SQLITE_READONLY). */
  async function limit(kind: 'full' | 'read-only' | 'none'): Promise<void> {
    const { db } = ctx.app.deps;
    if (kind === 'full') {
      // No free page left inside the file: VACUUM packs it.
      await sql`vacuum`.execute(db);
      const pages = Number(Object.values((await sql<Record<string, number>>`pragma page_count`.execute(db)).rows[0]!)[0]);
      expect(pages).toBeGreaterThan(0);
      await sql.raw(`pragma max_page_count = ${pages}`).execute(db);
    } else if (kind === 'read-only') {
      await sql`pragma query_only = 1`.execute(db);
    } else {
      await sql`pragma query_only = 0`.execute(db);
      await sql`pragma max_page_count = 4294967294`.execute(db);
    }
  }

  it.runIf(process.env.DATABASE_URL === undefined)('answers 507 to a creation when the database may not grow, writes nothing, then takes it', async () => {
    const before = await counts(ctx);
    await limit('full');
    try {
      // Long motivations need new pages (an overflow page, the search index).
      expectStorageError(await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013pages0001', motivations: 'm'.repeat(4000) }) }), 507);
      expect(await counts(ctx)).toEqual(before);
    } finally {
      await limit('none');
    }
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013pages0001', motivations: 'm'.repeat(4000) }) })).statusCode).toBe(201);
  });

  it.runIf(process.env.DATABASE_URL === undefined)('answers 503 with Retry-After when the database cannot be written', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013lecture02' }) });
    const key = created.json().data.accessKey as string;
    const before = await counts(ctx);
    const files = storedFiles(ctx);
    await limit('read-only');
    try {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013lecture03' }) });
      expectStorageError(res, 503);
      expect(res.headers['retry-after']).toBe('120');
      expectStorageError(await upload(ctx, '013lecture02', key, SAMPLES.png), 503);
      expectStorageError(await signUp(ctx, 'lecture@example.org'), 503);
      expect(storedFiles(ctx)).toEqual(files);
    } finally {
      await limit('none');
    }
    expect(await counts(ctx)).toEqual(before);
    expect((await signUp(ctx, 'lecture@example.org')).statusCode).toBe(201);
  });
});
