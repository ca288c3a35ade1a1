import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalStorage } from '../src/server/storage/index.js';
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

  it('refuses keys that leave its root', async () => {
    expect(() => storage.read('../outside')).toThrow();
    const t = storage.createTemp();
    t.stream.end('x');
    await expect(t.commit('../../evil')).rejects.toThrow();
    await t.discard();
  });
});

describe('orphan sweep at start', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('removes old files no document references, keeps recorded ones and recent ones', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013sweep0001' }) });
    const key = created.json().data.accessKey;
    const body = await multipart([{ field: 'livret', name: 'l.pdf', content: SAMPLES.pdf }]);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement/upload-files/013sweep0001', headers: { ...body.headers, 'x-access-key': key }, payload: body.payload })).statusCode).toBe(201);

    const uploads = path.join(ctx.dataDir, 'uploads');
    const old = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.mkdirSync(path.join(uploads, 'ghost/doc'), { recursive: true });
    fs.writeFileSync(path.join(uploads, 'ghost/doc/other-1-x.pdf'), 'orphan');
    fs.utimesSync(path.join(uploads, 'ghost/doc/other-1-x.pdf'), old, old);
    fs.writeFileSync(path.join(uploads, 'recent.pdf'), 'under way elsewhere');
    // A profile picture is no document, and must survive every restart however old it is.
    const account = await createAccount(ctx);
    const pic = await multipart([{ field: 'pic', name: 'moi.png', content: SAMPLES.png }]);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...pic.headers, cookie: account.cookie }, payload: pic.payload })).statusCode).toBe(201);
    const avatar = filesUnder(uploads).filter((f) => f.startsWith('avatars/'));
    expect(avatar).toHaveLength(1);
    fs.utimesSync(path.join(uploads, avatar[0]!), old, old);
    fs.writeFileSync(path.join(uploads, '.tmp', 'stale'), 'crash leftover');
    fs.utimesSync(path.join(uploads, '.tmp', 'stale'), old, old);
    const recorded = filesUnder(uploads).filter((f) => f.endsWith('livret-1-l.pdf'));
    expect(recorded).toHaveLength(1);

    // Restart on the same data: the sweep runs at build time.
    const { buildApp } = await import('../src/server/app.js');
    const again = await buildApp(ctx.config, { logger: false });
    await again.close();
    expect(filesUnder(uploads).sort()).toEqual([...recorded, ...avatar, 'recent.pdf'].sort());
  });
});
