import { sql } from 'kysely';
import type { Db } from './index.js';
import { partDesTextes } from './paires.js';

/**
 * Below this share of the texts holding a letter, PostgreSQL finds its first 1,001 matches sooner by the index of
 * characters (migration 0036) than by LIKE, which reads rows until it meets them. Measured at 100,000 requests (the
 * list's whole statement, direct): « w », in 7 % of the texts, 19 ms by LIKE against 6 ms by the index; « k », 10 %,
 * 14 against 7.6; « + », 18 %, 14.7 against 9; « z », 23 %, 12.3 against 17 (a bitmap of 23,000 rows, which the
 * planner reads with parallel workers); « j », 52 %, 6 against 20.
 */
export const LETTRE_RARE = 0.2;

/** How long the statistics read are used before they are read again (autovacuum analyses a table as it changes). */
const DUREE_MS = 10 * 60_000;

/**
 * PostgreSQL: how many texts hold each character, from the statistics ANALYZE keeps for a GIN index of the texts'
 * characters (`pg_stats.most_common_elems` of the index's expression). A character that ANALYZE did not list is
 * rarer than every one it did. Without statistics (a table never analysed, a role that may not read them) nothing
 * is rare: the search keeps LIKE, as before the index, and asks again at its next search (~1 ms).
 */
export class FrequencesLettres {
  private lues: { le: number; frequences: Promise<Map<string, number> | null> } | undefined;

  constructor(
    private readonly db: Db,
    /** The index's name: a constant of the code. */
    private readonly index: string,
    private readonly maintenant: () => number = Date.now,
  ) {}

  /** Whether few enough texts hold `lettre` for the index of characters to find them sooner than LIKE. */
  async rare(lettre: string): Promise<boolean> {
    const frequences = await this.frequences();
    return frequences !== null && (frequences.get(lettre) ?? 0) < LETTRE_RARE;
  }

  private frequences(): Promise<Map<string, number> | null> {
    const now = this.maintenant();
    if (this.lues && now - this.lues.le < DUREE_MS) return this.lues.frequences;
    // No statistics yet (or none readable): read again at the next search rather than after DUREE_MS, so that the
    // index serves as soon as the table is analysed.
    const frequences = this.lire().then(
      (lues) => {
        if (lues === null && this.lues?.frequences === frequences) this.lues = undefined;
        return lues;
      },
      () => {
        if (this.lues?.frequences === frequences) this.lues = undefined;
        return null;
      },
    );
    this.lues = { le: now, frequences };
    return frequences;
  }

  private async lire(): Promise<Map<string, number> | null> {
    const { rows } = await sql<{ elems: string[] | null; freqs: number[] | null }>`select most_common_elems::text::text[] as elems,
        most_common_elem_freqs as freqs from pg_stats where schemaname = current_schema() and tablename = ${this.index}`.execute(this.db);
    const { elems, freqs } = rows[0] ?? {};
    if (!elems || !freqs) return null;
    return new Map(elems.map((e, i) => [e, Number(freqs[i])]));
  }
}

/** How many words `PartsEchantillon` remembers; past it, it starts again empty. */
const MOTS_RETENUS = 1_000;

/**
 * PostgreSQL: the share of texts that hold a short word (`partDesTextes`: the table's first 1,000 texts), kept ten
 * minutes. For the words of two letters, whose index (migration 0026) keeps no statistics: one that many texts hold
 * is found sooner by LIKE, which meets its matches within the first rows, than by the index's bitmap of every row
 * holding it (« ma » at 100,000 requests: 2.6 ms against 12.6).
 */
export class PartsEchantillon {
  private readonly parts = new Map<string, { le: number; part: Promise<number> }>();

  constructor(
    private readonly db: Db,
    /** The table and its text column: constants of the code. */
    private readonly noms: { table: string; colonne: string },
    private readonly maintenant: () => number = Date.now,
  ) {}

  /** Whether one text in five or more holds `mot` (LETTRE_RARE's share). */
  async commun(mot: string): Promise<boolean> {
    return (await this.part(mot)) >= LETTRE_RARE;
  }

  private part(mot: string): Promise<number> {
    const now = this.maintenant();
    const lue = this.parts.get(mot);
    if (lue && now - lue.le < DUREE_MS) return lue.part;
    if (this.parts.size >= MOTS_RETENUS) this.parts.clear();
    const part = partDesTextes(this.db, this.noms, mot).catch(() => {
      this.parts.delete(mot);
      return 0;
    });
    this.parts.set(mot, { le: now, part });
    return part;
  }
}
