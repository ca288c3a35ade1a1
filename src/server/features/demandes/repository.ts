import { randomBytes, randomUUID } from 'node:crypto';
import { sql, type RawBuilder, type Selectable, type SelectQueryBuilder } from 'kysely';
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
import { compacter, foldForSearch } from '../../../domain/normalise.js';
import { BIENTOT_JOURS, estCloturee, STATUTS_CLOTURES } from '../../../domain/cycleDeVie.js';
import { STATUT_INITIAL, STATUT_RADIEE, STATUTS, statutRang, type Statut } from '../../../domain/statut.js';
import type { Db, DbKind } from '../../db/index.js';
import { IndexFtsDiffere } from '../../db/fts-differe.js';
import { FrequencesLettres, PartsEchantillon } from '../../db/lettres.js';
import { echapperLike, PairesFts, phrase } from '../../db/paires.js';
import { dialecte, Gabarit } from '../../db/gabarit.js';
import { inserer } from '../../db/insertion.js';
import { RequetePreparee } from '../../db/preparee.js';
import type { CorrectionRow, Database, DemandeRow, DocumentRow, NewDemande, StatusEventTable } from '../../db/schema.js';
import { COLONNES_DOCUMENT, depuisJson, lecturesConsultation, type CorrectionVueRow, type DemandeCompleteEtAccesRow, type DemandeCompleteLue, type DemandeCompleteRow, type DemandeStatutRow, type DocumentVueRow } from './lecture-statut.js';
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

/** The sorts on a column the search text holds (toutesSiMoinsCher). */
const TRIS_DU_TEXTE: ReadonlySet<Tri> = new Set(['nom', 'prenom', 'email']);

/** Who made a step recorded without an account: the submission, the daily job, or the requester (private link). */
function sansActeur(de: string | null, vers: string): string {
  if (de === null) return 'Dépôt de la demande';
  if (vers === STATUT_RADIEE || vers === 'Effacée') return 'Tâche automatique';
  return 'Le demandeur (lien privé)';
}

function foldWords(q: string): string[] {
  return foldForSearch(q).split(/\s+/u).filter(Boolean).slice(0, 8);
}

/**
 * A typed word and, when it holds signs (« jean-yves », « n’diaye », « 06-12-34 »), its letters and digits alone:
 * the stored text holds names and phones that way too (migration 0012), so « jean-yves » finds « Jean Yves » and
 * « 06.12 » a phone written « 06 12 … »; either form matches. The compact form only from 3 characters.
 */
function variantes(w: string): string[] {
  const compact = compacter(w);
  return compact !== w && [...compact].length >= 3 ? [w, compact] : [w];
}

/** A word as FTS5 matches it: its phrase, or the OR of its forms' phrases. */
function motFts(w: string): string {
  const formes = variantes(w);
  return formes.length > 1 ? `(${formes.map(phrase).join(' OR ')})` : phrase(w);
}

/** A word as LIKE matches it: anywhere in the search text, in either of its forms. */
function motLike(w: string): RawBuilder<boolean> {
  const like = (f: string) => sql<boolean>`search_text like ${`%${echapperLike(f)}%`} escape '\\'`;
  const formes = variantes(w);
  return formes.length > 1 ? sql<boolean>`(${sql.join(formes.map(like), sql` or `)})` : like(w);
}

/** The search as the query that collects the matches' keys writes it (DemandesRepository.collecte). */
interface Collecte {
  /** SQLite: one FTS5 query of every word the trigram index alone holds, null when none. */
  fts: string | null;
  /** The other words, each a condition on the row. */
  conditions: RawBuilder<boolean>[];
  /** A word that no stored text contains: nothing matches. */
  vide: boolean;
}

type LigneSansEtiquettes = Omit<LigneDemande, 'etiquettes'>;
/** A row of the page as read: on PostgreSQL with its labels' ids (below), on SQLite without. */
type LignePage = LigneSansEtiquettes & { etiquettes?: string[] };

/**
 * PostgreSQL: a row's labels come with it, from the ids the request carries (`etiquette_ids`, sorted, kept by the
 * triggers of migration 0027): no second round trip for the page's labels. SQLite reads them apart (in-process).
 */
const ETIQUETTES_EN_LIGNE = sql<string[]>`etiquette_ids`.as('etiquettes');

/** A page read among the collected matches, and their number (`exact`: at most TOTAL_BORNE). */
interface PageParmi {
  rows: LignePage[];
  total: number;
  exact: boolean;
}

/**
 * PostgreSQL, more than TOTAL_BORNE matches: what the first TOTAL_BORNE + 1 of them, read in the table's physical
 * order, tell of the rest. `estimation`: how many rows match in all, from how far in the table they were found.
 * `borne`: the sort key of the page's last row among them (null when they are too few for the page): no row past it
 * can be on the page, so walking the sort index reads at most the rows up to it.
 */
interface Echantillon {
  estimation: number;
  borne: { valeur: unknown; id: string } | null;
}

/**
 * Every SQL statement on housing requests, their documents and their status history. Each method
 * takes an optional transaction (`trx`), so that a service can put several in one.
 */
/**
 * Rows read at once by an export (`stream`). Few: a batch lives until its last row is written, across the
 * download's waits, and one that outlives the young generation's collections piles up in the old one until a full
 * collection (PostgreSQL, 100,000 rows: peak RSS growth 133 MB with 500, 5 MB with 50).
 */
const STREAM_LOT = 50;

/** What a full view shows: the request, its documents in order, its open request for corrections. */
export interface VueComplete<R> {
  row: R;
  documents: DocumentVueRow[];
  correction: CorrectionVueRow | null;
}

function vueComplete<R extends DemandeCompleteRow>(lue: (R & Pick<DemandeCompleteLue, 'documents' | 'correction'>) | undefined): VueComplete<R> | undefined {
  if (!lue) return undefined;
  // The row is the read itself, its two JSON columns left on it unread (copying its ~30 other fields out cost the full
  // view ~3 µs a request): views pick their fields by name (vues.ts).
  // SQLite's json_group_array gives [] for no document; PostgreSQL's json_agg gives null.
  return { row: lue as R, documents: depuisJson<DocumentVueRow[]>(lue.documents) ?? [], correction: depuisJson<CorrectionVueRow>(lue.correction) };
}

/** SQLite: the managers' trigram index (migrations 0011, 0032) and the text it indexes. */
const INDEX_RECHERCHE = { fts: 'housing_search', table: 'housing_requests', colonne: 'search_text' };

/** A request's retention start and striking off, as a status change found them (kept to undo it). */
export type DatesAvantChangement = Pick<DemandeRow, 'clotureeLe' | 'radieeLe'>;

/** The queries of a status change and of an upload, each built by Kysely once (db/gabarit.ts), run at every call. */
const POUR_MISE_A_JOUR = new Gabarit<{ numero: string; id: string }, DemandeRow>('findForUpdate', (db, p) => {
  const query = db
    .selectFrom('housingRequests')
    .selectAll()
    .where((eb) => eb.or([eb('numeroUnique', '=', p.numero), eb('id', '=', p.id)]))
    .where('effaceeLe', 'is', null);
  return dialecte(db) === 'pg' ? query.forUpdate() : query;
});
const DERNIER_PAS = new Gabarit<{ id: string }, { at: string }>('lastEvenementAt', (db, p) =>
  db.selectFrom('statusEvents').select('at').where('housingRequestId', '=', p.id).orderBy('at', 'desc').limit(1),
);
const NOUVEAU_STATUT = new Gabarit<
  Pick<DemandeRow, 'id' | 'statutDeLaDemande' | 'statutRang' | 'updatedAt' | 'clotureeLe' | 'radieeLe' | 'searchText'>,
  unknown
>('setStatut', (db, p) =>
  db
    .updateTable('housingRequests')
    .set({ statutDeLaDemande: p.statutDeLaDemande, statutRang: p.statutRang, updatedAt: p.updatedAt, clotureeLe: p.clotureeLe, radieeLe: p.radieeLe, searchText: p.searchText })
    .where('id', '=', p.id),
);
/** The request locked (PostgreSQL) and still there, for its documents. */
const VERROU_DOCUMENTS = new Gabarit<{ id: string }, { id: string }>('verrouDocuments', (db, p) => {
  const query = db.selectFrom('housingRequests').select('id').where('id', '=', p.id).where('effaceeLe', 'is', null);
  return dialecte(db) === 'pg' ? query.forUpdate() : query;
});
const DOCUMENTS_ET_POSITIONS = new Gabarit<{ id: string }, DocumentVueRow & { position: number }>('documentsEtPositions', (db, p) =>
  db
    .selectFrom('documents')
    .select([...COLONNES_DOCUMENT, 'position'])
    .where('housingRequestId', '=', p.id),
);
const TOUCHEE = new Gabarit<{ id: string; at: string }, unknown>('touchee', (db, p) => db.updateTable('housingRequests').set({ updatedAt: p.at }).where('id', '=', p.id));

export class DemandesRepository {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
    /** The clock of the managers' validity filter (AppDeps.now). */
    private readonly now: () => Date = () => new Date(),
  ) {
    this.paires = new PairesFts(db, INDEX_RECHERCHE);
    this.lettres = kind === 'postgres' ? new FrequencesLettres(db, 'housing_requests_search_chars_idx') : null;
    this.pairesCommunes = kind === 'postgres' ? new PartsEchantillon(db, { table: 'housing_requests', colonne: 'search_text' }) : null;
    this.index = kind === 'sqlite' ? IndexFtsDiffere.pour(db, { ...INDEX_RECHERCHE, attente: 'housing_search_pending' }) : null;
  }

  /** SQLite: the search's words of two letters (PairesFts). */
  private readonly paires: PairesFts;
  /** PostgreSQL: how many texts hold each character (migration 0036), to search a rare letter by its index. */
  private readonly lettres: FrequencesLettres | null;
  /** PostgreSQL: how many texts hold a word of two letters, to search a common one by LIKE. */
  private readonly pairesCommunes: PartsEchantillon | null;
  /** SQLite: the trigram index, brought up to date after the writes' transactions (docs/decisions/0024). */
  private readonly index: IndexFtsDiffere | null;

  /** SQLite: the trigram index built again whole, for requests written in bulk (the benches' seeds). */
  async reconstruireRecherche(): Promise<void> {
    await this.index?.reconstruire();
  }

  /** Before a search reads the trigram index: every change written is in it. */
  private async indexAJour(q: ListeFiltre): Promise<void> {
    if (q.q && this.index) await this.index.aJour();
  }

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
  async findComplete(id: string): Promise<VueComplete<DemandeCompleteRow> | undefined> {
    this.lectures ??= lecturesConsultation(this.db);
    return vueComplete(await this.lectures.complete.first(id));
  }

  /** The same in one read by numéro, with the columns that decide access: for a lookup that presents a private key. */
  async findCompleteParNumero(numeroUnique: string): Promise<VueComplete<DemandeCompleteEtAccesRow> | undefined> {
    this.lectures ??= lecturesConsultation(this.db);
    return vueComplete(await this.lectures.completeParNumero.first(numeroUnique));
  }

  /** The request by numéro or by id, locked until the transaction ends on PostgreSQL (SQLite writes one at a time). */
  findForUpdate(numeroUnique: string, id: string, trx: Db): Promise<DemandeRow | undefined> {
    return POUR_MISE_A_JOUR.premier(trx, { numero: numeroUnique, id });
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
    await inserer(trx, 'housingRequests', row);
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
   * `avant`: an undo's dates, those recorded with the change it undoes.
   */
  async setStatut(row: DemandeRow, statut: Statut, at: string, trx: Db, avant?: DatesAvantChangement): Promise<DemandeRow> {
    // An undo puts back the dates the change replaced.
    const clotureeLe = avant ? avant.clotureeLe : !estCloturee(statut) ? null : estCloturee(row.statutDeLaDemande) ? row.clotureeLe : at;
    const radieeLe = avant ? avant.radieeLe : statut === STATUT_RADIEE ? row.radieeLe : null;
    const updated: DemandeRow = { ...row, statutDeLaDemande: statut, updatedAt: at, clotureeLe, radieeLe };
    await NOUVEAU_STATUT.executer(trx, {
      id: row.id,
      statutDeLaDemande: statut,
      statutRang: statutRang(statut),
      updatedAt: at,
      clotureeLe,
      radieeLe,
      searchText: texteDeRecherche(toComplete(updated, [])),
    });
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
    extra: { motif?: string | null; undoUntil?: string | null; avant?: DatesAvantChangement } = {},
  ): Promise<string> {
    const id = randomUUID();
    await inserer(trx, 'statusEvents', {
      id,
      housingRequestId,
      fromStatus: de,
      toStatus: vers,
      actorUserId,
      at,
      motif: extra.motif ?? null,
      undoUntil: extra.undoUntil ?? null,
      avantClotureeLe: extra.avant?.clotureeLe ?? null,
      avantRadieeLe: extra.avant?.radieeLe ?? null,
    });
    return id;
  }

  findEvenement(id: string, trx: Db = this.db): Promise<Selectable<StatusEventTable> | undefined> {
    return trx.selectFrom('statusEvents').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** When the request's latest step (undone ones included) was recorded. */
  async lastEvenementAt(housingRequestId: string, trx: Db = this.db): Promise<string | null> {
    const last = await DERNIER_PAS.premier(trx, { id: housingRequestId });
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

  findDocument(housingRequestId: string, id: string, trx: Db = this.db): Promise<DocumentRow | undefined> {
    return trx.selectFrom('documents').selectAll().where('id', '=', id).where('housingRequestId', '=', housingRequestId).executeTakeFirst();
  }

  private totaux: RequetePreparee<{ fichiers: number | string; octets: number | string }> | undefined;

  /**
   * How many documents a request holds and their total size (the per-request quota, docs/produit.md « Documents »), read
   * before an upload's body: a statement prepared once (db/preparee.ts), as each upload asks.
   */
  async totauxDocuments(housingRequestId: string): Promise<{ fichiers: number; octets: number }> {
    const texte = (p: string) => `select count(*) as fichiers, coalesce(sum(size), 0) as octets from documents where housing_request_id = ${p}`;
    this.totaux ??= new RequetePreparee(this.db, 'qv_totaux_documents', texte('?'), texte('$1'));
    const row = (await this.totaux.first(housingRequestId))!;
    return { fichiers: Number(row.fichiers), octets: Number(row.octets) };
  }

  /**
   * Records uploaded documents and touches the request, in one transaction, after `check` has seen the
   * request's totals: the request's row is locked first (PostgreSQL; SQLite writes one transaction at a
   * time), so two uploads at once cannot both pass the per-request quota. `check` throws to refuse; nothing is then written.
   * Each new document's `position` is given here, under that lock: numbered on from its block's last, so that two uploads
   * to one block at once never share a number. Answers the request's documents once recorded (every one, by block and
   * position), or null when the request was erased meanwhile (nothing written).
   */
  async insertDocumentsChecked(
    housingRequestId: string,
    rows: DocumentRow[],
    at: string,
    check: (totaux: { fichiers: number; octets: number }) => void,
    /** Written first in the same transaction (a message, whose attachments these are). */
    avant?: (trx: Db) => Promise<void>,
  ): Promise<DocumentVueRow[] | null> {
    return this.transaction(async (trx) => {
      // The lock alone (its id, not the row's 34 columns), on a request still there: one erased since the upload read
      // it (its documents deleted, its person's data wiped) gets none. Null then, and nothing is written.
      if (!(await VERROU_DOCUMENTS.premier(trx, { id: housingRequestId }))) return null;
      // What the request holds (the quota allows a few dozen): its totals, each block's last number, and the answer.
      const deja = await DOCUMENTS_ET_POSITIONS.tous(trx, { id: housingRequestId });
      check({ fichiers: deja.length, octets: deja.reduce((n, d) => n + d.size, 0) });
      const derniers = new Map<string, number>();
      for (const d of deja) derniers.set(d.category, Math.max(derniers.get(d.category) ?? 0, d.position));
      for (const r of rows) {
        r.position = (derniers.get(r.category) ?? 0) + 1;
        derniers.set(r.category, r.position);
      }
      await avant?.(trx);
      for (const row of rows) await inserer(trx, 'documents', row);
      await TOUCHEE.executer(trx, { id: housingRequestId, at });
      return [...deja, ...rows].sort((a, b) => (a.category === b.category ? a.position - b.position : a.category < b.category ? -1 : 1));
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
   * `cles` (the query that collects the matches' keys, docs/decisions/0021): the search as `collecte` says, the
   * words of two letters included, by index.
   */
  private filtered<O>(
    query: SelectQueryBuilder<Database, 'housingRequests', O>,
    q: ListeFiltre,
    { walk = false, cles }: { walk?: boolean; cles?: Collecte } = {},
  ): SelectQueryBuilder<Database, 'housingRequests', O> {
    // `+column` keeps SQLite from driving the query by that column's index.
    const col = (name: string) => sql.raw(walk && this.kind === 'sqlite' ? `+${name}` : name);
    const { trigrammes, autres } = cles ? { trigrammes: cles.fts, autres: [] } : this.mots(q);
    let out = query;
    // Withdrawn and erased requests (anonymous tombstones) are in no list, count or export. Their search text
    // is empty, so they have no trigram: a search through the trigram index leaves them out by itself.
    if (!trigrammes) out = out.where('effaceeLe', 'is', null);
    if (q.status) {
      // Sorted by date, a status's requests come in that order from the index of statuses, erasures and dates
      // (migration 0031): SQLite reads the page there rather than walking the dates past every other status (the
      // newest requests are mostly « Demande envoyée »: a walk for « En attente » read them all first). Not with a
      // search: there the walk by dates, checking the search's rowids on the walked entries, cost less (« En attente »
      // + « martin » at 100,000 requests: 8.4 ms, 13.9 ms from the index of statuses).
      const parStatutEtDate = walk && this.kind === 'sqlite' && q.sort === 'dateDEnregistrement' && !trigrammes;
      out = out.where(sql<boolean>`${parStatutEtDate ? sql.raw('statut_de_la_demande') : col('statut_de_la_demande')} = ${q.status}`);
      // The same filter on the rank: sorted by status, the rank's index gives the page directly.
      if (q.sort === 'statutDeLaDemande' && !cles) out = out.where('statutRang', '=', statutRang(q.status as Statut));
    }
    if (q.suivi === 'moi') out = out.where(sql<boolean>`${col('suivie_par')} = ${q.suiviePar ?? ''}`);
    if (q.onglet) out = out.where(sql<boolean>`${col('statut_de_la_demande')} in (${sql.join(ONGLETS[q.onglet].statuts)})`);
    if (q.correction) out = out.where(sql<boolean>`${col('correction')} = ${q.correction}`);
    if (q.etiquette) {
      const porteurs = sql`select housing_request_id from demande_etiquettes where etiquette_id = ${q.etiquette}`;
      // PostgreSQL: the request's own label ids (migration 0027), whose GIN index gives the label's requests as a
      // bitmap of pages, combined with the search's. SQLite, a walk with a search: the label's requests as rowids,
      // read from the primary key's index alone, so that the walked index entries are checked against both sets by
      // rowid, without reading their rows. Otherwise by id: collecting keys, SQLite reads the label's ids in the
      // primary key's index, which holds their rowids, and checks them against the search's rowids there (at
      // 100,000, label + "martin" 13 -> 5 ms).
      out =
        this.kind === 'postgres'
          ? out.where(sql<boolean>`etiquette_ids @> array[${q.etiquette}]::text[]`)
          : walk && trigrammes
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
    for (const word of autres) out = out.where(motLike(word));
    for (const condition of cles?.conditions ?? []) out = out.where(condition);
    return out;
  }

  /** The search's words: on SQLite, those of 3 letters or more as one FTS5 query (every word), the others for LIKE. */
  private mots(q: ListeFiltre): { trigrammes: string | null; autres: string[] } {
    const words = q.q ? foldWords(q.q) : [];
    if (this.kind !== 'sqlite') return { trigrammes: null, autres: words };
    const longs = words.filter((w) => [...w].length >= 3);
    return {
      trigrammes: longs.length > 0 ? longs.map(motFts).join(' AND ') : null,
      autres: words.filter((w) => [...w].length < 3),
    };
  }

  /**
   * The search as the query that collects the matches' keys writes it (docs/decisions/0021): every word by an
   * index, the words of one and two letters included; a letter that many texts hold stays LIKE (the scan meets its
   * matches early).
   * SQLite: a word of two letters is in the trigrams that start with it ("zq?": FTS5's vocabulary lists them),
   * except at the very end of a text (migration 0026's index of the last two characters). When no text ends with
   * it, the word joins the FTS5 query as the OR of those trigrams; when some do, it is that OR or that ending,
   * or LIKE when the word is common (its trigrams in more than PAIRE_FREQUENTE rows: LIKE finds 1,001 of them
   * by reading a few thousand rows, while the OR would be read whole). No trigram and no ending: nothing matches.
   * A letter likewise (PairesFts.lettre: the texts ending with it, migration 0038), unless one text in five holds it.
   * PostgreSQL: migration 0026's index of the texts' pairs of characters, 0036's of their characters.
   */
  private async collecte(q: ListeFiltre): Promise<Collecte> {
    const words = q.q ? foldWords(q.q) : [];
    const like = (w: string) => sql<boolean>`search_text like ${`%${echapperLike(w)}%`} escape '\\'`;
    const length = (w: string) => [...w].length;
    if (this.kind !== 'sqlite') {
      // The pairs and the rare letters only when no longer word narrows the rows: in one bitmap with pg_trgm's (which
      // PostgreSQL rechecks on each row), `search_bigrams` would be computed again for every candidate row (~0.1 ms
      // each), and `search_chars` likewise. A common letter or pair stays LIKE: it meets its matches within the first rows.
      const courts = words.some((w) => length(w) >= 3) ? [] : words;
      const paires: string[] = [];
      const lettres: string[] = [];
      for (const w of courts) {
        if (length(w) === 2 && !(await this.pairesCommunes?.commun(w))) paires.push(w);
        else if (length(w) === 1 && (await this.lettres?.rare(w))) lettres.push(w);
      }
      return {
        fts: null,
        conditions: [
          ...(paires.length > 0 ? [sql<boolean>`search_bigrams(search_text) @> ${sql`array[${sql.join(paires)}]::text[]`}`] : []),
          ...(lettres.length > 0 ? [sql<boolean>`search_chars(search_text) @> ${sql`array[${sql.join(lettres)}]::text[]`}`] : []),
          ...words.filter((w) => !paires.includes(w) && !lettres.includes(w)).map(motLike),
        ],
        vide: false,
      };
    }
    const groupes = words.filter((w) => length(w) >= 3).map(motFts);
    const conditions: RawBuilder<boolean>[] = [];
    for (const w of words.filter((m) => length(m) < 3)) {
      const ecrit = this.paires.ecrire(w, await (length(w) === 1 ? this.paires.lettre(w) : this.paires.paire(w)), like);
      if (!ecrit) return { fts: null, conditions: [], vide: true };
      if ('groupe' in ecrit) groupes.push(ecrit.groupe);
      else conditions.push(ecrit.condition);
    }
    return { fts: groupes.length > 0 ? groupes.join(' AND ') : null, conditions, vide: false };
  }

  /** The whole list's total (docs/decisions/0013): every request but the erased ones, exact, without reading rows. */
  private async totalSansFiltre(): Promise<number> {
    const { rows } =
      this.kind === 'postgres'
        ? await sql<{ n: number | string }>`select n from housing_requests_total where id = 1`.execute(this.db)
        : await sql<{ n: number | string }>`select (select count(*) from housing_requests)
            - (select count(*) from housing_requests where effacee_le is not null) as n`.execute(this.db);
    return Number(rows[0]!.n);
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

  /** The list's rows, with their labels' ids on PostgreSQL (ETIQUETTES_EN_LIGNE). */
  private lignes() {
    return this.db
      .selectFrom('housingRequests')
      .select([...COLONNES_LIGNE])
      .$if(this.kind === 'postgres', (qb) => qb.select(ETIQUETTES_EN_LIGNE));
  }

  /**
   * One page of the managers' list and its total, exact or bounded (docs/decisions 0009, 0013, 0021).
   * The whole list: its exact total without reading rows, the page from the sort column's index (deep pages from
   * the other end). A search or a filter: the keys of up to TOTAL_BORNE + 1 matches are collected first, every
   * word and filter by its index. Up to TOTAL_BORNE, the total is exact and the page is read among those rows by
   * key, the search not evaluated again (SQLite: their rowids; PostgreSQL: the same statement, the matches
   * materialised, counted and sorted). Past it, the total is TOTAL_BORNE and the page walks the sort index. A label
   * alone is first counted in its own index: past the bound, the page walks at once.
   */
  async page(q: ListeFiltre): Promise<ListeDemandes> {
    await this.indexAJour(q);
    const offset = (q.page - 1) * q.pageSize;
    const column = SORT_COLUMN[q.sort];
    let rows: LignePage[];
    let total: number;
    let exact = true;
    if (!q.q && !avecFiltre(q)) {
      total = await this.totalSansFiltre();
      if (offset >= total) return { data: [], total, totalExact: true };
      // Deep pages are read from the other end: OFFSET 99,990 would walk the whole index.
      const fromEnd = offset > total / 2;
      const order = fromEnd ? (q.order === 'asc' ? 'desc' : 'asc') : q.order;
      const limit = fromEnd ? Math.min(q.pageSize, total - offset) : q.pageSize;
      rows = (await this.lignes()
        .where('effaceeLe', 'is', null)
        .orderBy(column, order)
        .orderBy('id', order)
        .limit(limit)
        .offset(fromEnd ? total - offset - limit : offset)
        .execute()) as LignePage[];
      if (fromEnd) rows.reverse();
    } else {
      const cles = await this.collecte(q);
      if (cles.vide) return { data: [], total: 0, totalExact: true };
      const peu =
        q.etiquette && !q.q && !avecFiltre({ ...q, etiquette: '' }) && (await this.etiquetteAuDelaDeLaBorne(q.etiquette))
          ? null
          : this.kind === 'sqlite'
            ? await this.peuSqlite(q, cles, offset)
            : await this.peuPostgres(q, cles, offset);
      const toutes = peu && 'echantillon' in peu ? await this.toutesSiMoinsCher(q, cles, offset, peu.echantillon) : null;
      if (toutes) {
        rows = toutes;
        total = TOTAL_BORNE;
        exact = false;
      } else if (peu && 'rows' in peu) {
        rows = peu.rows;
        exact = peu.exact;
        total = exact ? peu.total : TOTAL_BORNE;
      } else {
        // More than TOTAL_BORNE matches: walk the sort index and stop at the page. The search checked on the walked
        // index entries by rowid, without reading their rows (a LIKE on each row would read every row before the
        // first match, all the names before « M » for « martin » sorted by name); its words of 1-2 letters by LIKE
        // on the rows walked (they match many rows: the page comes soon).
        total = TOTAL_BORNE;
        exact = false;
        rows = (await this.filtered(this.lignes(), q, { walk: true })
          .orderBy(column, q.order)
          .orderBy('id', q.order)
          .limit(q.pageSize)
          .offset(offset)
          .execute()) as LignePage[];
      }
    }
    // The page's labels: on PostgreSQL read with the rows; on SQLite by the primary key of their table.
    if (this.kind === 'postgres') return { data: rows.map((r) => ({ ...r, etiquettes: r.etiquettes! })), total, totalExact: exact };
    const poses =
      rows.length === 0
        ? []
        : await this.db.selectFrom('demandeEtiquettes').select(['housingRequestId', 'etiquetteId']).where('housingRequestId', 'in', rows.map((r) => r.id)).execute();
    const data = rows.map((r) => ({ ...r, etiquettes: poses.filter((p) => p.housingRequestId === r.id).map((p) => p.etiquetteId) }));
    return { data, total, totalExact: exact };
  }

  /**
   * A label alone: whether more than TOTAL_BORNE requests not erased carry it, counted in the labels' own index less
   * the erased requests that carry it (from their partial index: a few), without reading the requests' rows (on
   * PostgreSQL, 1,001 lookups of a request by id cost 5-7 ms). False also when the index alone cannot tell.
   * `cross join`: SQLite then starts from the erased requests (a few), not from every request the label holds.
   */
  private async etiquetteAuDelaDeLaBorne(etiquette: string): Promise<boolean> {
    const { rows } = await sql<{ poses: number | string; effacees: number | string }>`select
      (select count(*) from (select 1 from demande_etiquettes where etiquette_id = ${etiquette} limit ${2 * TOTAL_BORNE + 1}) as p) as poses,
      (select count(*) from housing_requests as h cross join demande_etiquettes as d
        where h.effacee_le is not null and d.housing_request_id = h.id and d.etiquette_id = ${etiquette}) as effacees`.execute(this.db);
    return Number(rows[0]!.poses) - Number(rows[0]!.effacees) > TOTAL_BORNE;
  }

  /**
   * SQLite: the rowids of up to TOTAL_BORNE + 1 matches (a search alone: from the trigram index alone); at most
   * TOTAL_BORNE, the page among those rows, by rowid. Null past the bound.
   */
  private async peuSqlite(q: ListeFiltre, cles: Collecte, offset: number): Promise<PageParmi | null> {
    const source =
      cles.fts && cles.conditions.length === 0 && !avecFiltre(q)
        ? sql`select rowid as k from housing_search where housing_search match ${cles.fts} limit ${TOTAL_BORNE + 1}`
        : this.filtered(this.db.selectFrom('housingRequests').select(sql<number>`rowid`.as('k')), q, { cles }).limit(TOTAL_BORNE + 1);
    // Counted and gathered in SQLite, as one JSON array that the page's statement reads back as is: 1,001 keys as
    // as many row objects cost ~0.9 ms to build (then to camel-case and to serialise again), their count ~0.1 ms.
    const { n, keys } = (await sql<{ n: number; keys: string }>`select count(*) as n, json_group_array(k) as keys from (${source}) as m`.execute(this.db))
      .rows[0]!;
    if (n > TOTAL_BORNE) return null;
    if (offset >= n) return { rows: [], total: n, exact: true };
    // The page's rowids first, the list's columns then for those rows only: sorting the matches with their
    // fourteen columns cost three times as much (785 matches: 3.3 -> 1.2 ms, decision 0021). `+column`: SQLite reads these rows by
    // rowid and sorts them, never walks the sort index for them.
    const tri = sql`+${sql.ref(SORT_COLUMN[q.sort])}`;
    const page = this.db
      .selectFrom('housingRequests')
      .select(sql<number>`rowid`.as('k'))
      .where(sql<boolean>`rowid in (select value from json_each(${keys}))`)
      .orderBy(tri, q.order)
      .orderBy('id', q.order)
      .limit(q.pageSize)
      .offset(offset);
    const rows = (await this.db
      .selectFrom('housingRequests')
      .select([...COLONNES_LIGNE])
      .where(sql<boolean>`rowid in (${page})`)
      .orderBy(tri, q.order)
      .orderBy('id', q.order)
      .execute()) as LigneSansEtiquettes[];
    return { rows, total: n, exact: true };
  }

  /**
   * PostgreSQL: one statement reads up to TOTAL_BORNE + 1 matches (materialised, so that the planner cannot walk
   * the sort index through rows that do not match), counts them and, at most TOTAL_BORNE, sorts them and answers
   * the page. Past the bound: sorted by a column of the search text (TRIS_DU_TEXTE), what those matches tell
   * (Echantillon), else null (the walk); the validity filters' page comes from all their matches.
   */
  private async peuPostgres(q: ListeFiltre, cles: Collecte, offset: number): Promise<PageParmi | { echantillon: Echantillon } | null> {
    const column = SORT_COLUMN[q.sort];
    const toutes = q.expiration === 'bientot' || q.expiration === 'expiree';
    // The sample is read for the sorts toutesSiMoinsCher may serve only (it costs 1-3 ms).
    const echantillonner = !toutes && TRIS_DU_TEXTE.has(q.sort);
    const colonnes = ((COLONNES_LIGNE as readonly string[]).includes(column) ? [...COLONNES_LIGNE] : [...COLONNES_LIGNE, column]) as typeof COLONNES_LIGNE;
    const matches = this.filtered(
      this.db
        .selectFrom('housingRequests')
        .select(echantillonner ? [...colonnes, sql<string>`ctid`.as('ctid')] : colonnes)
        .select(ETIQUETTES_EN_LIGNE),
      q,
      { cles },
    );
    const order = sql.raw(q.order);
    // `m` without LIMIT: planned to read every match (by the indexes of selective filters, not by a sequential
    // scan that expects to meet TOTAL_BORNE matches soon), read only as far as the count asks; past the bound the
    // page is not sorted (`c.n <= …`, checked once before `m` is read again).
    // The validity filters keep every match for the page: their partial index gives them all (those that end
    // within a month, or ended within the month before the striking off), and walking the list's order to them
    // would read most rows first (validities follow registration dates).
    // Past the bound, the sample (`e`, `k`): the first and last blocks of the table its rows were read from, the table's
    // size in blocks, and the page's last sort key among them.
    const premieres = sql`(select * from m limit ${TOTAL_BORNE + 1}) as s`;
    const echantillon = echantillonner
      ? sql`left join lateral (select min((ctid::text::point)[0]) as premier, max((ctid::text::point)[0]) as bloc,
            (select relpages from pg_class where oid = 'housing_requests'::regclass) as blocs
          from ${premieres} where c.n > ${TOTAL_BORNE}) as e on true
        left join lateral (select ${sql.ref(column)} as kv, id as kid from ${premieres} where c.n > ${TOTAL_BORNE}
          order by ${sql.ref(column)} ${order}, id ${order} limit 1 offset ${offset + q.pageSize - 1}) as k on true`
      : sql``;
    const { rows } = await sql<LignePage & { n: number | string; premier?: number | null; bloc?: number | null; blocs?: number | null; kv?: unknown; kid?: string | null }>`with m as materialized (${matches})
      select c.n, ${echantillonner ? sql`e.premier, e.bloc, e.blocs, k.kv, k.kid,` : sql``} ${sql.join([...COLONNES_LIGNE, 'etiquettes'].map((c) => sql.ref(`p.${c}`)))}
      from (select count(*) as n from (select 1 from m ${toutes ? sql`` : sql`limit ${TOTAL_BORNE + 1}`}) as x) as c
      left join lateral (select * from m ${toutes ? sql`` : sql`where c.n <= ${TOTAL_BORNE}`}
        order by ${sql.ref(column)} ${order}, id ${order} limit ${q.pageSize} offset ${offset}) as p on true
      ${echantillon}`.execute(this.db);
    const first = rows[0]!;
    const total = Number(first.n);
    if (total > TOTAL_BORNE && !toutes) {
      if (!echantillonner) return null;
      // Blocks premier..bloc held TOTAL_BORNE + 1 matches: as many in each part of the table (relpages: as of the last
      // VACUUM or ANALYZE; never less than the blocks seen; 0 before the first: no estimate, the walk is kept). A
      // sequential scan may start mid-table and wrap around (synchronised scans): the span is then most of the table,
      // the estimate large, and the walk is kept.
      const vus = Number(first.bloc ?? 0) - Number(first.premier ?? 0) + 1;
      const blocs = Number(first.blocs ?? 0);
      const estimation = blocs > 0 ? Math.round(((TOTAL_BORNE + 1) * Math.max(blocs, vus)) / vus) : Number.POSITIVE_INFINITY;
      return { echantillon: { estimation, borne: first.kid == null || first.kv == null ? null : { valeur: first.kv, id: first.kid } } };
    }
    return {
      rows: rows.filter((r) => r.id !== null).map(({ n: _n, premier: _p, bloc: _b, blocs: _bs, kv: _kv, kid: _kid, ...r }) => r),
      total,
      exact: total <= TOTAL_BORNE,
    };
  }

  /**
   * PostgreSQL, more than TOTAL_BORNE matches: the page read among all of them (each match read, then sorted) when
   * that reads fewer rows than walking the sort index would, else null (the walk). The walk reads every row before
   * the page's last, matching or not: few when the matches are spread along the sort order, but most of the table
   * when the search is on that very column (« martin » sorted by name: every name before « M », 103 ms at 100,000
   * against 25 for its 7,911 matches). The walk's rows are at most those up to the sample's page key (the planner's
   * estimate, from its statistics), the matches as the sample estimates them; a match read costs about twice a row
   * walked (measured: 3.4 and 1.8 µs). Only for the sorts on what the search text holds and the registration order
   * does not (names, e-mail): the sample comes in the table's physical order, which is the order of registration,
   * so its page key on a date is far from the true one, and a search is not on a date.
   */
  private async toutesSiMoinsCher(q: ListeFiltre, cles: Collecte, offset: number, { estimation, borne }: Echantillon): Promise<LignePage[] | null> {
    if (!borne) return null;
    const column = SORT_COLUMN[q.sort];
    const { rows: plan } = await sql<Record<string, unknown>>`explain (format json) select 1 from housing_requests
      where (${sql.ref(column)}, id) ${sql.raw(q.order === 'asc' ? '<=' : '>=')} (${borne.valeur}, ${borne.id})`.execute(this.db);
    const parcours = Number((Object.values(plan[0] ?? {})[0] as [{ Plan?: { 'Plan Rows'?: number } }] | undefined)?.[0]?.Plan?.['Plan Rows']);
    if (!(2 * estimation < parcours)) return null;
    // The matches' ids and sort keys only (materialised: read once, by the search's indexes), then the page's rows.
    // Only those up to the sample's page key: the sample is some of the matches, so the page's rows, the first of all
    // the matches, sort at or before its key. On the key's column alone too, which the planner can read from the sort
    // index as a bitmap and intersect with the search's: only the rows in both are read and checked (« martin » by
    // name at 100,000: 451 of its 7,911 matches' pages, 24 → 15 ms).
    const order = sql.raw(q.order);
    const jusqua = sql.raw(q.order === 'asc' ? '<=' : '>=');
    const matches = this.filtered(this.db.selectFrom('housingRequests').select(['id', column]), q, { cles })
      .where(sql<boolean>`${sql.ref(column)} ${jusqua} ${borne.valeur}`)
      .where(sql<boolean>`(${sql.ref(column)}, id) ${jusqua} (${borne.valeur}, ${borne.id})`);
    const { rows } = await sql<LignePage>`with m as materialized (${matches}),
      p as (select id from m order by ${sql.ref(column)} ${order}, id ${order} limit ${q.pageSize} offset ${offset})
      select ${sql.join(COLONNES_LIGNE.map((c) => sql.ref(`h.${c}`)))}, h.etiquette_ids as etiquettes from housing_requests as h join p on p.id = h.id
      order by ${sql.ref(`h.${column}`)} ${order}, h.id ${order}`.execute(this.db);
    return rows;
  }

  /** Every matching request, in the list's order, read from the database in batches. */
  async *stream(q: ListeFiltre): AsyncIterableIterator<DemandeRow> {
    await this.indexAJour(q);
    const ordre = <O>(query: SelectQueryBuilder<Database, 'housingRequests', O>) =>
      this.filtered(query, q).orderBy(SORT_COLUMN[q.sort], q.order).orderBy('id', q.order);
    if (this.kind !== 'sqlite') {
      // A cursor on one of the pool's connections: the others serve the app meanwhile.
      yield* ordre(this.db.selectFrom('housingRequests').selectAll()).stream(STREAM_LOT);
      return;
    }
    // SQLite has one connection: a cursor would hold it while the download goes at its client's pace (a slow
    // one stopped every other request). The ids in order first (a few MB at 100,000), then the rows by batches,
    // each a short read; a request erased or withdrawn meanwhile is left out.
    const ids = (await ordre(this.db.selectFrom('housingRequests').select('id')).execute()).map((r) => r.id);
    for (let i = 0; i < ids.length; i += STREAM_LOT) {
      const lot = ids.slice(i, i + STREAM_LOT);
      const rows = await this.db.selectFrom('housingRequests').selectAll().where('id', 'in', lot).where('effaceeLe', 'is', null).execute();
      const parId = new Map(rows.map((r) => [r.id, r]));
      for (const id of lot) {
        const row = parId.get(id);
        if (row) yield row;
      }
    }
  }

  /**
   * Withdrawal and erasure (effacement.ts): the request becomes an anonymous tombstone. Every personal field
   * is blanked, the numéro (itself personal) becomes a value that names no one and frees the real one, the
   * access key hash is random (no key opens it), the owner link goes; the history stays.
   */
  async anonymiser(id: string, statut: string, at: string, trx: Db): Promise<void> {
    // The link with the account goes: the owner's own steps (a reactivation, the withdrawal) keep no account id.
    await trx
      .updateTable('statusEvents')
      .set({ actorUserId: null })
      .where('housingRequestId', '=', id)
      .where('actorUserId', '=', (eb) => eb.selectFrom('housingRequests').select('ownerUserId').where('id', '=', id))
      .execute();
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
   * The e-mails about the request leave the outbox, all of them: those waiting are withdrawn, those sent lose their
   * trace (address and subject). A mail being delivered at this very instant cannot be called back, but its row is
   * gone: a failure does not queue it again, and nothing of it stays (the delivery loop's updates find no row).
   */
  async withdrawMails(housingRequestId: string, trx: Db): Promise<void> {
    await trx.deleteFrom('mailOutbox').where('housingRequestId', '=', housingRequestId).execute();
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
