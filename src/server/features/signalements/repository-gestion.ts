import { randomUUID } from 'node:crypto';
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import {
  debutDuJourAParis,
  ETATS_OUVERTS,
  lendemain,
  motsDeRecherche,
  rangEtat,
  TOTAL_GESTION_SIGNALEMENTS_BORNE,
  type CibleModeration,
  type EntreeModeration,
  type EtatSignalement,
  type ListeGestionSignalementsQuery,
  type NoteSignalement,
  type TriSignalements,
} from '../../../domain/signalements.js';
import type { Db, DbKind } from '../../db/index.js';
import { FrequencesLettres } from '../../db/lettres.js';
import { echapperLike, PairesFts, phrase, type Paire } from '../../db/paires.js';
import type { Database, SignalementCategorieRow, SignalementMiseAJourRow, SignalementRow } from '../../db/schema.js';

/** The columns of a row of the managers' list. */
const COLONNES_LIGNE = [
  'id',
  'numero',
  'categorie',
  'titre',
  'titreMasque',
  'lat',
  'lon',
  'adresse',
  'etat',
  'creeLe',
  'misAJourLe',
  'email',
  'nom',
  'nomMasque',
  'contenuMasque',
  'doublonDe',
] as const;
export type LigneGestionRow = Pick<SignalementRow, (typeof COLONNES_LIGNE)[number]>;

/**
 * Each sort's columns, the last ones breaking ties so that the order is total; each list is an index (the number's
 * UNIQUE index, migration 0019's (cree_le, id) and (categorie, cree_le, id), migration 0020's (mis_a_jour_le, id)
 * and (etat_rang, cree_le, id)), read forwards or backwards.
 */
const COLONNES_TRI: Record<TriSignalements, readonly string[]> = {
  numero: ['numero'],
  creeLe: ['cree_le', 'id'],
  misAJourLe: ['mis_a_jour_le', 'id'],
  etat: ['etat_rang', 'cree_le', 'id'],
  categorie: ['categorie', 'cree_le', 'id'],
};

/** The open states are the first ranks (ETATS_SIGNALEMENT's order): « ouverts » is `etat_rang < 4` on the state's index. */
const RANGS_OUVERTS = ETATS_OUVERTS.length;
if (!ETATS_OUVERTS.every((e) => rangEtat(e) < RANGS_OUVERTS)) throw new Error('Les états ouverts doivent être les premiers de ETATS_SIGNALEMENT.');

/**
 * How a page is read (docs/api.md « Côté mairie »):
 * - `tout`: the whole list, its total exact: the sort's index, from the nearer end (docs/decisions/0009);
 * - `peu`: at most TOTAL_GESTION_SIGNALEMENTS_BORNE matches: found by their filters' indexes (on SQLite the
 *   search's trigram index), then sorted (on SQLite the sort column is written `+column`, so that the planner
 *   does not walk the sort's index through rows that do not match);
 * - `parcours`: more matches than the bound: the sort's index is walked and each row checked until the page is
 *   full (on SQLite the filters that no index of this order serves are written `+column`, and the search is a
 *   LIKE on the walked rows: with so many matches, few rows are read before the page is full).
 */
type Lecture = 'tout' | 'peu' | 'parcours';

/** Who wrote or did it, as managers read it: « Prénom Nom », or a deleted account. */
const nomDe = (r: { prenom: string | null; nom: string | null }) => (r.prenom || r.nom ? `${r.prenom ?? ''} ${r.nom ?? ''}`.trim() : 'Compte supprimé');

/**
 * The SQL of the managers' side of technical reports (migration 0020): their list (search, filters, sorts, pages,
 * a bounded count), the notes, the moderation log, the public updates with their authors, and the categories as
 * admins manage them. State changes and moderation setters stay in SignalementsRepository.
 */
export class GestionSignalementsRepository {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
  ) {
    this.paires = new PairesFts(db, { fts: 'signalements_recherche', table: 'signalements', colonne: 'recherche' });
    this.lettres = kind === 'postgres' ? new FrequencesLettres(db, 'signalements_recherche_chars_idx') : null;
  }

  /** SQLite: the search's words of two letters (PairesFts). */
  private readonly paires: PairesFts;
  /** PostgreSQL: how many texts hold each character (migration 0037), to search a rare letter by its index. */
  private readonly lettres: FrequencesLettres | null;

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  // --- The list -----------------------------------------------------------------------------------

  /** Whether the list is narrowed at all (a search or a filter): then it is counted up to the bound only. */
  private static restreinte(q: ListeGestionSignalementsQuery): boolean {
    return motsDeRecherche(q.q).length > 0 || q.categorie !== '' || q.etat !== '' || q.masque !== '' || q.du !== '' || q.au !== '';
  }

  /** The search and the filters, written for the way the page is read (Lecture). */
  private filtrer<O>(
    query: SelectQueryBuilder<Database, 'signalements', O>,
    q: ListeGestionSignalementsQuery,
    lecture: Lecture,
    paires: ReadonlyMap<string, Paire>,
    lettresRares: ReadonlySet<string>,
  ): SelectQueryBuilder<Database, 'signalements', O> {
    const sqlite = this.kind === 'sqlite';
    const tri = q.tri;
    // Walking the sort's index on SQLite: a filter on a column this order's indexes do not serve is written
    // `+column`, so that the planner cannot drive the query from that column's own index.
    const servie = (colonne: string) =>
      colonne === COLONNES_TRI[tri][0] || (tri === 'creeLe' && ['categorie', 'ouvert', 'etat'].includes(colonne));
    const col = (colonne: string): RawBuilder<unknown> => sql.raw(sqlite && lecture === 'parcours' && !servie(colonne) ? `+${colonne}` : colonne);
    let out = query;
    if (q.categorie) out = out.where(sql<boolean>`${col('categorie')} = ${q.categorie}`);
    if (q.etat === 'ouverts') out = out.where(sql<boolean>`${col('ouvert')} = 1`);
    else if (q.etat === 'fermes') out = out.where(sql<boolean>`${col('ouvert')} = 0`);
    else if (q.etat) out = out.where(sql<boolean>`${col('etat')} = ${q.etat}`);
    // Sorted by state: the same filter on the rank, whose index then gives the page directly.
    if (tri === 'etat' && q.etat) {
      if (q.etat === 'ouverts') out = out.where(sql<boolean>`etat_rang < ${sql.lit(RANGS_OUVERTS)}`);
      else if (q.etat === 'fermes') out = out.where(sql<boolean>`etat_rang >= ${sql.lit(RANGS_OUVERTS)}`);
      else out = out.where(sql<boolean>`etat_rang = ${rangEtat(q.etat as EtatSignalement)}`);
    }
    // Written as migration 0020's partial index (a literal): SQLite then knows the index applies.
    if (q.masque === 'oui') out = out.where(sql<boolean>`${col('contenu_masque')} = 1`);
    else if (q.masque === 'non') out = out.where(sql<boolean>`${col('contenu_masque')} = 0`);
    if (q.du) out = out.where(sql<boolean>`${col('cree_le')} >= ${debutDuJourAParis(q.du)}`);
    if (q.au) out = out.where(sql<boolean>`${col('cree_le')} < ${debutDuJourAParis(lendemain(q.au))}`);
    const mots = motsDeRecherche(q.q);
    const like = (mot: string) => sql<boolean>`recherche like ${`%${echapperLike(mot)}%`} escape '\\'`;
    if (lecture === 'parcours') {
      // Many matches: LIKE on the walked rows.
      for (const mot of mots) out = out.where(like(mot));
      return out;
    }
    if (!sqlite) {
      // PostgreSQL: LIKE, which pg_trgm's index serves; the words of two letters and the rare letters, when no longer
      // word narrows the rows, through the indexes of pairs (migration 0029) and of characters (migration 0037)
      // (with a longer word, in one bitmap with pg_trgm's, the functions would be computed again on every candidate row).
      const courts = mots.every((m) => [...m].length < 3);
      const paires2 = courts ? mots.filter((m) => [...m].length === 2) : [];
      const lettres1 = courts ? mots.filter((m) => lettresRares.has(m)) : [];
      if (paires2.length > 0) out = out.where(sql<boolean>`search_bigrams(recherche) @> ${sql`array[${sql.join(paires2)}]::text[]`}`);
      if (lettres1.length > 0) out = out.where(sql<boolean>`search_chars(recherche) @> ${sql`array[${sql.join(lettres1)}]::text[]`}`);
      for (const mot of mots.filter((m) => !paires2.includes(m) && !lettres1.includes(m))) out = out.where(like(mot));
      return out;
    }
    // SQLite: the words of 3 letters or more together through the trigram index (a quoted phrase matches anywhere,
    // like LIKE '%…%'), with the words of one or two letters that its vocabulary alone holds (PairesFts); the others
    // as their Paire says (a common letter by LIKE).
    const groupes = mots.filter((m) => [...m].length >= 3).map(phrase);
    for (const mot of mots) {
      const longueur = [...mot].length;
      if (longueur >= 3) continue;
      const paire = paires.get(mot);
      // 'aucune' (null): page() answers before any query.
      const ecrit = paire ? this.paires.ecrire(mot, paire, like) : { condition: like(mot) };
      if (ecrit && 'groupe' in ecrit) groupes.push(ecrit.groupe);
      else if (ecrit) out = out.where(ecrit.condition);
    }
    if (groupes.length > 0) out = out.where(this.paires.match(groupes.join(' AND ')));
    return out;
  }

  /** The list's total: exact for the whole list, else counted up to TOTAL_GESTION_SIGNALEMENTS_BORNE + 1 matches. */
  async compter(q: ListeGestionSignalementsQuery, paires: ReadonlyMap<string, Paire>, lettresRares: ReadonlySet<string>, db: Db = this.db): Promise<{ total: number; exact: boolean }> {
    if (!GestionSignalementsRepository.restreinte(q)) {
      // PostgreSQL reads a table to count it: the number is kept in signalements_total (migration 0020). SQLite
      // counts from its smallest index.
      const { rows } =
        this.kind === 'postgres'
          ? await sql<{ n: number | string }>`select n from signalements_total where id = 1`.execute(db)
          : await sql<{ n: number | string }>`select count(*) as n from signalements`.execute(db);
      return { total: Number(rows[0]!.n), exact: true };
    }
    const mots = motsDeRecherche(q.q);
    const seule = mots.length > 0 && mots.every((m) => [...m].length >= 3) && !q.categorie && !q.etat && !q.masque && !q.du && !q.au;
    const borne =
      this.kind === 'sqlite' && seule
        ? // SQLite, a search and nothing else: counted in the trigram index alone, which stops at the bound.
          sql`select rowid from signalements_recherche where signalements_recherche match ${GestionSignalementsRepository.phrases(mots)} limit ${TOTAL_GESTION_SIGNALEMENTS_BORNE + 1}`
        : this.filtrer(db.selectFrom('signalements').select(sql`1`.as('un')), q, 'peu', paires, lettresRares).limit(TOTAL_GESTION_SIGNALEMENTS_BORNE + 1);
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from (${borne}) as m`.execute(db);
    const n = Number(rows[0]!.n);
    return n > TOTAL_GESTION_SIGNALEMENTS_BORNE ? { total: TOTAL_GESTION_SIGNALEMENTS_BORNE, exact: false } : { total: n, exact: true };
  }

  /** An FTS5 query that finds every word anywhere (a quoted phrase in a trigram table matches any substring). */
  private static phrases(mots: readonly string[]): string {
    return mots.map(phrase).join(' AND ');
  }

  /** SQLite: how each word of one or two letters of the search is found (PairesFts); empty on PostgreSQL. */
  private async pairesDe(q: ListeGestionSignalementsQuery): Promise<Map<string, Paire>> {
    const paires = new Map<string, Paire>();
    if (this.kind !== 'sqlite') return paires;
    for (const mot of motsDeRecherche(q.q)) {
      const longueur = [...mot].length;
      if (longueur < 3 && !paires.has(mot)) paires.set(mot, await (longueur === 1 ? this.paires.lettre(mot) : this.paires.paire(mot)));
    }
    return paires;
  }

  /** PostgreSQL: the search's letters that few reports hold (FrequencesLettres); empty on SQLite. */
  private async lettresRaresDe(q: ListeGestionSignalementsQuery): Promise<Set<string>> {
    const rares = new Set<string>();
    if (!this.lettres) return rares;
    for (const mot of motsDeRecherche(q.q)) if ([...mot].length === 1 && (await this.lettres.rare(mot))) rares.add(mot);
    return rares;
  }

  /**
   * One page of the managers' list and its total. Deep pages of an exactly counted list are read from the other
   * end; past the bound the last page is unknown (pages go forward one at a time; a page past the end is empty).
   * PostgreSQL, a search with a word of 3 letters or more: the count, and the page of a few matches, run with
   * `enable_seqscan` off (in their own transaction), so that they go through the trigram index — the planner would
   * otherwise read the table until 1,001 rows match, LIKE being costlier on each row than it thinks. A walk (many
   * matches) runs with the planner's defaults: it walks the sort's index.
   */
  async page(q: ListeGestionSignalementsQuery): Promise<{ rows: (LigneGestionRow & { doublonDeNumero: string | null })[]; total: number; exact: boolean }> {
    const trigrammes = motsDeRecherche(q.q).some((m) => [...m].length >= 3);
    const paires = await this.pairesDe(q);
    const lettresRares = await this.lettresRaresDe(q);
    // A word that no report holds: nothing to read.
    if ([...paires.values()].some((p) => p.par === 'aucune')) return { rows: [], total: 0, exact: true };
    const lire = async (db: Db, avantUnParcours?: () => Promise<unknown>) => {
      const { total, exact } = await this.compter(q, paires, lettresRares, db);
      const offset = (q.page - 1) * q.parPage;
      if (exact && offset >= total) return { lues: [], total, exact };
      const lecture: Lecture = !exact ? 'parcours' : GestionSignalementsRepository.restreinte(q) ? 'peu' : 'tout';
      if (lecture === 'parcours') await avantUnParcours?.();
      const depuisLaFin = exact && offset > total / 2;
      const ordre = depuisLaFin ? (q.ordre === 'asc' ? 'desc' : 'asc') : q.ordre;
      const limite = depuisLaFin ? Math.min(q.parPage, total - offset) : q.parPage;
      let query = this.filtrer(db.selectFrom('signalements').select([...COLONNES_LIGNE]), q, lecture, paires, lettresRares);
      // SQLite: an equality filter whose index of migration 0019/0020 also holds this order (category or state, then
      // the date) gives the page from that index, the search checked on its entries by rowid.
      const ordonneParLeFiltre = this.kind === 'sqlite' && ((q.tri === 'creeLe' && (q.categorie || q.etat)) || (q.tri === 'categorie' && q.categorie) || (q.tri === 'etat' && q.etat));
      for (const [i, colonne] of COLONNES_TRI[q.tri].entries()) {
        // Else a few matches: the sort's own index is kept out (SQLite `+column`, PostgreSQL an expression), so that
        // the planner finds the matches by their filters' or the search's index, then sorts these few.
        const neutre = lecture === 'peu' && i === 0 && !ordonneParLeFiltre;
        const terme = !neutre ? colonne : this.kind === 'sqlite' ? `+${colonne}` : colonne === 'etat_rang' ? `${colonne} + 0` : `${colonne} || ''`;
        query = query.orderBy(sql.raw(terme), ordre);
      }
      const lues = await query
        .limit(limite)
        .offset(depuisLaFin ? total - offset - limite : offset)
        .execute();
      return { lues: depuisLaFin ? lues.reverse() : lues, total, exact };
    };
    const { lues: rows, total, exact } =
      this.kind === 'postgres' && trigrammes
        ? await this.db.transaction().execute(async (trx) => {
            await sql`set local enable_seqscan = off`.execute(trx);
            return lire(trx, () => sql`set local enable_seqscan = on`.execute(trx));
          })
        : await lire(this.db);
    // The originals' numbers, by their primary key.
    const originaux = [...new Set(rows.map((r) => r.doublonDe).filter((id): id is string => id !== null))];
    const numeros = new Map(
      originaux.length === 0 ? [] : (await this.db.selectFrom('signalements').select(['id', 'numero']).where('id', 'in', originaux).execute()).map((r) => [r.id, r.numero] as const),
    );
    return { rows: rows.map((r) => ({ ...r, doublonDeNumero: r.doublonDe ? (numeros.get(r.doublonDe) ?? null) : null })), total, exact };
  }

  // --- One report ---------------------------------------------------------------------------------

  /** The public updates, hidden ones included, oldest first, with the name of the manager who wrote each. */
  async misesAJour(signalementId: string): Promise<(SignalementMiseAJourRow & { auteur: string | null })[]> {
    const rows = await this.db
      .selectFrom('signalementMisesAJour')
      .leftJoin('user', 'user.id', 'signalementMisesAJour.auteurUserId')
      .selectAll('signalementMisesAJour')
      .select(['user.prenom', 'user.nom'])
      .where('signalementMisesAJour.signalementId', '=', signalementId)
      .orderBy('signalementMisesAJour.le')
      .orderBy('signalementMisesAJour.id')
      .execute();
    return rows.map(({ prenom, nom, ...r }) => ({ ...r, auteur: r.par === 'mairie' ? (r.auteurUserId ? nomDe({ prenom, nom }) : 'La mairie') : null }));
  }

  /** The name (libellé) of the Open311 API key a report was posted with (migration 0022), revoked or not. */
  async libelleCleOpen311(cleId: string): Promise<string | null> {
    const row = await this.db.selectFrom('open311Cles').select('libelle').where('id', '=', cleId).executeTakeFirst();
    return row?.libelle ?? null;
  }

  /** The numbers of the reports marked duplicates of this one, oldest first. */
  async doublons(signalementId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('signalements').select('numero').where('doublonDe', '=', signalementId).orderBy('creeLe').orderBy('id').limit(500).execute();
    return rows.map((r) => r.numero);
  }

  async notes(signalementId: string): Promise<NoteSignalement[]> {
    const rows = await this.db
      .selectFrom('signalementNotes')
      .leftJoin('user', 'user.id', 'signalementNotes.auteurUserId')
      .select(['signalementNotes.id', 'signalementNotes.texte', 'signalementNotes.le', 'user.prenom', 'user.nom'])
      .where('signalementNotes.signalementId', '=', signalementId)
      .orderBy('signalementNotes.le')
      .orderBy('signalementNotes.id')
      .execute();
    return rows.map((r) => ({ id: r.id, texte: r.texte, le: r.le, auteur: nomDe(r) }));
  }

  async ajouterNote(note: { signalementId: string; auteurUserId: string; texte: string; le: string }, trx: Db = this.db): Promise<string> {
    const id = randomUUID();
    await trx.insertInto('signalementNotes').values({ id, ...note }).execute();
    return id;
  }

  /** The moderation log, oldest first. */
  async moderations(signalementId: string): Promise<EntreeModeration[]> {
    const rows = await this.db
      .selectFrom('signalementModerations')
      .leftJoin('user', 'user.id', 'signalementModerations.acteurUserId')
      .selectAll('signalementModerations')
      .select(['user.prenom', 'user.nom'])
      .where('signalementModerations.signalementId', '=', signalementId)
      .orderBy('signalementModerations.le')
      .orderBy('signalementModerations.id')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      le: r.le,
      par: nomDe(r),
      action: r.action as EntreeModeration['action'],
      cible: r.cible as CibleModeration,
      cibleId: r.cibleId,
      motif: r.motif,
    }));
  }

  async journaliserModeration(
    entree: { signalementId: string; acteurUserId: string; action: 'masquer' | 'afficher'; cible: CibleModeration; cibleId: string | null; motif: string | null; le: string },
    trx: Db,
  ): Promise<void> {
    await trx.insertInto('signalementModerations').values({ id: randomUUID(), ...entree }).execute();
  }

  /** The latest moderation time of a report (entries of one report are strictly ordered in time). */
  async derniereModeration(signalementId: string, trx: Db): Promise<string | null> {
    const row = await trx.selectFrom('signalementModerations').select('le').where('signalementId', '=', signalementId).orderBy('le', 'desc').limit(1).executeTakeFirst();
    return row?.le ?? null;
  }

  // --- Categories (admins) ------------------------------------------------------------------------

  /** Every category in the form's order, with how many reports use it. */
  async categoriesAvecUsage(): Promise<(SignalementCategorieRow & { signalements: number })[]> {
    const [categories, usages] = await Promise.all([
      this.db.selectFrom('signalementCategories').selectAll().orderBy('rang').orderBy('code').execute(),
      // Read from the (categorie, cree_le, id) index alone.
      this.db.selectFrom('signalements').select(['categorie', (eb) => eb.fn.countAll<number | string>().as('n')]).groupBy('categorie').execute(),
    ]);
    const parCode = new Map(usages.map((u) => [u.categorie, Number(u.n)]));
    return categories.map((c) => ({ ...c, signalements: parCode.get(c.code) ?? 0 }));
  }

  async categorie(code: string, trx: Db = this.db): Promise<SignalementCategorieRow | undefined> {
    return trx.selectFrom('signalementCategories').selectAll().where('code', '=', code).executeTakeFirst();
  }

  /** The codes already taken that start with `base` (a new category's code is `base`, else `base-2`, `base-3`…). */
  async codesCommencantPar(base: string, trx: Db): Promise<Set<string>> {
    const rows = await trx
      .selectFrom('signalementCategories')
      .select('code')
      .where((eb) => eb.or([eb('code', '=', base), eb('code', 'like', `${echapperLike(base)}-%`)]))
      .execute();
    return new Set(rows.map((r) => r.code));
  }

  /** The categories' names and codes (to refuse a second category of the same name, folded). */
  async libelles(trx: Db): Promise<Pick<SignalementCategorieRow, 'code' | 'libelle'>[]> {
    return trx.selectFrom('signalementCategories').select(['code', 'libelle']).execute();
  }

  async rangMax(trx: Db): Promise<number> {
    const row = await trx.selectFrom('signalementCategories').select((eb) => eb.fn.max('rang').as('m')).executeTakeFirst();
    return Number(row?.m ?? 0);
  }

  async creerCategorie(row: SignalementCategorieRow, trx: Db): Promise<void> {
    await trx.insertInto('signalementCategories').values(row).execute();
  }

  async modifierCategorie(code: string, set: Partial<Omit<SignalementCategorieRow, 'code'>>, trx: Db): Promise<void> {
    if (Object.keys(set).length > 0) await trx.updateTable('signalementCategories').set(set).where('code', '=', code).execute();
  }

  async supprimerCategorie(code: string, trx: Db): Promise<void> {
    await trx.deleteFrom('signalementCategories').where('code', '=', code).execute();
  }

  async categorieUtilisee(code: string, trx: Db): Promise<boolean> {
    return (await trx.selectFrom('signalements').select('id').where('categorie', '=', code).limit(1).executeTakeFirst()) !== undefined;
  }

  async compterActives(trx: Db): Promise<number> {
    const row = await trx.selectFrom('signalementCategories').select((eb) => eb.fn.countAll<number | string>().as('n')).where('active', '=', 1).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Locks the categories' table rows on PostgreSQL (two admins at once cannot both retire the last active one). */
  async verrouillerCategories(trx: Db): Promise<void> {
    if (this.kind === 'postgres') await trx.selectFrom('signalementCategories').select('code').forUpdate().execute();
  }
}
