import type SqliteDatabase from 'better-sqlite3';

/**
 * SQLite in WAL mode: the hot path's reads (preparee.ts) made in one turn of the event loop share one read
 * transaction (docs/decisions/0014 « Reads of a loop turn in one transaction »). A statement run outside a
 * transaction takes a read lock on the WAL and gives it back (system calls on the `-shm` file, ~3-4 µs of a status
 * lookup's ~27 µs in the server); under load, the lookups that arrive in one turn pay for it once.
 *
 * The transaction is opened by the first such read of a turn when no one holds the connection (durable.ts lends it
 * to one query or transaction at a time), and ended by `setImmediate`, after the turn's I/O callbacks, or as soon as
 * someone takes the connection (`fermer`, called by durable.ts before the holder runs anything): a write therefore
 * never runs inside it, and every read made after a commit of this process sees it. A read inside it sees the
 * database as of its start, at most one turn old, as another process's write made during the turn would be seen
 * only at the next.
 */
export class LecturesGroupees {
  private ouverte = false;
  private readonly debut: SqliteDatabase.Statement;
  private readonly fin: SqliteDatabase.Statement;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    /** Whether someone holds the connection (a query or a transaction under way, durable.ts). */
    private readonly connexionPrise: () => boolean,
  ) {
    this.debut = sqlite.prepare('begin');
    this.fin = sqlite.prepare('commit');
  }

  /**
   * Whether a read may run on the connection now, inside this turn's read transaction (opened here if need be).
   * False while someone holds the connection or another transaction is open: the caller reads as before.
   */
  entrer(): boolean {
    if (this.ouverte) return true;
    if (this.sqlite.inTransaction || this.connexionPrise() || !this.sqlite.open) return false;
    this.debut.run();
    this.ouverte = true;
    setImmediate(() => this.fermer());
    return true;
  }

  /**
   * Ends the turn's read transaction, if open. It wrote nothing: its end never waits and never fails for a lock. Never
   * throws: durable.ts calls it holding the connection's lock, which must be given on whatever happens.
   */
  fermer(): void {
    if (!this.ouverte) return;
    this.ouverte = false;
    if (!this.sqlite.open || !this.sqlite.inTransaction) return;
    try {
      this.fin.run();
    } catch {
      // Whatever stopped the end (a connection broken meanwhile), nothing is left open if it can be helped; the holder's
      // own statement then meets the connection's error, which is answered as any.
      try {
        if (this.sqlite.inTransaction) this.sqlite.prepare('rollback').run();
      } catch {
        /* the connection's error reaches the next statement */
      }
    }
  }
}
