import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import {
  COLONNES_LIGNE,
  ONGLETS,
  texteDeRecherche,
  TOTAL_BORNE,
  type Compteurs,
  type DemandeCreation,
  type DemandeModification,
  type EvenementStatut,
  type LigneDemande,
  type ListeDemandes,
  type ListeQuery,
  type Tri,
} from '../../../domain/demande.js';
import { foldForSearch } from '../../../domain/normalise.js';
import { BIENTOT_JOURS, estCloturee, STATUTS_CLOTURES } from '../../../domain/cycleDeVie.js';
import { STATUT_INITIAL, STATUT_RADIEE, STATUTS, statutRang, type Statut } from '../../../domain/statut.js';
import type { Db, DbKind } from '../../db/index.js';
import type { CorrectionRow, Database, DemandeRow, DocumentRow, NewDemande, StatusEventTable } from '../../db/schema.js';
import { lecturesConsultation, type CorrectionVueRow, type DemandeCompleteRow, type DemandeStatutRow, type DocumentVueRow } from './lecture-statut.js';
import { toComplete } from './vues.js';

/** The list's query, with who « moi » is when it asks for the requests the manager follows. */
export type ListeFiltre = ListeQuery & { suiviePar?: string };

/** Whether the list is narrowed by anything but its search: a status, a validity, « Suivies par moi », a tab. */
const avecFiltre = (q: ListeFiltre): boolean => q.status !== '' || q.expiration !== '' || q.suivi !== '' || q.onglet !== '' || q.correction !== '' || q.etiquette !== '';

/** The column each sort of the managers' list uses (each backed by an index, migration 0003). */
const SORT_COLUMN = {
  dateDEnregistrement: 'dateDEnregistrement',
  numeroUnique: 'numeroUnique',
  nom: 'nomTri',
  prenom: 'prenomTri',
  email: 'email',
  statutDeLaDemande: 'statutRang',
  typeDeLogementSouhaite: 'typeDeLogementSouhaite',
  nombreDEnfants: 'nombreDEnfants',
  valideJusqua: 'valideJusqua',
} as const satisfies Record<Tri, string>;

/** Who made a step recorded without an account: the submission, the daily job, or the requester (private link). */
function sansActeur(de: string | null, vers: string): string {
  if (de === null) return 'Dépôt de la demande';
  if (vers === STATUT_RADIEE || vers === 'Effacée') return 'Tâche automatique';
  return 'Le demandeur (lien privé)';
}

function escapeLike(term: string): string {
  return term.replace(/[\\%_]/gu, (c) => `\\${c}`);
}

function foldWords(q: string): string[] {
  return foldForSearch(q).split(/\s+/u).filter(Boolean).slice(0, 8);
}

/**
 * Every SQL statement on housing requests, their documents and their status history. Each method
 * takes an optional transaction (`trx`), so that a service can put several in one.
 */
export class DemandesRepository {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    /** The clock of the managers' validity filter (AppDeps.now). */
    private readonly now: () => Date = () => new Date(),
  ) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  findByNumero(numeroUnique: string, trx: Db = this.db): Promise<DemandeRow | undefined> {
    return trx.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', numeroUnique).where('effaceeLe', 'is', null).executeTakeFirst();
  }

  private lectures: ReturnType<typeof lecturesConsultation> | undefined;

  /**
   * The lookup's reads (GET /logement/:numeroUnique), by statements prepared once (lecture-statut.ts),
   * erased requests excluded: the columns that decide access and make the status view, by numéro…
   */
  findStatut(numeroUnique: string): Promise<DemandeStatutRow | undefined> {
    this.lectures ??= lecturesConsultation(this.db);
    return this.lectures.statut.first(numeroUnique);
  }

  /** …and, for a full view, what it shows of the request and of its documents, by id. */
  async findComplete(id: string): Promise<{ row: DemandeCompleteRow; documents: DocumentVueRow[]; correction: CorrectionVueRow | null } | undefined> {
    this.lectures ??= lecturesConsultation(this.db);
    const row = await this.lectures.complete.first(id);
    if (!row) return undefined;
    const [documents, correction] = await Promise.all([this.lectures.documents.all(id), this.lectures.correction.first(id)]);
    return { row, documents, correction: correction ?? null };
  }

  /** The request by numéro or by id, locked until the transaction ends on PostgreSQL (SQLite writes one at a time). */
  findForUpdate(numeroUnique: string, id: string, trx: Db): Promise<DemandeRow | undefined> {
    let query = trx
      .selectFrom('housingRequests')
      .selectAll()
      .where((eb) => eb.or([eb('numeroUnique', '=', numeroUnique), eb('id', '=', id)]))
      .where('effaceeLe', 'is', null);
    if (this.kind === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  listByOwner(ownerUserId: string): Promise<DemandeRow[]> {
    return this.db.selectFrom('housingRequests').selectAll().where('ownerUserId', '=', ownerUserId).where('effaceeLe', 'is', null).orderBy('dateDEnregistrement', 'desc').execute();
  }

  listAll(): Promise<DemandeRow[]> {
    return this.db.selectFrom('housingRequests').selectAll().where('effaceeLe', 'is', null).orderBy('dateDEnregistrement', 'desc').execute();
  }

  /**
   * Inserts a request and its first status event. A duplicate numéro surfaces as the database's
   * UNIQUE violation (the service maps it to 409).
   */
  async insert(input: DemandeCreation, accessKeyHash: string, at: string, ownerUserId: string | null, trx: Db, valideJusqua: string): Promise<DemandeRow> {
    const row: NewDemande = {
      ...input,
      quartierSouhaite: JSON.stringify(input.quartierSouhaite),
      id: randomUUID(),
      accessKeyHash,
      dateDEnregistrement: at,
      statutDeLaDemande: STATUT_INITIAL,
      updatedAt: at,
      ownerUserId,
      searchText: texteDeRecherche({ ...input, dateDEnregistrement: at, statutDeLaDemande: STATUT_INITIAL }),
      nomTri: foldForSearch(input.nom),
      prenomTri: foldForSearch(input.prenom),
      statutRang: statutRang(STATUT_INITIAL),
      valideJusqua,
    };
    await trx.insertInto('housingRequests').values(row).execute();
    await this.insertEvenement(row.id, null, STATUT_INITIAL, null, at, trx);
    return { ...row, rappelsEnvoyes: '', dernierRenouvellement: null, radieeLe: null, clotureeLe: null } as DemandeRow;
  }

  /**
   * The applicant's new values of the fields (every field but the numéro), with the search text and the sort
   * keys that follow them; answers the row as it now is.
   */
  async modifier(row: DemandeRow, input: DemandeModification, at: string, trx: Db): Promise<DemandeRow> {
    const champs = { ...input, quartierSouhaite: JSON.stringify(input.quartierSouhaite) };
    const updated: DemandeRow = { ...row, ...champs, updatedAt: at };
    await trx
      .updateTable('housingRequests')
      .set({ ...champs, updatedAt: at, searchText: texteDeRecherche(toComplete(updated, [])), nomTri: foldForSearch(input.nom), prenomTri: foldForSearch(input.prenom) })
      .where('id', '=', row.id)
      .execute();
    return updated;
  }

  /**
   * Sets the status (with its sort rank and the search text that shows it). Becoming Radiée, Refusé or
   * Attribué starts the retention year (`cloturee_le`); leaving them ends it; a striking off by the daily job ends with it.
   */
  async setStatut(row: DemandeRow, statut: Statut, at: string, trx: Db): Promise<DemandeRow> {
    const clotureeLe = !estCloturee(statut) ? null : estCloturee(row.statutDeLaDemande) ? row.clotureeLe : at;
    const radieeLe = statut === STATUT_RADIEE ? row.radieeLe : null;
    const updated: DemandeRow = { ...row, statutDeLaDemande: statut, updatedAt: at, clotureeLe, radieeLe };
    await trx
      .updateTable('housingRequests')
      .set({ statutDeLaDemande: statut, statutRang: statutRang(statut), updatedAt: at, clotureeLe, radieeLe, searchText: texteDeRecherche(toComplete(updated, [])) })
      .where('id', '=', row.id)
      .execute();
    return updated;
  }

  /** Records a step of the history (with a refusal's reason, and until when it may be undone); answers its id. */
  async insertEvenement(
    housingRequestId: string,
    de: string | null,
    vers: string,
    actorUserId: string | null,
    at: string,
    trx: Db = this.db,
    extra: { motif?: string | null; undoUntil?: string | null } = {},
  ): Promise<string> {
    const id = randomUUID();
    await trx
      .insertInto('statusEvents')
      .values({ id, housingRequestId, fromStatus: de, toStatus: vers, actorUserId, at, motif: extra.motif ?? null, undoUntil: extra.undoUntil ?? null })
      .execute();
    return id;
  }

  findEvenement(id: string, trx: Db = this.db): Promise<Selectable<StatusEventTable> | undefined> {
    return trx.selectFrom('statusEvents').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** When the request's latest step (undone ones included) was recorded. */
  async lastEvenementAt(housingRequestId: string, trx: Db = this.db): Promise<string | null> {
    const last = await trx.selectFrom('statusEvents').select('at').where('housingRequestId', '=', housingRequestId).orderBy('at', 'desc').limit(1).executeTakeFirst();
    return last?.at ?? null;
  }

  /** Whether the request has a step (not undone) recorded after `event` (the service keeps steps strictly ordered). */
  async hasLaterEvenement(event: Selectable<StatusEventTable>, trx: Db = this.db): Promise<boolean> {
    const later = await trx
      .selectFrom('statusEvents')
      .select('id')
      .where('housingRequestId', '=', event.housingRequestId)
      .where('at', '>', event.at)
      .where('undoneAt', 'is', null)
      .executeTakeFirst();
    return later !== undefined;
  }

  /** Marks a step as undone: the history no longer shows it; the row stays, with when and by whom. */
  async markUndone(id: string, at: string, actorUserId: string, trx: Db): Promise<void> {
    await trx.updateTable('statusEvents').set({ undoneAt: at, undoneBy: actorUserId }).where('id', '=', id).execute();
  }

  /**
   * The request's status history, oldest first, without the undone steps; the actor's name only when
   * `withActor` (managers), a refusal's reason only when `withMotif` (those who see the request in full).
   */
  async historique(housingRequestId: string, withActor: boolean, withMotif = false): Promise<EvenementStatut[]> {
    const rows = await this.db
      .selectFrom('statusEvents')
      .leftJoin('user', 'user.id', 'statusEvents.actorUserId')
      .select(['statusEvents.fromStatus', 'statusEvents.toStatus', 'statusEvents.at', 'statusEvents.motif', 'user.prenom', 'user.nom'])
      .where('statusEvents.housingRequestId', '=', housingRequestId)
      .where('statusEvents.undoneAt', 'is', null)
      .orderBy('statusEvents.at')
      .orderBy('statusEvents.id')
      .execute();
    return rows.map((r) => ({
      de: r.fromStatus as Statut | null,
      vers: r.toStatus as Statut,
      date: r.at,
      ...(withActor ? { par: r.prenom ? `${r.prenom} ${r.nom ?? ''}`.trim() : sansActeur(r.fromStatus, r.toStatus) } : {}),
      ...(withMotif && r.motif ? { motif: r.motif } : {}),
    }));
  }

  listDocuments(housingRequestId: string): Promise<DocumentRow[]> {
    return this.db.selectFrom('documents').selectAll().where('housingRequestId', '=', housingRequestId).orderBy('category').orderBy('position').execute();
  }

  /** The request's messages, oldest first (the person's data export: no manager named). */
  messages(housingRequestId: string): Promise<{ de: string; texte: string; le: string }[]> {
    return this.db.selectFrom('messages').select(['de', 'texte', 'le']).where('housingRequestId', '=', housingRequestId).orderBy('le').execute();
  }

  /** The request's requests for corrections, oldest first (the person's data export). */
  corrections(housingRequestId: string): Promise<CorrectionRow[]> {
    return this.db.selectFrom('corrections').selectAll().where('housingRequestId', '=', housingRequestId).orderBy('demandeeLe').execute();
  }

  findDocument(housingRequestId: string, id: string): Promise<DocumentRow | undefined> {
    return this.db.selectFrom('documents').selectAll().where('id', '=', id).where('housingRequestId', '=', housingRequestId).executeTakeFirst();
  }

  /** The last position used in each category of the request. */
  async lastPositions(housingRequestId: string): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('documents')
      .select(['category', (eb) => eb.fn.max('position').as('n')])
      .where('housingRequestId', '=', housingRequestId)
      .groupBy('category')
      .execute();
    return new Map(rows.map((e) => [e.category, Number(e.n)]));
  }

  /** How many documents a request holds and their total size (the per-request quota, docs/produit.md « Documents »). */
  async totauxDocuments(housingRequestId: string, trx: Db = this.db): Promise<{ fichiers: number; octets: number }> {
    const row = await trx
      .selectFrom('documents')
      .select((eb) => [eb.fn.countAll().as('fichiers'), eb.fn.coalesce(eb.fn.sum('size'), eb.lit(0)).as('octets')])
      .where('housingRequestId', '=', housingRequestId)
      .executeTakeFirstOrThrow();
    return { fichiers: Number(row.fichiers), octets: Number(row.octets) };
  }

  /**
   * Records uploaded documents and touches the request, in one transaction, after `check` has seen the
   * request's totals: the request's row is locked first (PostgreSQL; SQLite writes one transaction at a
   * time), so two uploads at once cannot both pass the per-request quota. `check` throws to refuse; nothing is then written.
   */
  async insertDocumentsChecked(
    row: DemandeRow,
    rows: DocumentRow[],
    at: string,
    check: (totaux: { fichiers: number; octets: number }) => void,
    /** Written first in the same transaction (a message, whose attachments these are). */
    avant?: (trx: Db) => Promise<void>,
  ): Promise<void> {
    await this.transaction(async (trx) => {
      await this.findForUpdate(row.numeroUnique, row.id, trx);
      check(await this.totauxDocuments(row.id, trx));
      await avant?.(trx);
      await trx.insertInto('documents').values(rows).execute();
      await trx.updateTable('housingRequests').set({ updatedAt: at }).where('id', '=', row.id).execute();
    });
  }

  async isDocumentKey(storageKey: string): Promise<boolean> {
    return (await this.db.selectFrom('documents').select('id').where('storageKey', '=', storageKey).executeTakeFirst()) !== undefined;
  }

  /**
   * Search (every word, anywhere in the folded text) and the filters. On SQLite, the words of 3 letters or
   * more go through the trigram index together, as one FTS5 query on rowids (migrations 0003, 0011); on
   * PostgreSQL the pg_trgm index serves LIKE itself. `walk` (SQLite, a list with more matches than
   * TOTAL_BORNE): the filters do not use their own indexes (`+column`), so that SQLite walks the sort
   * column's index and stops at the page instead of reading and sorting every match (docs/decisions/0013).
   */
  private filtered<O>(
    query: SelectQueryBuilder<Database, 'housingRequests', O>,
    q: ListeFiltre,
    { walk = false }: { walk?: boolean } = {},
  ): SelectQueryBuilder<Database, 'housingRequests', O> {
    // `+column` keeps SQLite from driving the query by that column's index.
    const col = (name: string) => sql.raw(walk && this.kind === 'sqlite' ? `+${name}` : name);
    const { trigrammes, autres } = this.mots(q);
    let out = query;
    // Withdrawn and erased requests (anonymous tombstones) are in no list, count or export. Their search text
    // is empty, so they have no trigram: a search through the trigram index leaves them out by itself.
    if (!trigrammes) out = out.where('effaceeLe', 'is', null);
    if (q.status) {
      out = out.where(sql<boolean>`${col('statut_de_la_demande')} = ${q.status}`);
      // The same filter on the rank: sorted by status, the rank's index gives the page directly.
      if (q.sort === 'statutDeLaDemande') out = out.where('statutRang', '=', statutRang(q.status as Statut));
    }
    if (q.suivi === 'moi') out = out.where(sql<boolean>`${col('suivie_par')} = ${q.suiviePar ?? ''}`);
    if (q.onglet) out = out.where(sql<boolean>`${col('statut_de_la_demande')} in (${sql.join(ONGLETS[q.onglet].statuts)})`);
    if (q.correction) out = out.where(sql<boolean>`${col('correction')} = ${q.correction}`);
    if (q.etiquette) {
      const porteurs = sql`select housing_request_id from demande_etiquettes where etiquette_id = ${q.etiquette}`;
      // SQLite with a search: the label's requests as rowids, read from the primary key's index alone, so that
      // both sets meet by rowid and only the rows in both are read, not every row the search matches (at 100,000,
      // label + "martin" p50 84 -> 53 ms). Without a search, by id: the label's own index serves it better.
      out =
        trigrammes && this.kind === 'sqlite'
          ? out.where(sql<boolean>`${col('rowid')} in (select rowid from housing_requests where id in (${porteurs}))`)
          : out.where(sql<boolean>`${col('id')} in (${porteurs})`);
    }
    if (q.expiration === 'radiee') out = out.where(sql<boolean>`${col('statut_de_la_demande')} = ${STATUT_RADIEE}`);
    else if (q.expiration) {
      // Written as migration 0011's partial index of open requests (literals): SQLite then reads that index.
      const now = this.now();
      if (trigrammes) out = out.where('effaceeLe', 'is', null);
      out = out.where(sql<boolean>`statut_de_la_demande not in (${sql.raw(STATUTS_CLOTURES.map((s) => `'${s}'`).join(', '))})`);
      out =
        q.expiration === 'expiree'
          ? out.where('valideJusqua', '<=', now.toISOString())
          : out.where('valideJusqua', '>', now.toISOString()).where('valideJusqua', '<=', new Date(now.getTime() + BIENTOT_JOURS * 86_400_000).toISOString());
    }
    // A quoted phrase in a trigram table matches anywhere in the text, like LIKE '%word%', by index.
    if (trigrammes) out = out.where(sql<boolean>`${col('rowid')} in (select rowid from housing_search where housing_search match ${trigrammes})`);
    for (const word of autres) out = out.where(sql<boolean>`search_text like ${`%${escapeLike(word)}%`} escape '\\'`);
    return out;
  }

  /** The search's words: on SQLite, those of 3 letters or more as one FTS5 query (every word), the others for LIKE. */
  private mots(q: ListeFiltre): { trigrammes: string | null; autres: string[] } {
    const words = q.q ? foldWords(q.q) : [];
    if (this.kind !== 'sqlite') return { trigrammes: null, autres: words };
    const longs = words.filter((w) => [...w].length >= 3);
    return {
      trigrammes: longs.length > 0 ? longs.map((w) => `"${w.replace(/"/gu, '""')}"`).join(' AND ') : null,
      autres: words.filter((w) => [...w].length < 3),
    };
  }

  /**
   * The list's total (docs/decisions/0013). The whole list: exact, every request but the erased ones (SQLite
   * counts a table without reading it, the erased ones come from their index; PostgreSQL keeps the number in
   * housing_requests_total, migration 0011). A search or a filter: counted
   * up to TOTAL_BORNE + 1 matches only; past TOTAL_BORNE the total is TOTAL_BORNE and not exact.
   */
  async compter(q: ListeFiltre): Promise<{ total: number; exact: boolean }> {
    const { trigrammes, autres } = this.mots(q);
    if (!trigrammes && autres.length === 0 && !avecFiltre(q)) {
      const { rows } =
        this.kind === 'postgres'
          ? await sql<{ n: number | string }>`select n from housing_requests_total where id = 1`.execute(this.db)
          : await sql<{ n: number | string }>`select (select count(*) from housing_requests)
              - (select count(*) from housing_requests where effacee_le is not null) as n`.execute(this.db);
      return { total: Number(rows[0]!.n), exact: true };
    }
    // SQLite, a search and nothing else: counted in the trigram index alone.
    const bounded =
      trigrammes && autres.length === 0 && !avecFiltre(q)
        ? sql<{ n: number | string }>`select count(*) as n from (select rowid from housing_search where housing_search match ${trigrammes} limit ${TOTAL_BORNE + 1})`
        : sql<{ n: number | string }>`select count(*) as n from (${this.filtered(this.db.selectFrom('housingRequests').select(sql`1`.as('un')), q).limit(TOTAL_BORNE + 1)}) as m`;
    const n = Number((await bounded.execute(this.db)).rows[0]!.n);
    return n > TOTAL_BORNE ? { total: TOTAL_BORNE, exact: false } : { total: n, exact: true };
  }

  /**
   * The counts of the list's tabs: requests per status (erased ones left out) and those `userId` follows.
   * Read from the status-rank index, less the few erased requests (their partial index).
   */
  async compteurs(userId: string): Promise<Compteurs> {
    const [tous, effaces, suivies] = await Promise.all([
      this.db.selectFrom('housingRequests').select(['statutRang', (eb) => eb.fn.countAll<number | string>().as('n')]).groupBy('statutRang').execute(),
      // `+ 0`: SQLite would walk the status-rank index and read every row for `effacee_le`; this way it reads
      // the erased ones from their partial index (a few rows), then groups them.
      sql<{ statutRang: number; n: number | string }>`select statut_rang + 0 as statut_rang, count(*) as n from housing_requests
        where effacee_le is not null group by 1`
        .execute(this.db)
        .then((r) => r.rows),
      this.db
        .selectFrom('housingRequests')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('suiviePar', '=', userId)
        .where('effaceeLe', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    const parRang = new Map(tous.map((r) => [r.statutRang, Number(r.n)]));
    for (const r of effaces) parRang.set(r.statutRang, (parRang.get(r.statutRang) ?? 0) - Number(r.n));
    const parStatut = Object.fromEntries(STATUTS.map((s) => [s, parRang.get(statutRang(s)) ?? 0])) as Compteurs['parStatut'];
    return { parStatut, toutes: Object.values(parStatut).reduce((a, b) => a + b, 0), suiviesParMoi: Number(suivies.n) };
  }

  /** One page of the managers' list and its total, exact or bounded (docs/decisions 0007, 0009, 0013). */
  async page(q: ListeFiltre): Promise<ListeDemandes> {
    const { total, exact } = await this.compter(q);
    const offset = (q.page - 1) * q.pageSize;
    if (exact && offset >= total) return { data: [], total, totalExact: true };
    const column = SORT_COLUMN[q.sort];
    // Deep pages are read from the other end when the total is known: OFFSET 99,990 would walk the whole index.
    const fromEnd = exact && offset > total / 2;
    const order = fromEnd ? (q.order === 'asc' ? 'desc' : 'asc') : q.order;
    const limit = fromEnd ? Math.min(q.pageSize, total - offset) : q.pageSize;
    // Few matches: read them and sort them. Many: walk the sort index and stop at the page (the search checked
    // on the walked index entries by rowid, without reading their rows: a LIKE on each row would read every row
    // before the first match, all the names before « M » for « martin » sorted by name).
    // Few matches of a search or a filter (SQLite): `+column` keeps the planner from walking the sort index
    // through rows that do not match (expired requests are the oldest: sorted by date, it would read most rows).
    const { trigrammes, autres } = this.mots(q);
    const peu = exact && this.kind === 'sqlite' && (trigrammes !== null || autres.length > 0 || avecFiltre(q));
    const rows = (await this.filtered(this.db.selectFrom('housingRequests').select([...COLONNES_LIGNE]), q, { walk: !exact })
      .orderBy(peu ? sql`+${sql.ref(column)}` : column, order)
      .orderBy('id', order)
      .limit(limit)
      .offset(fromEnd ? total - offset - limit : offset)
      .execute()) as Omit<LigneDemande, 'etiquettes'>[];
    // The page's labels, by the primary key of their table.
    const poses =
      rows.length === 0
        ? []
        : await this.db.selectFrom('demandeEtiquettes').select(['housingRequestId', 'etiquetteId']).where('housingRequestId', 'in', rows.map((r) => r.id)).execute();
    const lignes = rows.map((r) => ({ ...r, etiquettes: poses.filter((p) => p.housingRequestId === r.id).map((p) => p.etiquetteId) }));
    return { data: fromEnd ? lignes.reverse() : lignes, total, totalExact: exact };
  }

  /** Every matching request, in the list's order, read from the database in batches. */
  stream(q: ListeFiltre): AsyncIterableIterator<DemandeRow> {
    return this.filtered(this.db.selectFrom('housingRequests').selectAll(), q)
      .orderBy(SORT_COLUMN[q.sort], q.order)
      .orderBy('id', q.order)
      .stream(500);
  }

  /**
   * Withdrawal and erasure (effacement.ts): the request becomes an anonymous tombstone. Every personal field
   * is blanked, the numéro (itself personal) becomes a value that names no one and frees the real one, the
   * access key hash is random (no key opens it), the owner link goes; the history stays.
   */
  async anonymiser(id: string, statut: string, at: string, trx: Db): Promise<void> {
    await trx
      .updateTable('housingRequests')
      .set({
        numeroUnique: `efface-${id}`,
        accessKeyHash: randomBytes(32).toString('hex'),
        prenom: '',
        nom: '',
        sexe: null,
        dateDeNaissance: null,
        email: '',
        numeroDeTelephone: '',
        adresse: '',
        adresseComplement: '',
        codePostal: '',
        ville: '',
        salaireBrut: null,
        salaireAvisImpot1: null,
        salaireAvisImpot2: null,
        situationFamiliale: '',
        nombreDEnfants: 0,
        logementActuel: '',
        typeDeLogementActuel: '',
        quartierActuel: null,
        bailleurActuel: '',
        typeDeLogementSouhaite: '',
        quartierSouhaite: '[]',
        motivations: '',
        commentaires: '',
        ownerUserId: null,
        searchText: '',
        nomTri: '',
        prenomTri: '',
        statutDeLaDemande: statut,
        updatedAt: at,
        effaceeLe: at,
        suiviePar: null,
        correction: null,
        messagesNonLus: 0,
      })
      .where('id', '=', id)
      .execute();
    // The managers' notes may speak of the person: they go with the rest (the audit, which holds no
    // personal data, stays with the history). So do the messages and the reasons of requests for corrections (their dates stay).
    await trx.deleteFrom('notesInternes').where('housingRequestId', '=', id).execute();
    await trx.updateTable('corrections').set({ motif: '' }).where('housingRequestId', '=', id).execute();
    await trx.deleteFrom('messages').where('housingRequestId', '=', id).execute();
  }

  /** Deletes the request's document rows; answers their storage keys (the files go after the commit). */
  async deleteDocuments(housingRequestId: string, trx: Db): Promise<string[]> {
    const rows = await trx.selectFrom('documents').select('storageKey').where('housingRequestId', '=', housingRequestId).execute();
    await trx.deleteFrom('documents').where('housingRequestId', '=', housingRequestId).execute();
    return rows.map((r) => r.storageKey);
  }

  /** Deletes one document row (the file goes after the commit); answers whether it was there. */
  async deleteDocument(housingRequestId: string, id: string, at: string, trx: Db): Promise<boolean> {
    const result = await trx.deleteFrom('documents').where('id', '=', id).where('housingRequestId', '=', housingRequestId).executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return false;
    await trx.updateTable('housingRequests').set({ updatedAt: at }).where('id', '=', housingRequestId).execute();
    return true;
  }

  /**
   * The e-mails about the request leave the outbox: those not yet claimed for delivery are withdrawn, and
   * those already sent lose their trace (address and subject). A mail being delivered at this very instant
   * is left to finish.
   */
  async withdrawMails(housingRequestId: string, trx: Db): Promise<void> {
    await trx
      .deleteFrom('mailOutbox')
      .where('housingRequestId', '=', housingRequestId)
      .where((eb) => eb.or([eb('sentAt', 'is not', null), eb('claimedAt', 'is', null)]))
      .execute();
  }

  /** Rotates the request's private key (the old one stops working at once). */
  async setAccessKeyHash(id: string, accessKeyHash: string, trx: Db): Promise<void> {
    await trx.updateTable('housingRequests').set({ accessKeyHash }).where('id', '=', id).where('effaceeLe', 'is', null).execute();
  }

  /**
   * The life cycle (cycleDeVie.ts). Ids of open requests (not closed, not erased) after `apres`, by id, at most
   * `limite`: whose validity ends within `jusqua` and that have not had the reminder `jours`.
   */
  async idsARappeler(jours: number, depuis: string, jusqua: string, apres: string, limite: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('housingRequests')
      .select('id')
      .where('effaceeLe', 'is', null)
      .where('statutDeLaDemande', 'not in', STATUTS_CLOTURES)
      .where('valideJusqua', '>', depuis)
      .where('valideJusqua', '<=', jusqua)
      .where('rappelsEnvoyes', 'not like', `%,${jours},%`)
      .where('id', '>', apres)
      .orderBy('id')
      .limit(limite)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Open requests whose validity ended on or before `avant` (to strike off), after `apres`, by id. */
  async idsARadier(avant: string, apres: string, limite: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('housingRequests')
      .select('id')
      .where('effaceeLe', 'is', null)
      .where('statutDeLaDemande', 'not in', STATUTS_CLOTURES)
      .where('valideJusqua', '<=', avant)
      .where('id', '>', apres)
      .orderBy('id')
      .limit(limite)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Requests closed on or before `avant` (their retention year is over), after `apres`, by id. */
  async idsAPurger(avant: string, apres: string, limite: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('housingRequests')
      .select('id')
      .where('effaceeLe', 'is', null)
      .where('clotureeLe', 'is not', null)
      .where('clotureeLe', '<=', avant)
      .where('id', '>', apres)
      .orderBy('id')
      .limit(limite)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Marks reminders as sent for the current validity ("," + days + ","). */
  async marquerRappels(id: string, envoyes: string, trx: Db): Promise<void> {
    await trx.updateTable('housingRequests').set({ rappelsEnvoyes: envoyes }).where('id', '=', id).execute();
  }

  /** Restarts the validity: until `valideJusqua`, renewed at `at`, no reminder sent yet. */
  async renouveler(id: string, valideJusqua: string, at: string, trx: Db): Promise<void> {
    await trx.updateTable('housingRequests').set({ valideJusqua, dernierRenouvellement: at, rappelsEnvoyes: '', updatedAt: at }).where('id', '=', id).execute();
  }

  /** Records that the daily job struck the request off at `at`. */
  async marquerRadiee(id: string, at: string, trx: Db): Promise<void> {
    await trx.updateTable('housingRequests').set({ radieeLe: at }).where('id', '=', id).execute();
  }

  /** The status the request had before its latest striking off (the history's step to Radiée). */
  async statutAvantRadiation(housingRequestId: string, trx: Db): Promise<string | null> {
    const row = await trx
      .selectFrom('statusEvents')
      .select('fromStatus')
      .where('housingRequestId', '=', housingRequestId)
      .where('toStatus', '=', STATUT_RADIEE)
      .where('undoneAt', 'is', null)
      .orderBy('at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.fromStatus ?? null;
  }

  /** The request by id (not erased). */
  findById(id: string, trx: Db = this.db): Promise<DemandeRow | undefined> {
    return trx.selectFrom('housingRequests').selectAll().where('id', '=', id).where('effaceeLe', 'is', null).executeTakeFirst();
  }

  /** The scheduler's lease on `nom`: taken when free (or expired) and, unless `force`, when the run after `creneau` is not done. */
  async prendreBail(nom: string, now: string, jusqua: string, creneau: string | null): Promise<boolean> {
    await this.db.insertInto('taches').values({ nom, bailJusqua: '' }).onConflict((oc) => oc.column('nom').doNothing()).execute();
    let update = this.db.updateTable('taches').set({ bailJusqua: jusqua }).where('nom', '=', nom).where('bailJusqua', '<', now);
    if (creneau !== null) update = update.where((eb) => eb.or([eb('derniereFin', 'is', null), eb('derniereFin', '<', creneau)]));
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Extends a lease still held (until `jusqua`). */
  async prolongerBail(nom: string, jusqua: string): Promise<void> {
    await this.db.updateTable('taches').set({ bailJusqua: jusqua }).where('nom', '=', nom).execute();
  }

  /** Ends the run: the lease is free and the run is recorded as done at `fin`. */
  async rendreBail(nom: string, fin: string | null): Promise<void> {
    await this.db
      .updateTable('taches')
      .set(fin === null ? { bailJusqua: '' } : { bailJusqua: '', derniereFin: fin })
      .where('nom', '=', nom)
      .execute();
  }
}
