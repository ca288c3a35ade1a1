import { sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * SQLite: past this many rows holding its trigrams, a word of two letters that ends some texts is matched by LIKE
 * rather than by the OR of its trigrams (docs/decisions/0021).
 */
export const PAIRE_FREQUENTE = 20_000;

/** A word (or a trigram) as an FTS5 phrase: quoted, its quotes doubled. */
export function phrase(w: string): string {
  return `"${w.replace(/"/gu, '""')}"`;
}

/**
 * How SQLite finds the rows whose text holds a word of two letters without reading every row:
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

  /** `substr(colonne, -2) = w`, written as the index's expression so that SQLite knows the index applies. */
  fin(w: string) {
    return sql<boolean>`substr(${sql.raw(this.noms.colonne)}, -2) = ${w}`;
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
