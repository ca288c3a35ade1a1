import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUTO_CHECKPOINT_SECOURS, CheckpointsEnArrierePlan, COMMITS_PAR_CHECKPOINT } from '../src/server/db/checkpoint.js';
import { natif, openDatabase, type Db } from '../src/server/db/index.js';
import { RequetePreparee } from '../src/server/db/preparee.js';

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

  // The hot path's reads of one loop turn share one read transaction (lectures-groupees.ts).
  const compter = () => new RequetePreparee<{ n: number }>(db, 'qv_test_compter', 'select count(*) as n from t', 'select count(*) as n from t');
  const tourSuivant = () => new Promise((resolve) => setImmediate(resolve));

  it('reads of one loop turn see the database as of the first, and the next turn sees what was written meanwhile', async () => {
    const lire = compter();
    expect(await lire.first()).toEqual({ n: 0 });
    // Another process writes during the turn: a WAL reader never stops it.
    const autre = new SqliteDatabase(path.join(dir, 'app.db'), { timeout: 0 });
    try {
      autre.prepare('insert into t (x) values (9)').run();
    } finally {
      autre.close();
    }
    expect(await lire.first()).toEqual({ n: 0 });
    await tourSuivant();
    expect(await lire.first()).toEqual({ n: 1 });
    await tourSuivant();
    const n = natif(db)!;
    expect(n.kind === 'sqlite' && n.sqlite.inTransaction).toBe(false);
  });

  it('a write or a transaction asked in the same turn as a read commits on its own and waits for its fsync', async () => {
    const lire = compter();
    await lire.first();
    const write = sql`insert into t (x) values (3)`.execute(db);
    await fsyncAsked();
    held.shift()!(null);
    await write;
    await lire.first();
    const transaction = db.transaction().execute((trx) => sql`insert into t (x) values (4)`.execute(trx));
    await fsyncAsked();
    held.shift()!(null);
    await transaction;
    // Both on the disk, seen from another connection.
    const autre = new SqliteDatabase(path.join(dir, 'app.db'), { readonly: true });
    try {
      expect(autre.prepare('select x from t order by x').pluck().all()).toEqual([3, 4]);
    } finally {
      autre.close();
    }
  });
});

// SQLite's checkpoints run on the background thread (src/server/db/checkpoint.ts): the WAL is copied back into the
// database file there, every COMMITS_PAR_CHECKPOINT commits, and the connection's own checkpoint waits for a WAL ten
// times SQLite's default. In WAL mode the database file grows only when a checkpoint copies pages into it.
describe('checkpoints on the background thread', () => {
  let dir: string;
  let db: Db | null;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-checkpoint-'));
    db = openDatabase({ databaseUrl: undefined, dataDir: dir }).db;
    await sql`create table t (x text)`.execute(db);
  });

  afterEach(async () => {
    await db?.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const fichier = () => path.join(dir, 'app.db');
  const ecrire = async (n: number) => {
    for (let i = 0; i < n; i++) await sql`insert into t (x) values (${'x'.repeat(3000)})`.execute(db!);
  };

  it(`copies the WAL into the database file after ${COMMITS_PAR_CHECKPOINT} commits, far below the connection's own threshold`, async () => {
    const avant = fs.statSync(fichier()).size;
    await ecrire(COMMITS_PAR_CHECKPOINT);
    // ~100 pages of rows written, against the connection's own threshold of AUTO_CHECKPOINT_SECOURS pages.
    const connexion = natif(db!);
    expect(connexion?.kind === 'sqlite' && connexion.sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(AUTO_CHECKPOINT_SECOURS);
    expect(COMMITS_PAR_CHECKPOINT * 2).toBeLessThan(AUTO_CHECKPOINT_SECOURS);
    let taille = avant;
    for (let i = 0; i < 400 && taille < avant + 50 * 4096; i++) {
      await new Promise((r) => setTimeout(r, 10));
      taille = fs.statSync(fichier()).size;
    }
    expect(taille).toBeGreaterThanOrEqual(avant + 50 * 4096);
  });

  it('closes with every row in the database file and no WAL left, a checkpoint having just been asked', async () => {
    // The 100th commit asks for a checkpoint; the close waits for it, then copies what is left.
    await ecrire(COMMITS_PAR_CHECKPOINT);
    await db!.destroy();
    db = null;
    expect(fs.existsSync(`${fichier()}-wal`)).toBe(false);
    const relue = openDatabase({ databaseUrl: undefined, dataDir: dir }).db;
    expect((await sql<{ n: number }>`select count(*) as n from t`.execute(relue)).rows[0]!.n).toBe(COMMITS_PAR_CHECKPOINT);
    await relue.destroy();
  });

  it('reports a checkpoint that fails, and asks again after the next commits', async () => {
    const erreurs: Error[] = [];
    const checkpoints = new CheckpointsEnArrierePlan(path.join(dir, 'absent.db'), { commitsParCheckpoint: 2, onErreur: (e) => erreurs.push(e) });
    checkpoints.apresCommit();
    checkpoints.apresCommit();
    await checkpoints.fermer();
    expect(erreurs).toHaveLength(1);
    expect(erreurs[0]!.message).toMatch(/unable to open database file/u);
    // Through openDatabase: the app's report (a warning in its log). The file is removed after the commits.
    const reports: Error[] = [];
    const autre = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-checkpoint-'));
    const base = openDatabase({ databaseUrl: undefined, dataDir: autre, onCheckpointError: (e) => reports.push(e) }).db;
    await sql`create table t (x text)`.execute(base);
    for (let i = 0; i < COMMITS_PAR_CHECKPOINT - 1; i++) await sql`insert into t (x) values ('x')`.execute(base);
    fs.renameSync(path.join(autre, 'app.db'), path.join(autre, 'ailleurs.db'));
    await sql`insert into t (x) values ('x')`.execute(base);
    await base.destroy();
    fs.rmSync(autre, { recursive: true, force: true });
    expect(reports.map((e) => e.message)).toEqual([expect.stringMatching(/unable to open database file/u)]);
  });

  it('runs one checkpoint at a time, asks again after a failure, and closes once the running one has ended', async () => {
    const lances: { fin: (erreur?: Error) => void }[] = [];
    const erreurs: Error[] = [];
    const checkpoints = new CheckpointsEnArrierePlan('app.db', {
      commitsParCheckpoint: 1,
      onErreur: (e) => erreurs.push(e),
      lancer: () => new Promise((resolve, reject) => lances.push({ fin: (erreur) => (erreur ? reject(erreur) : resolve(undefined)) })),
    });
    checkpoints.apresCommit();
    checkpoints.apresCommit();
    expect(lances).toHaveLength(1);
    lances[0]!.fin(new Error('disque plein'));
    await new Promise((r) => setImmediate(r));
    expect(erreurs.map((e) => e.message)).toEqual(['disque plein']);
    checkpoints.apresCommit();
    expect(lances).toHaveLength(2);
    let ferme = false;
    const fermeture = checkpoints.fermer().then(() => (ferme = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(ferme).toBe(false);
    lances[1]!.fin();
    await fermeture;
    expect(ferme).toBe(true);
    // Closed: no more checkpoints.
    checkpoints.apresCommit();
    expect(lances).toHaveLength(2);
  });

  it('a thread that cannot start fails no commit', async () => {
    const erreurs: Error[] = [];
    const checkpoints = new CheckpointsEnArrierePlan('app.db', {
      commitsParCheckpoint: 1,
      onErreur: (e) => erreurs.push(e),
      lancer: () => {
        throw new Error('ERR_WORKER_INIT_FAILED');
      },
    });
    expect(() => checkpoints.apresCommit()).not.toThrow();
    expect(erreurs.map((e) => e.message)).toEqual(['ERR_WORKER_INIT_FAILED']);
    await checkpoints.fermer();
  });
});
