import type { Statement } from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { dialecte } from './gabarit.js';
import { natif, type Db, type Natif } from './index.js';
import { colonnesFixes, enLignes } from './lignes.js';

/**
 * One read of a hot path, prepared once and run on the driver itself rather than built by Kysely for
 * each request (issue 11: building a query and camel-casing its answer cost more than the lookup):
 * - SQLite: better-sqlite3 prepares it once; while a transaction is open on the connection (an await
 *   inside one), the read goes through Kysely instead, which waits for it to end, so that no uncommitted
 *   row is ever seen; in WAL mode the reads of one loop turn share a read transaction (lectures-groupees.ts);
 * - PostgreSQL: a named prepared statement (each pooled connection prepares it at its first use).
 * Columns are aliased to the names the code uses (`as "numeroUnique"`): the answer is used as it comes.
 */
export class RequetePreparee<R> {
  private readonly natif: Natif | undefined;
  /** The SQL Kysely runs when the driver is not at hand. */
  private readonly viaKysely: string;
  /** SQLite: the statement, prepared once, giving its rows as arrays, and the maker of their objects. */
  private sqlite: { statement: Statement<unknown[], unknown[]>; ligne: (valeurs: unknown[]) => R } | undefined;

  constructor(
    private readonly db: Db,
    /** PostgreSQL's name of the statement, unique in the app. */
    private readonly name: string,
    /** The SQL with `?` placeholders (SQLite). */
    private readonly sqliteSql: string,
    /** The same SQL with `$1`, `$2`… (PostgreSQL). */
    private readonly postgresSql: string,
  ) {
    this.natif = natif(db);
    this.viaKysely = dialecte(db) === 'pg' ? postgresSql : sqliteSql;
  }

  /** The first row of the answer, or undefined. */
  async first(...values: unknown[]): Promise<R | undefined> {
    const n = this.natif;
    if (n?.kind === 'sqlite' && lisibleTelQuel(n)) {
      const { statement, ligne } = (this.sqlite ??= preparer<R>(n.sqlite, this.sqliteSql));
      const valeurs = statement.get(...values);
      return valeurs === undefined ? undefined : ligne(valeurs);
    }
    return (await this.all(...values))[0];
  }

  /** Every row of the answer. */
  async all(...values: unknown[]): Promise<R[]> {
    const n = this.natif;
    if (n?.kind === 'sqlite') {
      if (lisibleTelQuel(n)) {
        const { statement, ligne } = (this.sqlite ??= preparer<R>(n.sqlite, this.sqliteSql));
        return statement.all(...values).map(ligne);
      }
      return (await this.db.executeQuery<R>(CompiledQuery.raw(this.sqliteSql, values))).rows as R[];
    }
    if (n?.kind === 'postgres') {
      const result = await n.pool.query<R & object>({ name: this.name, text: this.postgresSql, values });
      return result.rows;
    }
    return (await this.db.executeQuery<R>(CompiledQuery.raw(this.viaKysely, values))).rows as R[];
  }
}

/** SQLite: the statement in raw mode and the maker of its rows' objects (lignes.ts). */
function preparer<R>(sqlite: Extract<Natif, { kind: 'sqlite' }>['sqlite'], sql: string) {
  if (!colonnesFixes(sql)) throw new Error(`a hot read names its columns (lignes.ts colonnesFixes): ${sql}`);
  const statement = sqlite.prepare<unknown[], unknown[]>(sql);
  return { statement, ligne: enLignes<R>(statement) };
}

/**
 * SQLite: whether the statement may run on the connection at once: inside the loop turn's read transaction
 * (lectures-groupees.ts, WAL only), or outside any transaction. Not while another holder's transaction is open.
 */
function lisibleTelQuel(n: Extract<Natif, { kind: 'sqlite' }>): boolean {
  return n.lectures?.entrer() === true || !n.sqlite.inTransaction;
}
