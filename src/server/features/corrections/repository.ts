import { randomUUID } from 'node:crypto';
import { CATEGORIE_PIECE, type Avis } from '../../../domain/documents.js';
import type { EtatCorrection } from '../../../domain/corrections.js';
import type { Db } from '../../db/index.js';
import type { CorrectionRow, DocumentRow } from '../../db/schema.js';

/** The SQL of requests for corrections and of the review of documents (migration 0015). */
export class CorrectionsRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** The open request for corrections (not closed by a manager), if any. */
  ouverte(housingRequestId: string, trx: Db = this.db): Promise<CorrectionRow | undefined> {
    return trx
      .selectFrom('corrections')
      .selectAll()
      .where('housingRequestId', '=', housingRequestId)
      .where('closeLe', 'is', null)
      .orderBy('demandeeLe', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async inserer(c: { housingRequestId: string; motif: string; demandeePar: string; demandeeLe: string }, trx: Db): Promise<CorrectionRow> {
    const row: CorrectionRow = { id: randomUUID(), ...c, faiteLe: null, closePar: null, closeLe: null };
    await trx.insertInto('corrections').values(row).execute();
    return row;
  }

  async marquerFaite(id: string, le: string, trx: Db): Promise<void> {
    await trx.updateTable('corrections').set({ faiteLe: le }).where('id', '=', id).execute();
  }

  async clore(id: string, par: string, le: string, trx: Db): Promise<void> {
    await trx.updateTable('corrections').set({ closePar: par, closeLe: le }).where('id', '=', id).execute();
  }

  /** The state the list shows (null: no open request for corrections). */
  async changerEtat(housingRequestId: string, etat: EtatCorrection | null, le: string, trx: Db): Promise<void> {
    await trx.updateTable('housingRequests').set({ correction: etat, updatedAt: le }).where('id', '=', housingRequestId).execute();
  }

  /** The request's documents among `ids`. */
  documents(housingRequestId: string, ids: readonly string[], trx: Db = this.db): Promise<DocumentRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    // A message's attachments are not the request's documents: no review, no « à remplacer ».
    return trx.selectFrom('documents').selectAll().where('housingRequestId', '=', housingRequestId).where('id', 'in', ids).where('category', '!=', CATEGORIE_PIECE).execute();
  }

  /** Records a manager's review of one document; answers the document as it now is, or undefined. */
  async donnerAvis(
    housingRequestId: string,
    documentId: string,
    avis: { avis: Avis | null; motif: string | null; par: string; le: string },
    trx: Db,
  ): Promise<DocumentRow | undefined> {
    if ((await this.documents(housingRequestId, [documentId], trx)).length === 0) return undefined;
    await trx
      .updateTable('documents')
      .set({ avis: avis.avis, avisMotif: avis.motif, avisPar: avis.avis ? avis.par : null, avisLe: avis.avis ? avis.le : null })
      .where('id', '=', documentId)
      .where('housingRequestId', '=', housingRequestId)
      .execute();
    return (await this.documents(housingRequestId, [documentId], trx))[0];
  }
}
