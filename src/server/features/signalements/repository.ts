import { sql } from 'kysely';
import { boiteAutour, distanceM, type Coordonnees } from '../../../domain/geometrie.js';
import {
  estOuvert,
  rangEtat,
  texteDeRechercheSignalement,
  TOTAL_SIGNALEMENTS_BORNE,
  type EtatSignalement,
  type ListeSignalementsQuery,
} from '../../../domain/signalements.js';
import type { Db, DbKind } from '../../db/index.js';
import type {
  SignalementAlerteRow,
  SignalementCategorieRow,
  SignalementMiseAJourRow,
  SignalementPhotoRow,
  SignalementRow,
  SignalementSuiveurRow,
} from '../../db/schema.js';

/** The columns of a report's summary (the public list, the map, the nearby search). */
const COLONNES_RESUME = ['id', 'numero', 'categorie', 'titre', 'titreMasque', 'lat', 'lon', 'adresse', 'etat', 'ouvert', 'creeLe', 'misAJourLe'] as const;
export type ResumeRow = Pick<SignalementRow, (typeof COLONNES_RESUME)[number]>;

/**
 * A new report as the service makes it: the repository adds what derives from it (search text, state rank, moderation
 * mark); `open311CleId` only for a report posted through Open311 (null when left out).
 */
export type NouveauSignalementRow = Omit<SignalementRow, 'recherche' | 'etatRang' | 'contenuMasque' | 'open311CleId'> & { open311CleId?: string | null };

/** The public list's filters and page (`depuis` counts back from the time the list is asked). */
export type FiltreListe = Pick<ListeSignalementsQuery, 'categorie' | 'etat' | 'depuis' | 'page' | 'parPage'>;

/** A follower or an alert found by the hash of its link's token. */
export type Abonnement = { quoi: 'suivi'; id: string; numero: string; signalementId: string } | { quoi: 'alerte'; id: string; confirmeLe: string | null };

/**
 * Every SQL statement on technical reports (migration 0019): categories, reports and their numbering,
 * photos, public updates, followers and the district's alerts. Each method takes an optional transaction
 * (`trx`) so that a service can put several in one. Booleans are stored 0/1.
 */
export class SignalementsRepository {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
  ) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  // --- Categories ---------------------------------------------------------------------------------

  /** Every category in the form's order (`actives`: only those residents may choose). */
  categories(options: { actives?: boolean } = {}, trx: Db = this.db): Promise<SignalementCategorieRow[]> {
    let query = trx.selectFrom('signalementCategories').selectAll();
    if (options.actives) query = query.where('active', '=', 1);
    return query.orderBy('rang').orderBy('code').execute();
  }

  categorie(code: string, trx: Db = this.db): Promise<SignalementCategorieRow | undefined> {
    return trx.selectFrom('signalementCategories').selectAll().where('code', '=', code).executeTakeFirst();
  }

  /**
   * The category, read in a report's transaction and kept from change until it ends (PostgreSQL: FOR SHARE, so an
   * admin's deletion, which locks the categories FOR UPDATE, waits for the report, then sees it and refuses; or the
   * report waits for the deletion, then finds no category). SQLite runs one transaction at a time.
   */
  categoriePartagee(code: string, trx: Db): Promise<SignalementCategorieRow | undefined> {
    const query = trx.selectFrom('signalementCategories').selectAll().where('code', '=', code);
    return (this.kind === 'postgres' ? query.forShare() : query).executeTakeFirst();
  }

  // --- Reports ------------------------------------------------------------------------------------

  /**
   * The next rank of `annee`, inside the caller's transaction: one atomic upsert. On PostgreSQL a concurrent
   * creation waits on the counter's row until this transaction ends, then counts from its value; SQLite runs
   * one write transaction at a time. A rolled-back creation gives its rank back.
   */
  async allouerRang(annee: number, trx: Db): Promise<number> {
    const row = await trx
      .insertInto('signalementCompteurs')
      .values({ annee, dernier: 1 })
      .onConflict((oc) => oc.column('annee').doUpdateSet({ dernier: sql<number>`signalement_compteurs.dernier + 1` }))
      .returning('dernier')
      .executeTakeFirstOrThrow();
    return Number(row.dernier);
  }

  /** Inserts a new report with its managers' search text and its state's rank (migration 0020). */
  async inserer(nouveau: NouveauSignalementRow, trx: Db): Promise<SignalementRow> {
    const row: SignalementRow = {
      ...nouveau,
      open311CleId: nouveau.open311CleId ?? null,
      recherche: texteDeRechercheSignalement(nouveau),
      etatRang: rangEtat(nouveau.etat as EtatSignalement),
      contenuMasque: 0,
    };
    await trx.insertInto('signalements').values(row).execute();
    return row;
  }

  parNumero(numero: string, trx: Db = this.db): Promise<SignalementRow | undefined> {
    return trx.selectFrom('signalements').selectAll().where('numero', '=', numero).executeTakeFirst();
  }

  parId(id: string, trx: Db = this.db): Promise<SignalementRow | undefined> {
    return trx.selectFrom('signalements').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The report, locked until the transaction ends on PostgreSQL (SQLite writes one transaction at a time). */
  pourModification(id: string, trx: Db): Promise<SignalementRow | undefined> {
    let query = trx.selectFrom('signalements').selectAll().where('id', '=', id);
    if (this.kind === 'postgres') query = query.forUpdate();
    return query.executeTakeFirst();
  }

  /** Sets the state (whether it is open, its rank), the original of a duplicate, and the last change's time. */
  async changerEtat(id: string, etat: EtatSignalement, le: string, trx: Db, doublonDe: string | null = null): Promise<void> {
    await trx
      .updateTable('signalements')
      .set({ etat, ouvert: estOuvert(etat) ? 1 : 0, etatRang: rangEtat(etat), doublonDe: etat === 'doublon' ? doublonDe : null, misAJourLe: le })
      .where('id', '=', id)
      .execute();
  }

  /** Records that something public changed (a text, a photo) without a change of state. */
  async toucher(id: string, le: string, trx: Db): Promise<void> {
    await trx.updateTable('signalements').set({ misAJourLe: le }).where('id', '=', id).execute();
  }

  /** Moderation (for managers): withdraws or restores the title or the description from the public view. */
  async moderer(id: string, masquer: { titre?: boolean; description?: boolean }, trx: Db = this.db): Promise<void> {
    const set: { titreMasque?: number; descriptionMasquee?: number } = {};
    if (masquer.titre !== undefined) set.titreMasque = masquer.titre ? 1 : 0;
    if (masquer.description !== undefined) set.descriptionMasquee = masquer.description ? 1 : 0;
    if (Object.keys(set).length > 0) await trx.updateTable('signalements').set(set).where('id', '=', id).execute();
    await this.recalculerMasque(id, trx);
  }

  /**
   * Sets `contenu_masque` (the managers' « contenu masqué » filter) from what is hidden now: the title, the
   * description, a photo or an update. Every moderation setter ends with it.
   */
  async recalculerMasque(id: string, trx: Db = this.db): Promise<void> {
    const masque = sql<number>`case when titre_masque = 1 or description_masquee = 1
      or exists (select 1 from signalement_photos p where p.signalement_id = signalements.id and p.masquee = 1)
      or exists (select 1 from signalement_mises_a_jour m where m.signalement_id = signalements.id and m.masquee = 1) then 1 else 0 end`;
    await trx.updateTable('signalements').set({ contenuMasque: masque }).where('id', '=', id).execute();
  }

  /** The reports marked duplicates of `depuisId` become duplicates of `versId` (a duplicate's original is never one itself). */
  async reporterDoublons(depuisId: string, versId: string, trx: Db): Promise<void> {
    await trx.updateTable('signalements').set({ doublonDe: versId }).where('doublonDe', '=', depuisId).execute();
  }

  /**
   * Open reports within `rayonM` metres of a point, nearest first: the (lat, lon) index finds the box around
   * the point, then the exact distance (haversine) keeps those inside the circle. The state is checked here
   * rather than in SQL, so that no database prefers the state's index to the position's.
   */
  async proches(point: Coordonnees, rayonM: number, limite: number, trx: Db = this.db): Promise<(ResumeRow & { distanceM: number })[]> {
    const b = boiteAutour(point, rayonM);
    const rows = await trx
      .selectFrom('signalements')
      .select(COLONNES_RESUME)
      .where('lat', '>=', b.latMin)
      .where('lat', '<=', b.latMax)
      .where('lon', '>=', b.lonMin)
      .where('lon', '<=', b.lonMax)
      .execute();
    return rows
      .filter((r) => Number(r.ouvert) === 1)
      .map((r) => ({ ...r, distanceM: distanceM(point, r) }))
      .filter((r) => r.distanceM <= rayonM)
      .sort((a, b) => a.distanceM - b.distanceM || (a.creeLe < b.creeLe ? 1 : -1))
      .slice(0, limite);
  }

  /** The public list's filters, each served by an index of its equality filters then (`cree_le`, `id`) (migration 0019). */
  private filtre(filtre: FiltreListe, now: Date) {
    let query = this.db.selectFrom('signalements');
    if (filtre.categorie) query = query.where('categorie', '=', filtre.categorie);
    if (filtre.etat === 'ouverts') query = query.where('ouvert', '=', 1);
    else if (filtre.etat === 'fermes') query = query.where('ouvert', '=', 0);
    else if (filtre.etat) query = query.where('etat', '=', filtre.etat);
    if (filtre.depuis !== undefined) query = query.where('creeLe', '>=', new Date(now.getTime() - filtre.depuis * 86_400_000).toISOString());
    return query;
  }

  /**
   * One page of the public list, newest first, and the number of matches, counted up to
   * TOTAL_SIGNALEMENTS_BORNE only (past it `exact` is false). A page past the bound is empty.
   */
  async page(filtre: FiltreListe, now: Date): Promise<{ rows: ResumeRow[]; total: number; exact: boolean }> {
    const offset = (filtre.page - 1) * filtre.parPage;
    const base = this.filtre(filtre, now);
    const compte = await this.db
      .selectFrom(base.select(sql<number>`1`.as('un')).limit(TOTAL_SIGNALEMENTS_BORNE + 1).as('m'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    const n = Number(compte.n);
    const total = Math.min(n, TOTAL_SIGNALEMENTS_BORNE);
    // The page's ids from the index alone (an offset skips index entries, not rows), then their rows by key.
    const ids = base.select('id').orderBy('creeLe', 'desc').orderBy('id', 'desc').limit(filtre.parPage).offset(offset);
    const rows =
      offset >= total ? [] : await this.db.selectFrom('signalements').select(COLONNES_RESUME).where('id', 'in', ids).orderBy('creeLe', 'desc').orderBy('id', 'desc').execute();
    return { rows, total, exact: n <= TOTAL_SIGNALEMENTS_BORNE };
  }

  /** The reports made by a signed-in account, newest first (« Mes signalements »). */
  parCompte(ownerUserId: string, trx: Db = this.db): Promise<ResumeRow[]> {
    return trx.selectFrom('signalements').select(COLONNES_RESUME).where('ownerUserId', '=', ownerUserId).orderBy('creeLe', 'desc').limit(200).execute();
  }

  // --- Photos -------------------------------------------------------------------------------------

  /** A report's photos in upload order (`avecMasquees`: the hidden ones too, for managers). */
  photos(signalementId: string, options: { avecMasquees?: boolean } = {}, trx: Db = this.db): Promise<SignalementPhotoRow[]> {
    let query = trx.selectFrom('signalementPhotos').selectAll().where('signalementId', '=', signalementId);
    if (!options.avecMasquees) query = query.where('masquee', '=', 0);
    return query.orderBy('creeLe').orderBy('id').execute();
  }

  photo(signalementId: string, id: string, trx: Db = this.db): Promise<SignalementPhotoRow | undefined> {
    return trx.selectFrom('signalementPhotos').selectAll().where('signalementId', '=', signalementId).where('id', '=', id).executeTakeFirst();
  }

  /** Every photo counts towards PHOTOS_MAX, hidden ones too. */
  async compterPhotos(signalementId: string, trx: Db = this.db): Promise<number> {
    const row = await trx
      .selectFrom('signalementPhotos')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('signalementId', '=', signalementId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async ajouterPhoto(row: SignalementPhotoRow, trx: Db): Promise<void> {
    await trx.insertInto('signalementPhotos').values(row).execute();
  }

  async masquerPhoto(signalementId: string, id: string, masquee: boolean, trx: Db = this.db): Promise<boolean> {
    const result = await trx.updateTable('signalementPhotos').set({ masquee: masquee ? 1 : 0 }).where('signalementId', '=', signalementId).where('id', '=', id).executeTakeFirst();
    await this.recalculerMasque(signalementId, trx);
    return Number(result.numUpdatedRows) > 0;
  }

  /** Whether a stored key is a photo's (the sweep of leftovers). */
  async estClePhoto(storageKey: string): Promise<boolean> {
    return (await this.db.selectFrom('signalementPhotos').select('id').where('storageKey', '=', storageKey).executeTakeFirst()) !== undefined;
  }

  // --- Public updates -----------------------------------------------------------------------------

  misesAJour(signalementId: string, options: { avecMasquees?: boolean } = {}, trx: Db = this.db): Promise<SignalementMiseAJourRow[]> {
    let query = trx.selectFrom('signalementMisesAJour').selectAll().where('signalementId', '=', signalementId);
    if (!options.avecMasquees) query = query.where('masquee', '=', 0);
    return query.orderBy('le').orderBy('id').execute();
  }

  async ajouterMiseAJour(row: SignalementMiseAJourRow, trx: Db): Promise<void> {
    await trx.insertInto('signalementMisesAJour').values(row).execute();
  }

  /** The latest update's time (updates of one report are strictly ordered in time). */
  async derniereMiseAJour(signalementId: string, trx: Db): Promise<string | null> {
    const row = await trx.selectFrom('signalementMisesAJour').select('le').where('signalementId', '=', signalementId).orderBy('le', 'desc').limit(1).executeTakeFirst();
    return row?.le ?? null;
  }

  async masquerMiseAJour(signalementId: string, id: string, masquee: boolean, trx: Db = this.db): Promise<boolean> {
    const result = await trx.updateTable('signalementMisesAJour').set({ masquee: masquee ? 1 : 0 }).where('signalementId', '=', signalementId).where('id', '=', id).executeTakeFirst();
    await this.recalculerMasque(signalementId, trx);
    return Number(result.numUpdatedRows) > 0;
  }

  // --- Followers ----------------------------------------------------------------------------------

  /** Adds a follower; false when this address already follows the report (nothing changes then). */
  async ajouterSuiveur(row: SignalementSuiveurRow, trx: Db = this.db): Promise<boolean> {
    const inserted = await trx
      .insertInto('signalementSuiveurs')
      .values(row)
      .onConflict((oc) => oc.columns(['signalementId', 'email']).doNothing())
      .returning('id')
      .execute();
    return inserted.length > 0;
  }

  suiveurs(signalementId: string, trx: Db = this.db): Promise<Pick<SignalementSuiveurRow, 'id' | 'email'>[]> {
    return trx.selectFrom('signalementSuiveurs').select(['id', 'email']).where('signalementId', '=', signalementId).orderBy('creeLe').orderBy('id').execute();
  }

  async compterSuiveurs(signalementId: string, trx: Db = this.db): Promise<number> {
    const row = await trx
      .selectFrom('signalementSuiveurs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('signalementId', '=', signalementId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Moves the followers of a duplicate to its original (an address following both stays once). */
  async transfererSuiveurs(depuisId: string, versId: string, trx: Db): Promise<void> {
    const deja = trx.selectFrom('signalementSuiveurs as o').select('o.email').where('o.signalementId', '=', versId);
    await trx.deleteFrom('signalementSuiveurs').where('signalementId', '=', depuisId).where('email', 'in', deja).execute();
    await trx.updateTable('signalementSuiveurs').set({ signalementId: versId }).where('signalementId', '=', depuisId).execute();
  }

  // --- Alerts -------------------------------------------------------------------------------------

  alerteParEmail(email: string, trx: Db = this.db): Promise<SignalementAlerteRow | undefined> {
    return trx.selectFrom('signalementAlertes').selectAll().where('email', '=', email).executeTakeFirst();
  }

  /** Adds an unconfirmed alert; false when the address already has one (confirmed or not). */
  async ajouterAlerte(row: SignalementAlerteRow, trx: Db = this.db): Promise<boolean> {
    const inserted = await trx.insertInto('signalementAlertes').values(row).onConflict((oc) => oc.column('email').doNothing()).returning('id').execute();
    return inserted.length > 0;
  }

  /** An unconfirmed alert asked for again: its confirmation is sent again, dated now. */
  async redaterAlerte(id: string, le: string, trx: Db = this.db): Promise<void> {
    await trx.updateTable('signalementAlertes').set({ creeLe: le }).where('id', '=', id).where('confirmeLe', 'is', null).execute();
  }

  async confirmerAlerte(id: string, le: string, trx: Db = this.db): Promise<void> {
    await trx.updateTable('signalementAlertes').set({ confirmeLe: le }).where('id', '=', id).where('confirmeLe', 'is', null).execute();
  }

  alertesConfirmees(trx: Db = this.db): Promise<Pick<SignalementAlerteRow, 'id' | 'email'>[]> {
    return trx.selectFrom('signalementAlertes').select(['id', 'email']).where('confirmeLe', 'is not', null).orderBy('confirmeLe').orderBy('id').execute();
  }

  // --- Unsubscribe links --------------------------------------------------------------------------

  /** The follower or the alert whose link's token hashes to `jetonHash`, or undefined. */
  async abonnement(jetonHash: string, trx: Db = this.db): Promise<Abonnement | undefined> {
    const suivi = await trx
      .selectFrom('signalementSuiveurs')
      .innerJoin('signalements', 'signalements.id', 'signalementSuiveurs.signalementId')
      .select(['signalementSuiveurs.id', 'signalements.numero', 'signalementSuiveurs.signalementId'])
      .where('signalementSuiveurs.jetonHash', '=', jetonHash)
      .executeTakeFirst();
    if (suivi) return { quoi: 'suivi', ...suivi };
    const alerte = await trx.selectFrom('signalementAlertes').select(['id', 'confirmeLe']).where('jetonHash', '=', jetonHash).executeTakeFirst();
    return alerte ? { quoi: 'alerte', ...alerte } : undefined;
  }

  async supprimerAbonnement(abonnement: Abonnement, trx: Db = this.db): Promise<void> {
    if (abonnement.quoi === 'suivi') await trx.deleteFrom('signalementSuiveurs').where('id', '=', abonnement.id).execute();
    else await trx.deleteFrom('signalementAlertes').where('id', '=', abonnement.id).execute();
  }
}
