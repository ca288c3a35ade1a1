import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { sweepLeftovers } from '../src/server/features/demandes/upload.js';
import { EN_MEMOIRE_MAX, EN_MEMOIRE_TOTAL_MAX, octetsTenus } from '../src/server/storage/ecriture.js';
import { LocalStorage, STALE_MS } from '../src/server/storage/index.js';
import { placer } from '../src/server/storage/placer.js';
import { createAccount, createTestApp, demande, filesUnder, multipart, SAMPLES, type TestContext } from './helpers.js';

describe('local storage', () => {
  let root: string;
  let storage: LocalStorage;
  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-storage-'));
    storage = new LocalStorage(root);
    await storage.init();
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('shows a file only once committed, and a discarded one never', async () => {
    const kept = storage.createTemp();
    kept.stream.end(Buffer.from('hello'));
    expect(filesUnder(root).filter((f) => !f.startsWith('.tmp'))).toEqual([]);
    await kept.commit('r1/d1/other-1-a.pdf');
    expect(fs.readFileSync(path.join(root, 'r1/d1/other-1-a.pdf'), 'utf8')).toBe('hello');

    const dropped = storage.createTemp();
    dropped.stream.write(Buffer.from('half'));
    await dropped.discard();
    expect(filesUnder(root)).toEqual(['r1/d1/other-1-a.pdf']);
  });

  it('holds a file up to its size limit in memory until its commit, and streams a larger one to its temp file', async () => {
    // Up to 1 KB here (EN_MEMOIRE_MAX in the app): nothing on disk before the commit, which writes it whole in place.
    const petite = new LocalStorage(root, 1024);
    const tenue = petite.createTemp();
    tenue.stream.write(Buffer.alloc(600, 'a'));
    tenue.stream.end(Buffer.alloc(424, 'b'));
    await new Promise((r) => tenue.stream.once('close', r));
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
    await tenue.commit('r7/d7/other-1-a.pdf');
    expect(fs.readFileSync(path.join(root, 'r7/d7/other-1-a.pdf'), 'latin1')).toBe('a'.repeat(600) + 'b'.repeat(424));
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
    // One byte more: what was held and what follows go to the temp file as they come, whole once committed.
    const ecrite = petite.createTemp();
    ecrite.stream.write(Buffer.alloc(1000, 'c'));
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
    ecrite.stream.end(Buffer.alloc(25, 'd'));
    await new Promise((r) => ecrite.stream.once('close', r));
    const [temp] = filesUnder(path.join(root, '.tmp'));
    expect(fs.readFileSync(path.join(root, '.tmp', temp!), 'latin1')).toBe('c'.repeat(1000) + 'd'.repeat(25));
    await ecrite.commit('r7/d8/other-1-b.pdf');
    expect(fs.readFileSync(path.join(root, 'r7/d8/other-1-b.pdf'), 'latin1')).toBe('c'.repeat(1000) + 'd'.repeat(25));
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
    // Discarded, either leaves nothing.
    for (const taille of [10, 2000]) {
      const jetee = petite.createTemp();
      jetee.stream.end(Buffer.alloc(taille, 'e'));
      await new Promise((r) => jetee.stream.once('close', r));
      await jetee.discard();
      expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
    }
    expect(filesUnder(root).filter((f) => f.startsWith('r7'))).toEqual(['r7/d7/other-1-a.pdf', 'r7/d8/other-1-b.pdf'].map((f) => f.split('/').join(path.sep)));
  });

  it('holds at most EN_MEMOIRE_TOTAL_MAX for all the files under way, and lets go of what a commit or a discard ended', async () => {
    expect(octetsTenus()).toBe(0);
    const tenues = Array.from({ length: EN_MEMOIRE_TOTAL_MAX / EN_MEMOIRE_MAX }, () => storage.createTemp());
    for (const t of tenues) t.stream.end(Buffer.alloc(EN_MEMOIRE_MAX));
    await Promise.all(tenues.map((t) => new Promise((r) => t.stream.once('close', r))));
    expect(octetsTenus()).toBe(EN_MEMOIRE_TOTAL_MAX);
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
    // One byte more, in a file of its own: on disk at once.
    const enTrop = storage.createTemp();
    enTrop.stream.end(Buffer.from('x'));
    await new Promise((r) => enTrop.stream.once('close', r));
    expect(filesUnder(path.join(root, '.tmp'))).toHaveLength(1);
    await enTrop.commit('r6/d1/other-1-x.pdf');
    await tenues[0]!.commit('r6/d2/other-1-y.pdf');
    expect(fs.statSync(path.join(root, 'r6/d2/other-1-y.pdf')).size).toBe(EN_MEMOIRE_MAX);
    expect(octetsTenus()).toBe(EN_MEMOIRE_TOTAL_MAX - EN_MEMOIRE_MAX);
    await Promise.all(tenues.map((t) => t.discard()));
    expect(octetsTenus()).toBe(0);
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
  });

  it('gives a failed write as the cause of its commit, even when the writer listened to no error (a photo, an avatar)', async () => {
    // The temps' folder gone: past what is held in memory, opening the temp file fails.
    fs.rmSync(path.join(root, '.tmp'), { recursive: true });
    try {
      const t = storage.createTemp();
      t.stream.end(Buffer.alloc(EN_MEMOIRE_MAX + 1));
      await new Promise((r) => t.stream.once('close', r));
      await expect(t.commit('r5/d1/other-1-a.pdf')).rejects.toMatchObject({ cause: { code: 'ENOENT', syscall: 'open' } });
      await t.discard();
      expect(fs.existsSync(path.join(root, 'r5'))).toBe(false);
    } finally {
      fs.mkdirSync(path.join(root, '.tmp'));
    }
  });

  it("puts a file in place with its new folders' entries on the disk before it resolves (placer, the background thread's step)", async () => {
    // Which paths were fsynced before placer resolved (a power cut cannot be staged here: the fsyncs are watched). The
    // commit runs placer on the background thread, where no spy reaches: it is called here in place.
    const synced: string[] = [];
    const open = fsp.open.bind(fsp);
    const spy = vi.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const handle = await open(...args);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        await sync();
        synced.push(path.relative(root, String(args[0])));
      };
      return handle;
    });
    try {
      const tmp = path.join(root, '.tmp', 'a-placer');
      fs.writeFileSync(tmp, 'pièce');
      await placer(tmp, path.join(root, 'r9/d9/other-1-b.pdf'), root);
      expect(synced.sort()).toEqual(['', 'r9', 'r9/d9']);
      expect(fs.readFileSync(path.join(root, 'r9/d9/other-1-b.pdf'), 'utf8')).toBe('pièce');
      expect(fs.existsSync(tmp)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps the code of a file system error met on the background thread, and nothing under the key', async () => {
    const file = storage.createTemp();
    file.stream.end(Buffer.from('x'));
    // A file where the file's folder should be made: mkdir fails there. The error handler answers by the code and the
    // call (errors.ts: EACCES on a call is « stockage indisponible »), so both must cross.
    fs.writeFileSync(path.join(root, 'bloque'), 'not a folder');
    await expect(file.commit('bloque/d1/other-1-c.pdf')).rejects.toMatchObject({ code: 'ENOTDIR', syscall: 'mkdir' });
    expect(fs.readFileSync(path.join(root, 'bloque'), 'utf8')).toBe('not a folder');
    await file.discard();
    expect(filesUnder(path.join(root, '.tmp'))).toEqual([]);
  });

  it('refuses keys that leave its root', async () => {
    expect(() => storage.read('../outside')).toThrow();
    const t = storage.createTemp();
    t.stream.end('x');
    await expect(t.commit('../../evil')).rejects.toThrow();
    await t.discard();
  });
});

describe('sweep of interrupted writes', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp();
  });
  afterAll(async () => {
    await ctx.close();
  });

  const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
  const uploadsOf = () => path.join(ctx.dataDir, 'uploads');
  const mailDirOf = () => path.join(ctx.dataDir, 'mail');
  const sweepDeps = () => ({ repository: new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind), storage: ctx.app.deps.storage, mailDir: mailDirOf() });

  /** A request with one recorded document and an account with its picture: what no sweep may touch. */
  async function keptFiles(numero: string): Promise<string[]> {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: numero }) });
    const key = created.json().data.accessKey;
    const body = await multipart([{ field: 'livret', name: 'l.pdf', content: SAMPLES.pdf }]);
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': key }, payload: body.payload })).statusCode).toBe(201);
    const account = await createAccount(ctx);
    const pic = await multipart([{ field: 'pic', name: 'moi.png', content: SAMPLES.png }]);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...pic.headers, cookie: account.cookie }, payload: pic.payload })).statusCode).toBe(201);
    await ctx.app.deps.mailer.idle();
    const kept = filesUnder(uploadsOf()).filter((f) => f.startsWith(`avatars${path.sep}${account.uid}`) || f.endsWith(`livret-l.pdf`));
    expect(kept).toHaveLength(2);
    // However old, a referenced picture and a recorded document stay.
    for (const f of kept) fs.utimesSync(path.join(uploadsOf(), f), old, old);
    return kept;
  }

  function leaveLeftovers(tag: string, when?: Date): void {
    const uploads = uploadsOf();
    fs.mkdirSync(path.join(uploads, `ghost-${tag}/doc`), { recursive: true });
    fs.writeFileSync(path.join(uploads, `ghost-${tag}/doc/other-1-x.pdf`), 'orphan');
    fs.writeFileSync(path.join(uploads, '.tmp', `cut-${tag}`), 'crash leftover');
    fs.mkdirSync(mailDirOf(), { recursive: true });
    fs.writeFileSync(path.join(mailDirOf(), `.2026-${tag}.eml.tmp`), 'half a mail');
    if (when) {
      fs.utimesSync(path.join(uploads, `ghost-${tag}/doc/other-1-x.pdf`), when, when);
      fs.utimesSync(path.join(uploads, '.tmp', `cut-${tag}`), when, when);
      fs.utimesSync(path.join(mailDirOf(), `.2026-${tag}.eml.tmp`), when, when);
    }
  }

  const mailFiles = () => fs.readdirSync(mailDirOf()).filter((f) => f.endsWith('.eml'));

  it('removes at start every temp file, orphan and mail stub, even seconds old; keeps documents, pictures and e-mails', async () => {
    const kept = await keptFiles('013sweep0001');
    const mails = mailFiles();
    expect(mails.length).toBeGreaterThan(0);
    leaveLeftovers('a');

    if (ctx.app.deps.dbKind === 'sqlite') {
      // Restart on the same data: the sweep runs at build time, this process being SQLite's only writer.
      const again = await buildApp(ctx.config, { logger: false });
      await again.close();
    } else {
      // PostgreSQL: the start-up sweep takes a second look 20 s later (other instances may share DATA_DIR), and spares
      // a temp file younger than a request's longest life: another instance's upload may still need it.
      const sparing = await sweepLeftovers(sweepDeps(), { olderThanMs: 0, tempsOlderThanMs: STALE_MS, secondLookAfterMs: 1, wait: async () => {} });
      expect(sparing).toEqual({ temp: 0, orphans: 1, stubs: 1 });
      expect(fs.existsSync(path.join(uploadsOf(), '.tmp', 'cut-a'))).toBe(true);
      const removed = await sweepLeftovers(sweepDeps(), { olderThanMs: 0, secondLookAfterMs: 1, wait: async () => {} });
      expect(removed).toEqual({ temp: 1, orphans: 0, stubs: 0 });
    }
    expect(filesUnder(uploadsOf()).sort()).toEqual([...kept].sort());
    expect(fs.readdirSync(mailDirOf()).sort()).toEqual(mails.sort());
  });

  it('while running, removes only leftovers older than an hour', async () => {
    const before = filesUnder(uploadsOf()).sort();
    leaveLeftovers('old', old);
    leaveLeftovers('new');
    const removed = await sweepLeftovers(sweepDeps(), { olderThanMs: STALE_MS });
    expect(removed).toEqual({ temp: 1, orphans: 1, stubs: 1 });
    expect(filesUnder(uploadsOf()).sort()).toEqual([...before, '.tmp/cut-new', 'ghost-new/doc/other-1-x.pdf'].map((f) => f.split('/').join(path.sep)).sort());
    expect(fs.existsSync(path.join(mailDirOf(), '.2026-new.eml.tmp'))).toBe(true);
    await sweepLeftovers(sweepDeps(), { olderThanMs: 0 });
  });

  it('on a second look, spares what changed meanwhile: a temp file still written to, a file whose document was recorded', async () => {
    const before = filesUnder(uploadsOf()).sort();
    leaveLeftovers('b', old);
    const uploads = uploadsOf();
    fs.writeFileSync(path.join(uploads, '.tmp', 'under-way'), 'first bytes');
    fs.utimesSync(path.join(uploads, '.tmp', 'under-way'), old, old);
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013sweep0002' }) });
    const row = (await new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind).findByNumero('013sweep0002'))!;
    expect(created.statusCode).toBe(201);
    const docId = '6f1c1f5e-8f6a-4a53-9d5e-0d1d0c1b2a3f';
    const storageKey = `${row.id}/${docId}/other-1-late.pdf`;
    fs.mkdirSync(path.join(uploads, row.id, docId), { recursive: true });
    fs.writeFileSync(path.join(uploads, storageKey), SAMPLES.pdf);

    const removed = await sweepLeftovers(sweepDeps(), {
      olderThanMs: 0,
      secondLookAfterMs: 1,
      // Meanwhile the upload under way writes more, and another instance records its document.
      wait: async () => {
        fs.appendFileSync(path.join(uploads, '.tmp', 'under-way'), ' and more');
        await ctx.app.deps.db
          .insertInto('documents')
          .values({ id: docId, housingRequestId: row.id, category: 'other', position: 1, storageKey, originalName: 'late.pdf', contentType: 'application/pdf', size: SAMPLES.pdf.length, sha256: 'x', uploadedAt: new Date().toISOString() })
          .execute();
      },
    });
    expect(removed).toEqual({ temp: 1, orphans: 1, stubs: 1 });
    expect(filesUnder(uploads).sort()).toEqual([...before, path.join('.tmp', 'under-way'), storageKey.split('/').join(path.sep)].sort());
  });
});
