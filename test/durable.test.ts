import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Db } from '../src/server/db/index.js';

// SQLite's durable commits (docs/decisions/0014, src/server/db/durable.ts): a writer goes on only once the WAL
// holding its commit is fsynced, and while that fsync runs the one connection serves the others. The disk is
// held here by keeping fsync's callbacks until the test lets them go.
describe('durable commits on SQLite', () => {
  let dir: string;
  let db: Db;
  let held: ((error: NodeJS.ErrnoException | null) => void)[];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-durable-'));
    db = openDatabase({ databaseUrl: undefined, dataDir: dir }).db;
    await sql`create table t (x integer)`.execute(db);
    held = [];
    // Only this test's database is held: another file's leftovers (a mail written late) reach the real disk. Where
    // a descriptor's path cannot be read (no /proc), every fsync is held.
    const fsync = fs.fsync.bind(fs);
    const racine = fs.realpathSync(dir);
    vi.spyOn(fs, 'fsync').mockImplementation(((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      let chemin: string | null;
      try {
        chemin = fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        chemin = null;
      }
      if (chemin === null || chemin.startsWith(racine)) held.push(callback);
      else fsync(fd, callback);
    }) as typeof fs.fsync);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    for (const callback of held) callback(null);
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const fsyncAsked = async () => {
    for (let i = 0; i < 1000 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect(held.length).toBe(1);
  };

  it('answers a writer once its commit is on the disk, and serves reads while the disk works', async () => {
    let written = false;
    const write = db
      .transaction()
      .execute((trx) => sql`insert into t (x) values (1)`.execute(trx))
      .then(() => {
        written = true;
      });
    await fsyncAsked();
    // The connection is free during the fsync: a read goes through and sees the committed row…
    const rows = await sql<{ x: number }>`select x from t`.execute(db);
    expect(rows.rows).toEqual([{ x: 1 }]);
    // …while the writer still waits for the disk.
    await new Promise((r) => setTimeout(r, 20));
    expect(written).toBe(false);
    held.shift()!(null);
    await write;
    expect(written).toBe(true);
  });

  it('fails the writer when the fsync fails, and only that writer', async () => {
    const write = sql`insert into t (x) values (2)`.execute(db);
    await fsyncAsked();
    held.shift()!(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
    await expect(write).rejects.toThrow('EIO');
    // A read asks for no fsync and goes on.
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(db)).rows[0]!.n).toBe(1);
    expect(held).toHaveLength(0);
  });
});
