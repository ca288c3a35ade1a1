import { CATEGORIE_PIECE } from '../../../domain/documents.js';
import { MESSAGE_SUPPRESSION_DOCUMENT_REFUSEE, peutSupprimerDocument } from '../../../domain/effacement.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { Statut } from '../../../domain/statut.js';
import { ApiError } from '../../errors.js';
import type { DemandeRow } from '../../db/schema.js';
import type { EventBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import type { Storage } from '../../storage/index.js';
import { mailDemandeEffacee } from './mails.js';
import type { DemandesRepository } from './repository.js';

/** Why a request is erased: its requester withdrew it, its retention ended, a manager erased it on request. */
export type RaisonEffacement = 'retrait' | 'purge' | 'gestionnaire';

/** The history's last step, by reason (no personal data: the reason says only who decided). */
const ETAPE: Record<RaisonEffacement, { statut: string; motif: string | null }> = {
  retrait: { statut: 'Retirée', motif: null },
  purge: { statut: 'Effacée', motif: 'Durée de conservation écoulée' },
  gestionnaire: { statut: 'Effacée', motif: 'Effacement demandé par la personne' },
};

/**
 * One transaction: blanks the request's personal fields (anonymised tombstone, excluded from every list and lookup), records an anonymous status event, withdraws its queued mails; after the commit, removes its documents' files.
 *
 * A withdrawal or a manager's erasure also queues, in the same transaction, an e-mail telling the person
 * (no link). A request already erased, or unknown, or for which `encore` no longer holds, is left as it is (false). Files that a crash keeps after the
 * commit are orphans: the sweep at start removes them.
 */
export async function effacerDemande(
  deps: { repository: DemandesRepository; storage: Storage; mailer: Mailer; bus: EventBus },
  demandeId: string,
  raison: RaisonEffacement,
  acteurUserId: string | null,
  at: Date,
  /** Checked on the request read under the lock: false leaves it as it is (the purge's rule, which a manager may have lifted since). */
  encore: (row: DemandeRow) => boolean = () => true,
): Promise<boolean> {
  const { repository, storage, mailer, bus } = deps;
  const { statut, motif } = ETAPE[raison];
  const efface = await repository.transaction(async (trx) => {
    const row = await repository.findForUpdate('', demandeId, trx);
    if (!row || !encore(row)) return null;
    // Steps of one request are strictly ordered in time (service.ts): this one comes after the latest.
    const last = await repository.lastEvenementAt(row.id, trx);
    const when = new Date(Math.max(at.getTime(), last === null ? 0 : Date.parse(last) + 1)).toISOString();
    const removed = await repository.deleteDocuments(row.id, trx);
    await repository.withdrawMails(row.id, trx);
    await repository.insertEvenement(row.id, row.statutDeLaDemande, statut, acteurUserId, when, trx, { motif });
    await repository.anonymiser(row.id, statut, when, trx);
    // Not tied to the request: it must leave although the request is erased.
    if (raison !== 'purge') await mailer.enqueue(mailDemandeEffacee(row, raison === 'gestionnaire'), { trx });
    return { row, removed };
  });
  if (!efface) return false;
  // The lists open on managers' screens drop it (and a page open on it learns it is gone); they show no more of it.
  const avant = efface.row.statutDeLaDemande as Statut;
  await bus.publish({ numeroUnique: efface.row.numeroUnique, statutDeLaDemande: avant, de: avant, date: at.toISOString(), quoi: 'effacement' }).catch(() => undefined);
  await Promise.allSettled(efface.removed.map((key) => storage.remove(key)));
  return true;
}

/**
 * The requester deletes one document: its row goes in a transaction that checks the request's status
 * (locked on PostgreSQL), then its file. The other documents keep their positions (their names in the
 * zip and in the town hall's notes stay the same); a new upload takes the next free position.
 */
export async function supprimerDocument(
  deps: { repository: DemandesRepository; storage: Storage },
  demande: { id: string; numeroUnique: string },
  documentId: string,
  at: Date,
): Promise<void> {
  const { repository, storage } = deps;
  const introuvable = () => new ApiError(404, 'DOCUMENT_NOT_FOUND', "Ce document n’existe pas pour cette demande.");
  const doc = await repository.findDocument(demande.id, documentId);
  if (!doc) throw introuvable();
  // A message's attachment belongs to the thread, which no one rewrites.
  if (doc.category === CATEGORIE_PIECE) throw new ApiError(409, 'DOCUMENT_VERROUILLE', 'Une pièce jointe d’un message ne peut pas être supprimée : envoyez un nouveau message.');
  const deleted = await repository.transaction(async (trx) => {
    const row = await repository.findForUpdate(demande.numeroUnique, demande.id, trx);
    if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
    // Its review read again under the request's lock: a manager may have just accepted it (a review locks the request too).
    const lu = await repository.findDocument(row.id, documentId, trx);
    if (!lu) throw introuvable();
    if (!peutSupprimerDocument(row.statutDeLaDemande, lu.avis)) throw new ApiError(409, 'DOCUMENT_VERROUILLE', MESSAGE_SUPPRESSION_DOCUMENT_REFUSEE);
    return repository.deleteDocument(row.id, documentId, at.toISOString(), trx);
  });
  if (!deleted) throw introuvable();
  // A crash here leaves the file without its row: the orphan sweep removes it.
  await storage.remove(doc.storageKey).catch(() => undefined);
}
