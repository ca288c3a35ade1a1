import fs from 'node:fs';
import type SqliteDatabase from 'better-sqlite3';
import type { DatabaseConnection, Dialect, Driver } from 'kysely';
import type { CheckpointsEnArrierePlan } from './checkpoint.js';
import { LecturesGroupees } from './lectures-groupees.js';
import { mandataire } from './mandataire.js';

/**
 * SQLite commits without waiting for the disk on the event loop, and is still durable when it answers
 * (docs/decisions/0014). The database runs with `synchronous = NORMAL` (a commit writes the WAL, no
 * fsync); when the connection is given back after a query or a transaction that committed something, its
 * holder waits for an fsync of the WAL file done on libuv's thread pool, so a transaction is on the disk
 * before its caller goes on. Commits made while an fsync runs share the next one (group commit): one fsync
 * per batch, none on the event loop, and the connection serves others during it. Each such commit is counted towards
 * the next checkpoint, which the background thread runs (checkpoint.ts). The hot path's reads of a loop turn share one
 * read transaction while no one holds the connection (lectures-groupees.ts): it ends before a holder runs anything.
 */
export function durableApresCommit(
  dialect: Dialect,
  sqlite: SqliteDatabase.Database,
  walPath: string,
  checkpoints: CheckpointsEnArrierePlan,
  /** Called after each commit that wrote, as its holder gives the connection back (fts-differe.ts). */
  apresEcriture: () => void = () => undefined,
): { dialect: Dialect; lectures: LecturesGroupees } {
  const wal = groupedFsync(walPath);
  const file = new FileDAttente();
  const lectures = new LecturesGroupees(sqlite, () => file.prise);
  // total_changes() counts rows written since the connection opened: a change since the last fsync asks for one.
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  let synced = Number(totalChanges.get());
  const durable = mandataire(dialect, {
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      let connection: DatabaseConnection | undefined;
      return mandataire(driver, {
        destroy: async (): Promise<void> => {
          // The checkpoint running ends first: closing the connection then copies what is left and removes the WAL.
          await checkpoints.fermer();
          lectures.fermer();
          await driver.destroy();
          await wal.close();
        },
        // The one connection is lent to one holder at a time (a query, or a whole transaction), in the order
        // asked. Kysely's own lock wakes every waiter at each release (O(n²) under 200 connections): it is
        // taken once, here, and never given back; this queue hands the connection on instead.
        acquireConnection: async (): Promise<DatabaseConnection> => {
          await file.prendre();
          lectures.fermer();
          connection ??= await driver.acquireConnection();
          return connection;
        },
        // The holder gives the connection back, *then* waits for the fsync of what it committed: the next
        // holder runs while the disk works, and the first goes on only once its commit is on the disk.
        releaseConnection: async (): Promise<void> => {
          const total = sqlite.inTransaction ? synced : Number(totalChanges.get());
          const ecrit = total !== synced;
          synced = total;
          file.rendre();
          if (!ecrit) return;
          checkpoints.apresCommit();
          apresEcriture();
          await wal.sync();
        },
      });
    },
  });
  return { dialect: durable, lectures };
}

/** A lock handed to its waiters one by one, in the order they asked. */
class FileDAttente {
  private occupee = false;
  private readonly attente: (() => void)[] = [];

  /** Whether someone holds the lock (from the call to `prendre` that got it until the `rendre` that frees it). */
  get prise(): boolean {
    return this.occupee;
  }

  prendre(): Promise<void> {
    if (!this.occupee) {
      this.occupee = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.attente.push(resolve));
  }

  rendre(): void {
    const suivant = this.attente.shift();
    if (suivant) suivant();
    else this.occupee = false;
  }
}

/** fsync of one file on the thread pool; callers arriving while one runs share the next. */
export function groupedFsync(file: string): { sync(): Promise<void>; close(): Promise<void> } {
  let fd: number | null = null;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const once = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const run = (handle: number) => fs.fsync(handle, (error) => (error ? reject(error) : resolve()));
      if (fd !== null) return run(fd);
      fs.open(file, 'r+', (error, handle) => {
        if (error) return reject(error);
        fd = handle;
        run(handle);
      });
    });
  const start = (): Promise<void> => {
    running = once().finally(() => {
      running = null;
    });
    return running;
  };
  const sync = (): Promise<void> => {
    if (!running) return start();
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        return running ?? start();
      });
    return next;
  };
  const close = async (): Promise<void> => {
    await Promise.allSettled([running, next]);
    if (fd !== null) fs.closeSync(fd);
    fd = null;
  };
  return { sync, close };
}

