import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * SQLite: past this many rows holding its trigrams, a word of two letters that ends some texts is matched by LIKE
 * rather than by the OR of its trigrams (docs/decisions/0021).
 */
export const PAIRE_FREQUENTE = 20_000;

/** SQLite: from this share of the texts holding it, a word of one letter is matched by LIKE (PairesFts.lettre). */
export const LETTRE_FREQUENTE = 0.05;

/** A word (or a trigram) as an FTS5 phrase: quoted, its quotes doubled. */
export function phrase(w: string): string {
  return `"${w.replace(/"/gu, '""')}"`;
}

/** A word as LIKE reads it literally (with `escape '\\'`): its backslashes, `%` and `_` escaped. */
export function echapperLike(mot: string): string {
  return mot.replace(/[\\%_]/gu, (c) => `\\${c}`);
}

/** How many texts `partDesTextes` reads. */
const ECHANTILLON = 1_000;

/**
 * The share of the table's first 1,000 texts (its oldest) that hold `mot` (~1 ms), to tell a common short word from a
 * rare one. SQLite and PostgreSQL alike.
 */
export async function partDesTextes(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>,
  /** The table and its text column: constants of the code. */
  noms: { table: string; colonne: string },
  mot: string,
): Promise<number> {
  const { rows } = await sql<{ n: number | string; avec: number | string | null }>`select count(*) as n,
      sum(case when t like ${`%${echapperLike(mot)}%`} escape '\\' then 1 else 0 end) as avec
      from (select ${sql.raw(noms.colonne)} as t from ${sql.raw(noms.table)} limit ${ECHANTILLON}) as e`.execute(db);
  const n = Number(rows[0]?.n ?? 0);
  return n > 0 ? Number(rows[0]!.avec ?? 0) / n : 0;
}

/**
 * How SQLite finds the rows whose text holds a word of one or two letters without reading every row:
 * - `aucune`: no text holds it;
 * - `fts`: the OR of the trigrams that start with it (`ou`), to join the FTS5 query;
 * - `fin`: only as the last two characters of some texts (the index of the texts' ends);
 * - `fts-ou-fin`: either;
 * - `like`: it is common; LIKE finds enough matches after reading few rows.
 */
export type Paire = { par: 'aucune' } | { par: 'fts'; ou: string } | { par: 'fin' } | { par: 'fts-ou-fin'; ou: string } | { par: 'like' };

/**
 * A word of two letters in an FTS5 trigram index (docs/decisions/0021). The index holds it in every trigram that
 * starts with it ("zq?", listed from the index's own vocabulary), except at the very end of a text: an index of the
 * texts' last two characters (`substr(colonne, -2)`) finds those. The vocabulary is a table of this connection
 * (fts5vocab in `temp`: nothing stored, nothing to back up), made at the first word of two letters.
 */
export class PairesFts {
  private vocabulaire: Promise<unknown> | undefined;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    private readonly db: Kysely<any>,
    /** Names written into SQL as they are: constants of the code, never input. */
    private readonly noms: { fts: string; table: string; colonne: string },
  ) {}

  /**
   * The texts that hold `w` in their last two characters, where no trigram starts with it, written as the indexes'
   * expressions so that SQLite knows they apply: a pair, `substr(colonne, -2) = w`; a letter, the texts whose last two
   * characters start with it (a range of migration 0026's index) or whose last one is it (migration 0038's).
   */
  fin(w: string) {
    const colonne = sql.raw(this.noms.colonne);
    if ([...w].length > 1) return sql<boolean>`substr(${colonne}, -2) = ${w}`;
    return sql<boolean>`(substr(${colonne}, -2) >= ${w} and substr(${colonne}, -2) < ${`${w}\u{10FFFF}`} or substr(${colonne}, -1) = ${w})`;
  }

  /** The rows whose text the FTS5 query `fts` matches, by rowid. */
  match(fts: string) {
    return sql<boolean>`rowid in (select rowid from ${sql.raw(this.noms.fts)} where ${sql.raw(this.noms.fts)} match ${fts})`;
  }

  /**
   * The word `w` as its Paire says: a group to AND into the FTS5 query, or a condition on the row (`like`: the
   * caller's LIKE of the word). Null for `aucune`: nothing matches.
   */
  ecrire(w: string, paire: Paire, like: (w: string) => RawBuilder<boolean>): { groupe: string } | { condition: RawBuilder<boolean> } | null {
    switch (paire.par) {
      case 'aucune':
        return null;
      case 'fts':
        return { groupe: paire.ou };
      case 'fin':
        return { condition: this.fin(w) };
      case 'like':
        return { condition: like(w) };
      case 'fts-ou-fin':
        return { condition: sql<boolean>`(${this.match(paire.ou)} or ${this.fin(w)})` };
    }
  }

  /**
   * A word of one letter: LIKE when one text in twenty or more holds it (`LETTRE_FREQUENTE`, in the table's first
   * 1,000 texts: LIKE then meets the count's 1,001 matches within ~20,000 rows), else as a pair is found: the trigrams
   * that start with it, or a text's last two characters (`fin`). Reading the vocabulary for a common letter would read
   * the lists of most of the index.
   */
  async lettre(l: string): Promise<Paire> {
    if ((await partDesTextes(this.db, this.noms, l)) >= LETTRE_FREQUENTE) return { par: 'like' };
    return this.paire(l);
  }

  async paire(w: string): Promise<Paire> {
    const vocab = sql.raw(`temp.${this.noms.fts}_vocab`);
    this.vocabulaire ??= sql`create virtual table if not exists ${vocab} using fts5vocab(main, ${sql.raw(this.noms.fts)}, row)`
      .execute(this.db)
      .catch((error: unknown) => {
        this.vocabulaire = undefined;
        throw error;
      });
    await this.vocabulaire;
    const [{ rows: termes }, { rows: fins }] = await Promise.all([
      sql<{ term: string; doc: number }>`select term, doc from ${vocab} where term >= ${w} and term < ${`${w}\u{10FFFF}`}`.execute(this.db),
      sql<{ un: number }>`select 1 as un from ${sql.raw(this.noms.table)} where ${this.fin(w)} limit 1`.execute(this.db),
    ]);
    const ou = termes.length > 0 ? `(${termes.map((t) => phrase(t.term)).join(' OR ')})` : null;
    if (fins.length === 0) return ou ? { par: 'fts', ou } : { par: 'aucune' };
    if (!ou) return { par: 'fin' };
    return termes.reduce((n, t) => n + t.doc, 0) > PAIRE_FREQUENTE ? { par: 'like' } : { par: 'fts-ou-fin', ou };
  }
}
