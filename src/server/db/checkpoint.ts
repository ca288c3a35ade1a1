import SqliteDatabase from 'better-sqlite3';
import { enArrierePlan } from '../worker/index.js';

/**
 * SQLite's WAL is copied back into the database file (a checkpoint) on the background thread, not on the event loop
 * (issue 11 point 4, docs/decisions/0014). SQLite's own automatic checkpoint runs in the commit that passes its
 * threshold: up to 1,000 pages written and two fsyncs (the WAL's, then the file's), 10-40 ms on a small server's disk
 * with every request waiting. Here every COMMITS_PAR_CHECKPOINT commits that wrote something, one PASSIVE checkpoint
 * runs on its own connection there (it waits for no reader or writer, and none waits for it); at most one at a time.
 * The connection's own automatic checkpoint stays, at a threshold ten times SQLite's (AUTO_CHECKPOINT_SECOURS): SQLite
 * starts the WAL again from its beginning only at a write that finds it all copied, which a checkpoint on another
 * thread rarely leaves under steady writes (commits go on while it copies). So under a steady load the WAL grows to
 * that threshold (~40 MB), where the connection's own checkpoint copies the little left since the thread's last one,
 * and the WAL starts again: its two fsyncs then run on the event loop, ten times more rarely than before.
 */
export const COMMITS_PAR_CHECKPOINT = 100;
/** Pages of WAL past which the writing connection checkpoints itself (SQLite's default: 1,000). */
export const AUTO_CHECKPOINT_SECOURS = 10_000;

export class CheckpointsEnArrierePlan {
  private commits = 0;
  private enCours: Promise<void> | null = null;
  private fermes = false;

  constructor(
    /** The database file (its WAL beside it). */
    private readonly fichier: string,
    private readonly options: {
      commitsParCheckpoint?: number;
      onErreur?: (error: Error) => void;
      /** Runs the checkpoint (tests hold it): the background thread's task by default. */
      lancer?: (fichier: string) => Promise<unknown>;
    } = {},
  ) {}

  /** A transaction committed writes: every COMMITS_PAR_CHECKPOINT of them, a checkpoint is asked (unless one runs). */
  apresCommit(): void {
    if (this.fermes) return;
    this.commits += 1;
    if (this.enCours || this.commits < (this.options.commitsParCheckpoint ?? COMMITS_PAR_CHECKPOINT)) return;
    this.commits = 0;
    const signaler = (error: unknown) => {
      try {
        this.options.onErreur?.(error instanceof Error ? error : new Error(String(error)));
      } catch {
        // A failing report must not fail the commit that asked, nor reject where nobody listens.
      }
    };
    let tache: Promise<unknown>;
    try {
      tache = (this.options.lancer ?? ((fichier: string) => enArrierePlan('checkpointSqlite', fichier)))(this.fichier);
    } catch (error) {
      // The thread could not start: the commit that asked has committed all the same.
      signaler(error);
      return;
    }
    this.enCours = tache.then(() => undefined, signaler).finally(() => {
      this.enCours = null;
    });
  }

  /** No more checkpoints; waits for the one running (so that closing the connection then checkpoints what is left). */
  async fermer(): Promise<void> {
    this.fermes = true;
    await this.enCours;
  }
}

/**
 * The background thread's side: a PASSIVE checkpoint on a connection of its own, opened for it and closed after (the
 * thread keeps nothing and may stop at any time). Closing it never checkpoints nor removes the WAL: the app's
 * connection is still open.
 */
export function checkpointPassif(fichier: string): void {
  // timeout 0: never wait for a lock (PASSIVE takes none that it would wait for).
  const connexion = new SqliteDatabase(fichier, { fileMustExist: true, timeout: 0 });
  try {
    connexion.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    connexion.close();
  }
}
