import type { Insertable } from 'kysely';
import { avecValeurs, forme as formeDe, marque, placer, type Fait } from './gabarit.js';
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

/**
 * The SQL of each shape, by dialect, plugins and table (gabarit.ts `forme`), then by columns: their names, compared one
 * by one, are the same strings at each call (a row's property names), which costs less than joining them into a key.
 */
const gabarits = new Map<string, { cles: string[]; fait: Fait }[]>();
/** Past this many shapes (a caller whose columns vary without end), no more are kept. */
const GABARITS_MAX = 200;
let gabaritsGardes = 0;

const memesCles = (a: string[], b: string[]) => a.length === b.length && a.every((cle, i) => cle === b[i]);

const passeTelQuel = (value: unknown) =>
  value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value instanceof Uint8Array;

function gabarit(db: Db, table: Table, cles: string[], formes: { cles: string[]; fait: Fait }[]): Fait {
  const marques = Object.fromEntries(cles.map((cle) => [cle, marque(cle)]));
  const fait = placer(
    db
      .insertInto(table)
      .values(marques as Insertable<Database[Table]>)
      .compile(),
    `insertion ${table}`,
    cles,
  );
  const places = fait.places.map((p) => ('cle' in p ? p.cle : null));
  if (places.length !== cles.length || places.some((cle) => cle === null) || new Set(places).size !== cles.length) {
    throw new Error(`insertion ${table}: Kysely's parameters are not the row's values one for one`);
  }
  if (gabaritsGardes < GABARITS_MAX) {
    formes.push({ cles, fait });
    gabaritsGardes += 1;
  }
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
  const forme = `${formeDe(db)}\u0001${table}`;
  let formes = gabarits.get(forme);
  if (!formes) gabarits.set(forme, (formes = []));
  const fait = formes.find((f) => memesCles(f.cles, cles))?.fait ?? gabarit(db, table, cles, formes);
  await db.executeQuery(avecValeurs(fait, valeurs));
}
