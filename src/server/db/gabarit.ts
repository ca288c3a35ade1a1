import { CompiledQuery, PostgresAdapter, type Compilable, type QueryResult } from 'kysely';
import type { Db } from './index.js';

/**
 * Queries of the hot paths built by Kysely once, then run with other values (issue 11 point 4): Kysely builds, names and
 * compiles a query anew at each call, ~15-40 µs of the event loop each, 14 % of it under the mixed load. A query whose
 * SQL depends on no value is built once per dialect with a marker in place of each value; the markers' places among the
 * compiled parameters say where each value goes. It runs on the connection it is given (a transaction's included) and
 * its rows are named as Kysely names them (the naming plugin's transformResult still runs).
 */

const MARQUE = '\u0000qv-valeur:';

/** The marker that stands for value `cle` while Kysely builds the SQL. */
export const marque = (cle: string): string => `${MARQUE}${cle}`;

/** Each compiled parameter: the key of the value it takes, or a constant of the query itself (a `limit 1`). */
type Place = { cle: string } | { constante: unknown };

export interface Fait {
  sql: string;
  places: Place[];
}

/**
 * The SQL and the places of `compiled`, built with markers for `cles`: throws unless each marker is a whole parameter
 * (one written into the SQL, made part of a longer value, or changed by a plugin would leave every call with the
 * marker's text instead of its value), and every key of `cles` has its place.
 */
export function placer(compiled: CompiledQuery, quoi: string, cles: Iterable<string>): Fait {
  const hors = (v: unknown) => typeof v === 'string' && v.includes(MARQUE) && !(v.startsWith(MARQUE) && v.indexOf(MARQUE, 1) === -1);
  if (compiled.sql.includes(MARQUE) || compiled.parameters.some(hors)) {
    throw new Error(`${quoi}: a value is not passed as a parameter of its own`);
  }
  const places: Place[] = compiled.parameters.map((v) => (typeof v === 'string' && v.startsWith(MARQUE) ? { cle: v.slice(MARQUE.length) } : { constante: v }));
  const placees = new Set(places.flatMap((p) => ('cle' in p ? [p.cle] : [])));
  for (const cle of cles) if (!placees.has(cle)) throw new Error(`${quoi}: value ${cle} has no parameter of its own`);
  return { sql: compiled.sql, places };
}

/** The compiled query of `fait` with `valeurs` in their places. */
export function avecValeurs(fait: Fait, valeurs: Record<string, unknown>): CompiledQuery {
  return CompiledQuery.raw(
    fait.sql,
    fait.places.map((p) => ('cle' in p ? valeurs[p.cle] : p.constante)),
  );
}

export const dialecte = (db: Db): 'pg' | 'sqlite' => (db.getExecutor().adapter instanceof PostgresAdapter ? 'pg' : 'sqlite');

/** What makes the SQL of one builder differ from one Db to another: the dialect and the plugins (the naming one). */
export const forme = (db: Db): string => {
  const { plugins } = db.getExecutor();
  return plugins.length === 0 ? dialecte(db) : `${dialecte(db)}\u0000${plugins.map((p) => p.constructor.name).join('\u0000')}`;
};

/**
 * A query whose SQL is the same for every value: `construire` gets markers for its values (`p.id`…), each of which must
 * be one parameter of the query, used as it is (not in a list `in (…)`, not in an expression of its own whose shape
 * depends on it: an `is null` where a value may be null is two queries).
 */
export class Gabarit<P extends Record<string, unknown>, R> {
  private readonly faits = new Map<string, Fait>();

  constructor(
    private readonly nom: string,
    private readonly construire: (db: Db, p: P) => Compilable<R>,
  ) {}

  private fait(db: Db): Fait {
    const f = forme(db);
    let fait = this.faits.get(f);
    if (!fait) {
      const lues = new Set<string>();
      const p = new Proxy({} as P, {
        get: (_cible, cle) => {
          if (typeof cle !== 'string') return undefined;
          lues.add(cle);
          return marque(cle);
        },
      });
      fait = placer(this.construire(db, p).compile(), this.nom, lues);
      this.faits.set(f, fait);
    }
    return fait;
  }

  executer(db: Db, valeurs: P): Promise<QueryResult<R>> {
    return db.executeQuery<R>(avecValeurs(this.fait(db), valeurs));
  }

  async tous(db: Db, valeurs: P): Promise<R[]> {
    return (await this.executer(db, valeurs)).rows;
  }

  async premier(db: Db, valeurs: P): Promise<R | undefined> {
    return (await this.executer(db, valeurs)).rows[0];
  }
}
