// The managers' list collects the keys of its matches by index (docs/decisions/0021): words of two letters by the
// trigram index's vocabulary and the index of the texts' last two characters (SQLite) or by the index of pairs of
// characters (PostgreSQL, migration 0026), a label with a word by their keys, the validity filters' pages among all
// their matches. Every answer is checked against the plain reading of the rows (LIKE on every search text).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedRequest } from '../bench/seed.js';
import { TOTAL_BORNE } from '../src/domain/demande.js';
import { statutRang } from '../src/domain/statut.js';
import { natif, type Db } from '../src/server/db/index.js';
import { FrequencesLettres, PartsEchantillon } from '../src/server/db/lettres.js';
import type { NewDemande } from '../src/server/db/schema.js';
import { createAccount, createTestApp, instructionsLues, planSqlite, type TestContext } from './helpers.js';

const GENERES = 1_200;
const ETIQUETTE = '00000000-0000-4000-8000-0000000000e1';
const SOON = () => new Date(Date.now() + 10 * 86_400_000).toISOString();

/** Rows whose search text holds a pair of letters in one place only (SQLite finds each by another path). */
const SPECIALES: [numero: string, fin: string][] = [
  ['013900000001', ' bazquez'], // "zq" inside a word: a trigram "zqu" holds it
  ['013900000002', ' xyzq'], // "zq" at the very end: no trigram starts with it there
  ['013900000003', ' qzar'], // "qz", never "zq"
  ['013900000004', ' wq'], // "wq" at the end and nowhere else
  ['013900000005', " l'ky9"], // "ky" inside
  ['013900000006', ' w 7'], // "w" alone between spaces: in no pair of characters (PostgreSQL finds it by its characters)
  ['013900000007', ' søren'], // "ø", which no generated text holds, inside a word: a trigram "øre" holds it
  ['013900000008', ' øx'], // "ø" second to last: in no trigram (SQLite: the index of the last two characters)
  ['013900000009', ' xø'], // "ø" last (SQLite: the index of the last character, migration 0038)
];

function rows(): NewDemande[] {
  const out: NewDemande[] = Array.from({ length: GENERES }, (_, n) => {
    const row = generatedRequest(800_000 + n);
    // Nine requests in ten end their validity within the month, open (« Bientôt »): more than TOTAL_BORNE of them.
    return n % 10 !== 0 ? { ...row, statutDeLaDemande: 'En attente', statutRang: statutRang('En attente'), valideJusqua: SOON() } : row;
  });
  for (const [i, [numero, fin]] of SPECIALES.entries()) {
    const row = generatedRequest(900_000 + i);
    out.push({ ...row, numeroUnique: numero, searchText: `${row.searchText}${fin}` });
  }
  return out;
}

async function insert(db: Db, all: NewDemande[]): Promise<void> {
  for (let i = 0; i < all.length; i += 200) await db.insertInto('housingRequests').values(all.slice(i, i + 200)).execute();
}

const escapeLike = (w: string) => w.replace(/[\\%_]/gu, (c) => `\\${c}`);

describe('the list finds what every row would show, by index', () => {
  let ctx: TestContext;
  let cookie: string;
  const list = (query: string) => ctx.app.inject({ method: 'GET', url: `/app/api/logement?${query}`, headers: { cookie } });

  /** The plain reading: every request not erased whose search text holds every word, in the list's order. */
  async function oracle(words: string[], options: { status?: string; etiquette?: boolean; bientot?: boolean; sort?: 'nomTri' | 'dateDEnregistrement'; order?: 'asc' | 'desc' } = {}) {
    const { sort = 'dateDEnregistrement', order = 'desc' } = options;
    let query = ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').where('effaceeLe', 'is', null);
    for (const w of words) query = query.where(sql<boolean>`search_text like ${`%${escapeLike(w)}%`} escape '\\'`);
    if (options.status) query = query.where('statutDeLaDemande', '=', options.status);
    if (options.etiquette) query = query.where('id', 'in', (eb) => eb.selectFrom('demandeEtiquettes').select('housingRequestId').where('etiquetteId', '=', ETIQUETTE));
    if (options.bientot) {
      query = query
        .where('statutDeLaDemande', 'not in', ['Attribué', 'Refusé', 'Radiée'])
        .where('valideJusqua', '>', new Date().toISOString())
        .where('valideJusqua', '<=', new Date(Date.now() + 30 * 86_400_000).toISOString());
    }
    return (await query.orderBy(sort, order).orderBy('id', order).execute()).map((r) => r.numeroUnique);
  }

  /** The requests not erased that carry `etiquette`, by name. */
  const oracleLarge = async (etiquette: string) =>
    (
      await ctx.app.deps.db
        .selectFrom('housingRequests')
        .select('numeroUnique')
        .where('effaceeLe', 'is', null)
        .where('id', 'in', (eb) => eb.selectFrom('demandeEtiquettes').select('housingRequestId').where('etiquetteId', '=', etiquette))
        .orderBy('nomTri', 'asc')
        .orderBy('id', 'asc')
        .execute()
    ).map((r) => r.numeroUnique);

  /** Checks the total and the pages (all of them up to the bound, else the first two and the one at the bound). */
  async function conforme(query: string, attendu: string[]): Promise<void> {
    const first = await list(`${query}&pageSize=100&page=1`);
    expect(first.statusCode, query).toBe(200);
    const exact = attendu.length <= TOTAL_BORNE;
    expect(first.json(), query).toMatchObject({ total: exact ? attendu.length : TOTAL_BORNE, totalExact: exact });
    const pages = exact ? Math.max(1, Math.ceil(attendu.length / 100)) : 2;
    const lus: string[] = [];
    for (let page = 1; page <= pages; page += 1) {
      const res = page === 1 ? first : await list(`${query}&pageSize=100&page=${page}`);
      lus.push(...res.json().data.map((d: { numeroUnique: string }) => d.numeroUnique));
    }
    expect(lus, query).toEqual(attendu.slice(0, pages * 100));
    if (!exact) {
      const borne = await list(`${query}&pageSize=100&page=${TOTAL_BORNE / 100 + 1}`);
      expect(borne.json().data.map((d: { numeroUnique: string }) => d.numeroUnique), query).toEqual(attendu.slice(TOTAL_BORNE, TOTAL_BORNE + 100));
    }
  }

  beforeAll(async () => {
    ctx = await createTestApp();
    cookie = (await createAccount(ctx, 'manager')).cookie;
    const all = rows();
    await insert(ctx.app.deps.db, all);
    // A label on one request in four.
    await ctx.app.deps.db.insertInto('etiquettes').values({ id: ETIQUETTE, nom: 'Prioritaire', nomCle: 'prioritaire', couleur: 'rouge', creeLe: new Date().toISOString() }).execute();
    const ids = await ctx.app.deps.db.selectFrom('housingRequests').select('id').orderBy('numeroUnique').execute();
    await ctx.app.deps.db
      .insertInto('demandeEtiquettes')
      .values(ids.filter((_, i) => i % 4 === 1).map((r) => ({ housingRequestId: r.id, etiquetteId: ETIQUETTE, posePar: null, poseLe: new Date().toISOString() })))
      .execute();
    // PostgreSQL: the statistics autovacuum would keep, from which a rare letter is searched by its index (migration 0036).
    if (ctx.app.deps.dbKind === 'postgres') await sql`analyze housing_requests`.execute(ctx.app.deps.db);
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('finds a word of two letters inside a word, at the very end of the text, and nowhere else', async () => {
    expect((await oracle(['zq'])).sort()).toEqual(['013900000001', '013900000002']);
    expect((await list('q=zq')).json()).toMatchObject({ total: 2, totalExact: true });
    expect((await list('q=zq')).json().data.map((d: { numeroUnique: string }) => d.numeroUnique).sort()).toEqual(['013900000001', '013900000002']);
    expect((await list('q=wq')).json().data.map((d: { numeroUnique: string }) => d.numeroUnique)).toEqual(['013900000004']);
    expect((await list('q=qz')).json().data.map((d: { numeroUnique: string }) => d.numeroUnique)).toEqual(['013900000003']);
    expect((await list('q=ky')).json().data.map((d: { numeroUnique: string }) => d.numeroUnique)).toEqual(['013900000005']);
    // A pair that no text holds: nothing, counted exactly.
    expect((await list('q=zz')).json()).toEqual({ data: [], total: 0, totalExact: true });
    // A letter that few texts hold, inside a word, second to last and last in a text; one that none holds.
    expect((await list(`q=${encodeURIComponent('ø')}`)).json().data.map((d: { numeroUnique: string }) => d.numeroUnique).sort()).toEqual([
      '013900000007',
      '013900000008',
      '013900000009',
    ]);
    expect((await list(`q=${encodeURIComponent('ß')}`)).json()).toEqual({ data: [], total: 0, totalExact: true });
  });

  it.each([
    'zq',
    'wq',
    'qz',
    'ky',
    'xu',
    't3',
    'ma',
    '06',
    '13',
    "n'",
    '-h',
    '@g',
    'a',
    'k',
    'w',
    'q',
    'z',
    'ø',
    'ø w',
    'ø søren',
    'ß',
    'k w',
    'w zq',
    'k a',
    'w martin',
    'martin zq',
    'zq ky',
    'ky zq',
    'ky l',
    'zq bazquez',
    'martin t3',
    'ma 13',
    'helene ky',
    'dupont 06 t3',
  ])('answers the search « %s » as reading every row would', async (words) => {
    await conforme(`q=${encodeURIComponent(words)}`, await oracle(words.split(' ')));
  });

  it.each([
    ['status=En%20attente&q=t3', ['t3'], { status: 'En attente' }],
    ['status=Refus%C3%A9&q=06', ['06'], { status: 'Refusé' }],
    ['status=En%20attente&q=zq', ['zq'], { status: 'En attente' }],
    [`etiquette=${ETIQUETTE}`, [], { etiquette: true }],
    [`etiquette=${ETIQUETTE}&q=martin`, ['martin'], { etiquette: true }],
    [`etiquette=${ETIQUETTE}&q=ma`, ['ma'], { etiquette: true }],
    [`etiquette=${ETIQUETTE}&q=marie%20t3`, ['marie', 't3'], { etiquette: true }],
    [`etiquette=${ETIQUETTE}&q=martin&sort=nom&order=asc`, ['martin'], { etiquette: true, sort: 'nomTri', order: 'asc' }],
    ['q=ma&sort=nom&order=asc', ['ma'], { sort: 'nomTri', order: 'asc' }],
    ['q=06&sort=nom&order=desc', ['06'], { sort: 'nomTri', order: 'desc' }],
    ['expiration=bientot', [], { bientot: true }],
    ['expiration=bientot&sort=nom&order=asc', [], { bientot: true, sort: 'nomTri', order: 'asc' }],
    ['expiration=bientot&q=martin', ['martin'], { bientot: true }],
  ] as const)('answers %s as reading every row would', async (query, words, options) => {
    await conforme(query, await oracle([...words], options));
  });

  it('counts a label alone without the erased requests that carry it, on both sides of the bound', async () => {
    const db = ctx.app.deps.db;
    const large = '00000000-0000-4000-8000-0000000000e2';
    await db.insertInto('etiquettes').values({ id: large, nom: 'Large', nomCle: 'large', couleur: 'vert', creeLe: new Date().toISOString() }).execute();
    const ids = (await db.selectFrom('housingRequests').select('id').orderBy('numeroUnique').execute()).map((r) => r.id);
    const poser = (some: string[]) =>
      db
        .insertInto('demandeEtiquettes')
        .values(some.map((id) => ({ housingRequestId: id, etiquetteId: large, posePar: null, poseLe: new Date().toISOString() })))
        .execute();
    await poser(ids.slice(0, TOTAL_BORNE + 10));
    // Twelve of them erased (anonymous tombstones keep their labels): 998 left, counted exactly.
    await db.updateTable('housingRequests').set({ effaceeLe: new Date().toISOString(), searchText: '' }).where('id', 'in', ids.slice(0, 12)).execute();
    const porteurs = async () =>
      (
        await db
          .selectFrom('housingRequests')
          .select('numeroUnique')
          .where('effaceeLe', 'is', null)
          .where('id', 'in', (eb) => eb.selectFrom('demandeEtiquettes').select('housingRequestId').where('etiquetteId', '=', large))
          .orderBy('dateDEnregistrement', 'desc')
          .orderBy('id', 'desc')
          .execute()
      ).map((r) => r.numeroUnique);
    expect(await porteurs()).toHaveLength(TOTAL_BORNE - 2);
    await conforme(`etiquette=${large}`, await porteurs());
    // Three more: 1,001, past the bound.
    await poser(ids.slice(TOTAL_BORNE + 10, TOTAL_BORNE + 13));
    expect(await porteurs()).toHaveLength(TOTAL_BORNE + 1);
    await conforme(`etiquette=${large}`, await porteurs());
    await conforme(`etiquette=${large}&sort=nom&order=asc`, await oracleLarge(large));
  });

  it('SQLite: collects a status’s keys from the index of statuses and erasures alone, reading no row (migration 0031)', async () => {
    const n = natif(ctx.app.deps.db);
    if (n?.kind !== 'sqlite') return;
    // The statements the list runs, as better-sqlite3 receives them.
    const sources = await instructionsLues(n.sqlite, async () => {
      expect((await list('status=En%20attente')).json()).toMatchObject({ total: TOTAL_BORNE, totalExact: false });
    });
    // Counted and gathered as one JSON array in SQLite (repository.ts `peuSqlite`).
    const cles = sources.find((s) => s.includes('json_group_array(k) as keys from') && s.includes('select rowid as "k" from "housing_requests"'));
    expect(cles).toContain('statut_de_la_demande = ?');
    expect(planSqlite(n.sqlite, cles!)).toEqual([
      'CO-ROUTINE m',
      'SEARCH housing_requests USING COVERING INDEX housing_requests_statut_effacee_idx (statut_de_la_demande=? AND effacee_le=?)',
      'SCAN m',
    ]);
  });

  it('SQLite: collects a rare letter’s keys by the trigram index and the indexes of the texts’ ends, reading no row (migration 0038)', async () => {
    const n = natif(ctx.app.deps.db);
    if (n?.kind !== 'sqlite') return;
    const sources = await instructionsLues(n.sqlite, async () => {
      expect((await list(`q=${encodeURIComponent('ø')}`)).json()).toMatchObject({ total: 3, totalExact: true });
    });
    const cles = sources.find((s) => s.includes('json_group_array(k) as keys from'));
    expect(cles).toContain('substr(search_text, -1) = ?');
    expect(cles).not.toContain('like');
    const plan = planSqlite(n.sqlite, cles!);
    expect(plan.filter((etape) => /^SCAN housing_requests\b/u.test(etape))).toEqual([]);
    expect(plan.join(' | ')).toContain('housing_requests_fin1_recherche_idx');
  });

  it('SQLite: pages a status past the bound, sorted by date, from the index of statuses and dates (migration 0031)', async () => {
    const attendu = await oracle([], { status: 'En attente' });
    expect(attendu.length).toBeGreaterThan(TOTAL_BORNE);
    await conforme('status=En%20attente', attendu);
    await conforme('status=En%20attente&order=asc', attendu.toReversed());
    // With the other filters that walk: a word of two letters (LIKE on the rows read), a validity.
    await conforme('status=En%20attente&q=ma', await oracle(['ma'], { status: 'En attente' }));
    await conforme('status=En%20attente&expiration=bientot', await oracle([], { status: 'En attente', bientot: true }));
    const n = natif(ctx.app.deps.db);
    if (n?.kind !== 'sqlite') return;
    const sources = await instructionsLues(n.sqlite, async () => {
      expect((await list('status=En%20attente&page=3')).statusCode).toBe(200);
    });
    const pageLue = sources.find((s) => s.includes('order by "date_d_enregistrement" desc') && s.includes('limit ? offset ?'));
    expect(planSqlite(n.sqlite, pageLue!)).toEqual([
      'SEARCH housing_requests USING INDEX housing_requests_statut_effacee_idx (statut_de_la_demande=? AND effacee_le=?)',
      'USE TEMP B-TREE FOR LAST TERM OF ORDER BY',
    ]);
  });

  it('PostgreSQL: tells the rare letters from the common ones by the statistics of the index of characters, none without them', async () => {
    if (ctx.app.deps.dbKind !== 'postgres') return;
    const lettres = new FrequencesLettres(ctx.app.deps.db, 'housing_requests_search_chars_idx');
    // The generated texts: « a » in every one, « k » and « w » in about one in ten, « ß » in none.
    expect([await lettres.rare('a'), await lettres.rare('e'), await lettres.rare('k'), await lettres.rare('w'), await lettres.rare('ß')]).toEqual([false, false, true, true, true]);
    // An index that has no statistics (never analysed): LIKE for every letter.
    expect(await new FrequencesLettres(ctx.app.deps.db, 'housing_requests_search_bigrams_idx').rare('k')).toBe(false);
    // Read once, then kept for ten minutes: a letter's share as it was when read.
    let now = 0;
    const lues = new FrequencesLettres(ctx.app.deps.db, 'housing_requests_search_chars_idx', () => now);
    expect(await lues.rare('k')).toBe(true);
    // The index made again has no statistics until the next ANALYZE.
    await sql`drop index housing_requests_search_chars_idx`.execute(ctx.app.deps.db);
    await sql`create index housing_requests_search_chars_idx on housing_requests using gin (search_chars(search_text))`.execute(ctx.app.deps.db);
    expect(await lues.rare('k')).toBe(true);
    now += 10 * 60_000;
    expect(await lues.rare('k')).toBe(false);
    // The absence of statistics is not kept: read again at once, once the table is analysed.
    await sql`analyze housing_requests`.execute(ctx.app.deps.db);
    expect(await lues.rare('k')).toBe(true);
  });

  it('PostgreSQL: tells a common word of two letters from a rare one by the share of the first texts that hold it', async () => {
    if (ctx.app.deps.dbKind !== 'postgres') return;
    const parts = new PartsEchantillon(ctx.app.deps.db, { table: 'housing_requests', colonne: 'search_text' });
    // « ma » (« marie », « martin », « madame »…) in many generated texts; « zq » in two of 1,209; LIKE's signs are text.
    expect([await parts.commun('ma'), await parts.commun('zq'), await parts.commun('%_')]).toEqual([true, false, false]);
  });

  it('has more than TOTAL_BORNE requests ending their validity within the month (the bound is crossed above)', async () => {
    expect((await oracle([], { bientot: true })).length).toBeGreaterThan(TOTAL_BORNE);
  });
});
