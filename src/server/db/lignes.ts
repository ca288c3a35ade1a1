import type { Statement } from 'better-sqlite3';

/**
 * Puts a reading statement in raw mode (each row an array) and gives the function that makes a row's object, by one
 * literal of the statement's column names (issue 11 point 3). better-sqlite3 builds each row's object itself, one
 * property set after another through V8's generic path (a new hidden class at each step, each name looked up in the
 * string table): the full view's 30 columns took ~17 µs to read that way and ~10 µs this way, on the same statement.
 *
 * The names are a statement's own columns (its `as "…"` aliases), never a caller's input. Two columns of one name keep
 * the last, as better-sqlite3 does. `__proto__` would set the object's prototype in a literal: it is refused.
 */
export function enLignes<R>(statement: Statement): (valeurs: unknown[]) => R {
  const noms = statement.columns().map((c) => c.name);
  if (noms.includes('__proto__')) throw new Error(`a column named __proto__ would set the row's prototype: ${statement.source}`);
  statement.raw(true);
  return new Function('v', `return { ${noms.map((nom, i) => `${JSON.stringify(nom)}: v[${i}]`).join(', ')} };`) as (valeurs: unknown[]) => R;
}

/**
 * Whether a statement's text fixes its columns, so that names read once at its preparation hold for every run. A `*`
 * does not: SQLite prepares a kept statement again after a schema change (a migration), and its `*` then names the
 * columns of that moment (an added one, a dropped one gone), which names read before would drop or misname. `count(*)`
 * is not one; any other `*` (a product, a comment) counts as one, which only costs speed.
 */
export function colonnesFixes(sql: string): boolean {
  return !sql.replace(/count\(\*\)/giu, '').includes('*');
}
