import type { FastifyBaseLogger } from 'fastify';
import type { Correction, EtatCorrection, NouvelleCorrection } from '../../../domain/corrections.js';
import { CHAMPS_DEMANDE, CHAMPS_MODIFIABLES, peutEtreModifiee, type DemandeModification } from '../../../domain/demande.js';
import { AVIS, libelleCategorie, type Avis } from '../../../domain/documents.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { Statut } from '../../../domain/statut.js';
import type { Config } from '../../config.js';
import type { DemandeRow, DocumentRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import { exigerOuverte } from '../demandes/access.js';
import type { DemandesRepository } from '../demandes/repository.js';
import type { InstructionRepository } from '../instruction/repository.js';
import { toComplete } from '../demandes/vues.js';
import { mailAdresseChangee, mailCorrectionDemandee, mailCorrectionsFaites } from './mails.js';
import type { CorrectionsRepository } from './repository.js';

/** The audit's words for a review: the block and the verdict, never the reason (a text a person wrote). */
const detailAvis = (doc: Pick<DocumentRow, 'category'>, avis: Avis | null) => `${libelleCategorie(doc.category)} (${avis ? AVIS[avis].toLowerCase() : 'avis retiré'})`;

const introuvable = () => new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
const documentIntrouvable = () => new ApiError(404, 'DOCUMENT_NOT_FOUND', "Ce document n’existe pas pour cette demande.");

/**
 * Requests for corrections and the review of documents (docs/produit.md « Corrections et vérification des
 * documents »). Each change is one transaction with its audit entries and, when a manager asks for
 * corrections, the applicant's e-mail (outbox); the live event follows the commit.
 */
export class CorrectionsService {
  constructor(
    private readonly deps: {
      repository: CorrectionsRepository;
      /** The request, locked for the transaction (its findForUpdate). */
      demandes: DemandesRepository;
      journal: InstructionRepository;
      mailer: Mailer;
      bus: EventBus;
      config: Pick<Config, 'publicUrl'>;
      now: () => Date;
    },
  ) {}

  /**
   * A manager asks for corrections: the reason, the documents to replace (each marked « à remplacer » with
   * its reason), the applicant's e-mail. One open request at a time: asked again while the applicant has
   * not answered, 409; once they have (« faite »), the new one closes the previous one.
   */
  async demander(housingRequestId: string, managerId: string, input: NouvelleCorrection, log: FastifyBaseLogger): Promise<Correction> {
    const { repository, demandes, journal, mailer, config } = this.deps;
    const le = this.deps.now().toISOString();
    const { row, correction } = await repository.transaction(async (trx) => {
      const row = await demandes.findForUpdate('', housingRequestId, trx);
      if (!row) throw introuvable();
      exigerOuverte(row, 'on ne peut plus y demander de corrections.');
      const ouverte = await repository.ouverte(row.id, trx);
      if (ouverte && !ouverte.faiteLe) {
        throw new ApiError(409, 'CORRECTION_EN_COURS', 'Des corrections sont déjà demandées pour cette demande : attendez la réponse de la personne, ou clôturez la demande de correction en cours.');
      }
      if (ouverte) await repository.clore(ouverte.id, managerId, le, trx);
      // Each document once, with the first reason given for it.
      const choisis = input.documents.filter((d, i, all) => all.findIndex((o) => o.id === d.id) === i);
      const docs = await repository.documents(row.id, choisis.map((d) => d.id), trx);
      if (docs.length !== choisis.length) throw documentIntrouvable();
      const aRemplacer = choisis.map((d) => ({ ...docs.find((doc) => doc.id === d.id)!, motif: d.motif }));
      for (const doc of aRemplacer) {
        await repository.donnerAvis(row.id, doc.id, { avis: 'a-remplacer', motif: doc.motif, par: managerId, le }, trx);
        await journal.journaliser({ housingRequestId: row.id, acteurUserId: managerId, action: 'revue-document', detail: detailAvis(doc, 'a-remplacer'), le }, trx);
      }
      const correction = await repository.inserer({ housingRequestId: row.id, motif: input.motif, demandeePar: managerId, demandeeLe: le }, trx);
      await repository.changerEtat(row.id, 'demandee', le, trx);
      await mailer.enqueue(mailCorrectionDemandee(row, config.publicUrl, input.motif, aRemplacer), { trx, demandeId: row.id });
      return { row, correction };
    });
    await this.publier(row, le, log);
    return { etat: 'demandee', motif: correction.motif, demandeeLe: correction.demandeeLe, faiteLe: null };
  }

  /**
   * The applicant says the corrections are made: the list shows « Corrections faites » until a manager closes
   * it, and the manager who follows the request (else the one who asked, else the last one who wrote) is told by
   * e-mail; never an account that is no longer a manager. Never once the request is closed (409 DEMANDE_CLOSE).
   */
  async marquerFaite(housingRequestId: string, log: FastifyBaseLogger): Promise<Correction> {
    const { repository, demandes, journal, mailer, config } = this.deps;
    const le = this.deps.now().toISOString();
    const { row, correction } = await repository.transaction(async (trx) => {
      const row = await demandes.findForUpdate('', housingRequestId, trx);
      if (!row) throw introuvable();
      // A closed request waits for no correction: one still open stays for a manager to close, unanswered.
      exigerOuverte(row, 'elle n’attend plus de corrections.');
      const ouverte = await repository.ouverte(row.id, trx);
      if (!ouverte) throw aucune();
      if (ouverte.faiteLe) return { row: null, correction: ouverte };
      await repository.marquerFaite(ouverte.id, le, trx);
      await repository.changerEtat(row.id, 'faite', le, trx);
      const gestionnaire = await journal.destinataire(row.id, trx, ouverte.demandeePar);
      if (gestionnaire) await mailer.enqueue(mailCorrectionsFaites(row, config.publicUrl, gestionnaire.email), { trx, demandeId: row.id });
      return { row, correction: { ...ouverte, faiteLe: le } };
    });
    if (row) await this.publier(row, le, log);
    return { etat: 'faite', motif: correction.motif, demandeeLe: correction.demandeeLe, faiteLe: correction.faiteLe };
  }

  /**
   * The applicant changes the request's fields (docs/produit.md « Modifier sa demande »): while it is at its
   * first status, or while corrections are asked; never once closed (409 MODIFICATION_FERMEE). One
   * transaction with the audit line (the fields' names, never their values) and, when the e-mail address
   * changes, a word to the former address. Nothing changed: nothing written, nothing told.
   */
  async modifier(housingRequestId: string, input: DemandeModification, log: FastifyBaseLogger): Promise<DemandeRow> {
    const { demandes, repository, journal, mailer } = this.deps;
    const le = this.deps.now().toISOString();
    const { row, change } = await repository.transaction(async (trx) => {
      const row = await demandes.findForUpdate('', housingRequestId, trx);
      if (!row) throw introuvable();
      // The request's row carries the state of its open request for corrections (kept with it by changerEtat).
      if (!peutEtreModifiee(row.statutDeLaDemande, row.correction as EtatCorrection | null)) throw new ApiError(409, 'MODIFICATION_FERMEE', MESSAGES.modificationFermee);
      const avant = toComplete(row, []);
      const changes = CHAMPS_MODIFIABLES.filter((champ) => JSON.stringify(avant[champ]) !== JSON.stringify(input[champ]));
      if (changes.length === 0) return { row, change: false };
      const updated = await demandes.modifier(row, input, le, trx);
      const detail = changes.map((champ) => CHAMPS_DEMANDE[champ].label).join(', ');
      await journal.journaliser({ housingRequestId: row.id, acteurUserId: null, action: 'demande-modifiee', detail, le }, trx);
      if (updated.email !== row.email) await mailer.enqueue(mailAdresseChangee(row), { trx, demandeId: row.id });
      return { row: updated, change: true };
    });
    if (change) await this.publier(row, le, log, 'modification');
    return row;
  }

  /** A manager closes the open request for corrections (checked, or no longer needed). */
  async clore(housingRequestId: string, managerId: string, log: FastifyBaseLogger): Promise<void> {
    const { repository, demandes } = this.deps;
    const le = this.deps.now().toISOString();
    const row = await repository.transaction(async (trx) => {
      const row = await demandes.findForUpdate('', housingRequestId, trx);
      if (!row) throw introuvable();
      const ouverte = await repository.ouverte(row.id, trx);
      if (!ouverte) throw aucune();
      await repository.clore(ouverte.id, managerId, le, trx);
      await repository.changerEtat(row.id, null, le, trx);
      return row;
    });
    await this.publier(row, le, log);
  }

  /** A manager's review of one document (null withdraws it); recorded in the audit with its block. */
  async donnerAvis(housingRequestId: string, documentId: string, managerId: string, avis: Avis | null, motif: string | null): Promise<DocumentRow> {
    const { repository, journal, demandes } = this.deps;
    const le = this.deps.now().toISOString();
    return repository.transaction(async (trx) => {
      // The request locked first (PostgreSQL), as the applicant's deletion of a document does: one waits for the other,
      // and the deletion reads the review this one gives.
      const row = await demandes.findForUpdate('', housingRequestId, trx);
      if (!row) throw documentIntrouvable();
      // A closed request takes no more documents: none is asked to be replaced (accepting one, or withdrawing a review, stays).
      if (avis === 'a-remplacer') exigerOuverte(row, 'elle ne reçoit plus de documents, aucun ne peut être demandé à remplacer.');
      const doc = await repository.donnerAvis(housingRequestId, documentId, { avis, motif: avis === 'a-remplacer' ? motif : null, par: managerId, le }, trx);
      if (!doc) throw documentIntrouvable();
      await journal.journaliser({ housingRequestId, acteurUserId: managerId, action: 'revue-document', detail: detailAvis(doc, avis), le }, trx);
      return doc;
    });
  }

  private async publier(row: DemandeRow, date: string, log: FastifyBaseLogger, quoi: 'correction' | 'modification' = 'correction'): Promise<void> {
    const statut = row.statutDeLaDemande as Statut;
    await this.deps.bus
      .publish({ numeroUnique: row.numeroUnique, statutDeLaDemande: statut, de: statut, date, quoi })
      .catch((error: unknown) => log.error({ err: error }, 'publication du changement de correction impossible'));
  }
}

function aucune(): ApiError {
  return new ApiError(409, 'AUCUNE_CORRECTION', "Aucune correction n’est demandée pour cette demande.");
}
