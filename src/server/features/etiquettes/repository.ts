import { randomUUID } from 'node:crypto';
import { cleEtiquette, type CouleurEtiquette, type Etiquette } from '../../../domain/etiquettes.js';
import type { Db, DbKind } from '../../db/index.js';

/** The SQL of labels and of the labels requests carry (migration 0016). */
export class EtiquettesRepository {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
  ) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  async liste(trx: Db = this.db): Promise<Etiquette[]> {
    const rows = await trx.selectFrom('etiquettes').select(['id', 'nom', 'couleur']).orderBy('nom').execute();
    return rows.map((r) => ({ ...r, couleur: r.couleur as CouleurEtiquette }));
  }

  async compter(trx: Db): Promise<number> {
    return Number((await trx.selectFrom('etiquettes').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).n);
  }

  /** Another label already named so (case ignored, accented capitals too), if any. */
  async homonyme(nom: string, sauf: string | null, trx: Db): Promise<boolean> {
    let query = trx.selectFrom('etiquettes').select('id').where('nomCle', '=', cleEtiquette(nom));
    if (sauf) query = query.where('id', '!=', sauf);
    return (await query.executeTakeFirst()) !== undefined;
  }

  async creer(e: { nom: string; couleur: CouleurEtiquette; le: string }, trx: Db): Promise<Etiquette> {
    const id = randomUUID();
    await trx.insertInto('etiquettes').values({ id, nom: e.nom, nomCle: cleEtiquette(e.nom), couleur: e.couleur, creeLe: e.le }).execute();
    return { id, nom: e.nom, couleur: e.couleur };
  }

  async modifier(id: string, e: { nom: string; couleur: CouleurEtiquette }, trx: Db): Promise<boolean> {
    const result = await trx.updateTable('etiquettes').set({ nom: e.nom, nomCle: cleEtiquette(e.nom), couleur: e.couleur }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Deletes the label and takes it off every request. On PostgreSQL the requests that carry it are locked first, in
   * the order of their ids, as a change of one request's labels locks that request first: two such changes, or two
   * deletions, then wait for each other instead of each holding what the other needs (a deadlock).
   */
  async supprimer(id: string, trx: Db): Promise<boolean> {
    if (this.kind === 'postgres') {
      await trx
        .selectFrom('housingRequests')
        .select('id')
        .where('id', 'in', (eb) => eb.selectFrom('demandeEtiquettes').select('housingRequestId').where('etiquetteId', '=', id))
        .orderBy('id')
        .forUpdate()
        .execute();
    }
    await trx.deleteFrom('demandeEtiquettes').where('etiquetteId', '=', id).execute();
    const result = await trx.deleteFrom('etiquettes').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /**
   * Locks the request's row until the transaction ends (PostgreSQL; SQLite writes one transaction at a time): two
   * changes of its labels at once then read its labels one after the other, and cannot both pass the limit.
   */
  async verrouiller(housingRequestId: string, trx: Db): Promise<void> {
    if (this.kind === 'postgres') await trx.selectFrom('housingRequests').select('id').where('id', '=', housingRequestId).forUpdate().execute();
  }

  /** The ids of the labels one request carries. */
  async deDemande(housingRequestId: string, trx: Db = this.db): Promise<string[]> {
    const rows = await trx.selectFrom('demandeEtiquettes').select('etiquetteId').where('housingRequestId', '=', housingRequestId).execute();
    return rows.map((r) => r.etiquetteId);
  }

  async poser(housingRequestId: string, ids: readonly string[], par: string, le: string, trx: Db): Promise<void> {
    if (ids.length === 0) return;
    await trx
      .insertInto('demandeEtiquettes')
      .values(ids.map((etiquetteId) => ({ housingRequestId, etiquetteId, posePar: par, poseLe: le })))
      .execute();
  }

  async retirer(housingRequestId: string, ids: readonly string[], trx: Db): Promise<void> {
    if (ids.length === 0) return;
    await trx.deleteFrom('demandeEtiquettes').where('housingRequestId', '=', housingRequestId).where('etiquetteId', 'in', ids).execute();
  }
}
