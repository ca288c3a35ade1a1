import { CompiledQuery, PostgresAdapter, type Insertable } from 'kysely';
import type { Db } from './index.js';
import type { Database } from './schema.js';

/**
 * One row inserted by SQL built once per table and set of columns (issue 11 point 4). Kysely builds, names and compiles
 * an insert anew at each call: for a request's 35 columns, ~10 % of a creation's time on the event loop. The SQL depends
 * on the table, the columns given (Kysely leaves out an undefined value) and the dialect only: it is built once by
 * Kysely itself, with a marker in place of each value, and the markers' places in its parameters say where each value
 * goes. A row with a value Kysely would not pass as it is (an expression, a date: anything but text, a number, null or
 * bytes) takes Kysely's usual path.
 */

type Table = keyof Database & string;
interface Gabarit {
  sql: string;
  /** The row's key of each parameter, in the parameters' order. */
  cles: string[];
}

const gabarits = new Map<string, Gabarit>();
/** Past this many shapes (a caller whose columns vary without end), no more are kept. */
const GABARITS_MAX = 200;
const MARQUE = '\u0000qv-valeur:';

const passeTelQuel = (value: unknown) =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value instanceof Uint8Array;

function gabarit(db: Db, table: Table, cles: string[], forme: string): Gabarit {
  const marques = Object.fromEntries(cles.map((cle) => [cle, `${MARQUE}${cle}`]));
  const compiled = db
    .insertInto(table)
    .values(marques as Insertable<Database[Table]>)
    .compile();
  const ordre = compiled.parameters.map((p) => (typeof p === 'string' && p.startsWith(MARQUE) ? p.slice(MARQUE.length) : null));
  if (ordre.length !== cles.length || ordre.some((cle) => cle === null) || new Set(ordre).size !== cles.length) {
    throw new Error(`insertion ${table}: Kysely's parameters are not the row's values one for one`);
  }
  const fait = { sql: compiled.sql, cles: ordre as string[] };
  if (gabarits.size < GABARITS_MAX) gabarits.set(forme, fait);
  return fait;
}

/** Inserts `row` into `table` on `db` (a transaction's connection included), as `db.insertInto(table).values(row).execute()`. */
export async function inserer<T extends Table>(db: Db, table: T, row: Insertable<Database[T]>): Promise<void> {
  const valeurs = row as Record<string, unknown>;
  const cles: string[] = [];
  for (const cle in valeurs) {
    const value = valeurs[cle];
    if (value === undefined) continue;
    if (!passeTelQuel(value)) {
      await db.insertInto(table).values(row).execute();
      return;
    }
    cles.push(cle);
  }
  const dialecte = db.getExecutor().adapter instanceof PostgresAdapter ? 'pg' : 'sqlite';
  const forme = `${dialecte}\u0000${table}\u0000${cles.join('\u0000')}`;
  const { sql, cles: ordre } = gabarits.get(forme) ?? gabarit(db, table, cles, forme);
  await db.executeQuery(CompiledQuery.raw(sql, ordre.map((cle) => valeurs[cle])));
}
