import { sql } from 'kysely';
import { natif, type Db } from './index.js';

/** Rows brought into the index per transaction: a batch of many (a whole lot's status change) does not hold the loop. */
export const RATTRAPAGE_LOT = 64;

/** Names written into SQL as they are: constants of the code, never input. */
interface Noms {
  /** The external-content FTS5 table. */
  fts: string;
  /** Its content table and column. */
  table: string;
  colonne: string;
  /** The rows to bring in, noted by the content table's triggers (migration 0032): rowid `k`, text held `ancien`. */
  attente: string;
}

/**
 * SQLite: an FTS5 index brought up to date after its content's transactions rather than inside them
 * (docs/decisions/0024). The triggers note the changed rows; this empties the note into the index, in
 * transactions of its own: at the end of the turn of the event loop in which this process wrote (`planifier`,
 * called after each commit that wrote), so that the writes of a turn cost the index one segment, and always before
 * the index is read (`aJour`), so that a search never misses a change, nor what a crash left noted (rows may wait at
 * start). Only this process writes the content table while the server runs (SQLite: one instance, the command-line
 * tools that write it run with the server stopped): its writes are the ones it must follow.
 */
export class IndexFtsDiffere {
  private static readonly parDb = new WeakMap<Db, Map<string, IndexFtsDiffere>>();

  /** The one instance of `noms.fts` on `db` (every repository of the database shares its schedule). */
  static pour(db: Db, noms: Noms): IndexFtsDiffere {
    let parFts = IndexFtsDiffere.parDb.get(db);
    if (!parFts) IndexFtsDiffere.parDb.set(db, (parFts = new Map()));
    let index = parFts.get(noms.fts);
    if (!index) parFts.set(noms.fts, (index = new IndexFtsDiffere(db, noms)));
    return index;
  }

  /** Whether rows may wait: at first (a crash), then after each write of this process. */
  private peutAttendre = true;
  /** Whether this process's writes are seen (WAL: durable.ts tells them); else every read looks. */
  private readonly suivi: boolean;
  private planifie = false;
  /**
   * The batch asked for and not yet done: whoever asks meanwhile waits for it rather than for one more (nothing is
   * written while it holds the connection, so it takes every row noted until its end).
   */
  private prochain: Promise<boolean> | null = null;
  /** A batch wrote and is committing: the next commit told is its own, which notes nothing. */
  private sonCommit = false;

  private constructor(
    private readonly db: Db,
    private readonly noms: Noms,
  ) {
    const n = natif(db);
    this.suivi = n?.kind === 'sqlite' && n.surEcriture !== undefined;
    if (n?.kind === 'sqlite') n.surEcriture?.add(() => this.planifier());
    // What a crash left noted is brought in at start, rather than by the first search.
    if (this.suivi) this.planifier();
  }

  /**
   * After a commit that wrote: the rows it noted go into the index at the end of this turn, with the turn's others.
   * A batch's own release is the first one told after its statements (no one else holds the connection in between),
   * whether it committed or failed: a failing batch is not tried again at every turn, but at the next write or search.
   */
  planifier(): void {
    if (this.sonCommit) {
      this.sonCommit = false;
      return;
    }
    this.peutAttendre = true;
    if (this.planifie) return;
    this.planifie = true;
    setImmediate(() => {
      this.planifie = false;
      // A failure leaves the rows noted, for the next write's turn or the next search (which then answers the error).
      this.aJour().catch(() => undefined);
    });
  }

  /**
   * Brings into the index every row noted before the call (at once when none can be): batches until one leaves the
   * note empty, the loop given a turn between two. Rows noted meanwhile may be in or not: a search started before
   * their write was answered may miss them. Resolves once a batch committed, before it gives the connection back and
   * waits for the disk (durable.ts lends the connection to one holder at a time, in the order asked): a read asked
   * for afterwards sees the index as it left it.
   */
  async aJour(): Promise<void> {
    if (this.suivi && !this.peutAttendre) return;
    while (!(await (this.prochain ??= this.lot()))) await new Promise((r) => setImmediate(r));
  }

  /**
   * The whole index built again from its content, the note emptied, in one transaction: for a table filled in bulk
   * (the benches' seeds), where bringing rows in 64 at a time would take much longer.
   */
  async reconstruire(): Promise<void> {
    const [f, a] = [this.noms.fts, this.noms.attente].map((n) => sql.raw(n));
    await this.db.transaction().execute(async (trx) => {
      await sql`insert into ${f} (${f}) values ('rebuild')`.execute(trx);
      await sql`delete from ${a}`.execute(trx);
    });
  }

  /**
   * One transaction: up to RATTRAPAGE_LOT noted rows forgotten by their old text, indexed by their new one. True when
   * it left the note empty. Begun and committed here, on a connection held for the purpose, so that its callers go on
   * once the commit succeeded, not after the fsync that follows it, and learn of a failed commit.
   */
  private lot(): Promise<boolean> {
    const { fts, table, colonne, attente } = this.noms;
    const [f, t, c, a] = [fts, table, colonne, attente].map((n) => sql.raw(n));
    const premiers = sql`(select k, ancien, indexe from ${a} order by k limit ${RATTRAPAGE_LOT})`;
    let resolve!: (vide: boolean) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<boolean>((ok, ko) => {
      resolve = ok;
      reject = ko;
    });
    const n0 = natif(this.db);
    const enTransaction = () => n0?.kind === 'sqlite' && n0.sqlite.inTransaction;
    this.db
      .connection()
      .execute(async (conn) => {
        await sql`begin`.execute(conn);
        try {
          const { rows } = await sql<{ n: number }>`select count(*) as n from (select 1 from ${a} limit ${RATTRAPAGE_LOT + 1})`.execute(conn);
          const n = Number(rows[0]!.n);
          if (n > 0) {
            this.sonCommit = true;
            await sql`insert into ${f} (${f}, rowid, ${c}) select 'delete', k, ancien from ${premiers} where indexe = 1`.execute(conn);
            await sql`insert into ${f} (rowid, ${c}) select h.rowid, h.${c} from ${premiers} as p join ${t} as h on h.rowid = p.k`.execute(conn);
            await sql`delete from ${a} where k in (select k from ${premiers})`.execute(conn);
          }
          await sql`commit`.execute(conn);
          // Still holding the connection: nothing was written since the count. What is written from now on asks again.
          this.peutAttendre = n > RATTRAPAGE_LOT;
          if (this.prochain === promise) this.prochain = null;
          resolve(n <= RATTRAPAGE_LOT);
        } catch (error) {
          if (enTransaction()) await sql`rollback`.execute(conn);
          throw error;
        }
      })
      .catch((error: unknown) => {
        // Rolled back (or its fsync failed, once committed): the rows stay noted, or are in the index.
        this.sonCommit = false;
        this.peutAttendre = true;
        if (this.prochain === promise) this.prochain = null;
        reject(error as Error);
      });
    return promise;
  }
}
