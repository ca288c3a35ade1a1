import type { FastifyBaseLogger } from 'fastify';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { Note, SuiviVue } from '../../../domain/instruction.js';
import type { Db } from '../../db/index.js';
import type { Statut } from '../../../domain/statut.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { Mail, Mailer } from '../../mail/index.js';
import { mailDemandeConfiee, mailDemandesConfiees } from './mails.js';
import type { InstructionRepository } from './repository.js';

/** What e-mails a colleague given a request: the outbox, and the site's address for the request's page. */
export interface EnvoiMails {
  mailer: Mailer;
  publicUrl: string;
}

/**
 * The one e-mail of a bulk « Confier à… » (docs/produit.md « Travail par lot »). Each request given rewrites it, in
 * that request's own transaction: the queued mail is withdrawn and queued again naming every request given so far,
 * to leave `delaiMs` later (the action's lease); the action's end (`InstructionService.envoyerMailDeLot`) makes it
 * leave at once. So the mail exists if and only if the changes it tells of are committed, and an action cut short
 * by a crash still tells of what it did, once its lease has passed. A mail that started to leave meanwhile (the
 * action silent past the delay) is not withdrawn: the next requests go into a new one.
 */
export class MailDeLot {
  /** The requests the queued mail names, and the mail itself, once a request was given. */
  numeros: readonly string[] = [];
  mail: Mail | null = null;
  morceau = 0;

  constructor(
    readonly lotId: string,
    readonly delaiMs: number,
  ) {}

  /** The outbox key of the action's n-th mail (unique in the outbox). */
  cle(morceau = this.morceau): string {
    return `confier:${this.lotId}:${morceau}`;
  }
}

/**
 * State changes of the managers' handling: each one is a transaction that also records itself in the audit
 * (docs/produit.md « Instruction »).
 */
export class InstructionService {
  constructor(private readonly deps: { repository: InstructionRepository; now: () => Date; envoi: EnvoiMails; bus: EventBus; log: FastifyBaseLogger }) {}

  async ajouterNote(housingRequestId: string, auteurId: string, texte: string): Promise<Note> {
    const { repository } = this.deps;
    const le = this.deps.now().toISOString();
    const id = await repository.transaction(async (trx) => {
      const noteId = await repository.ajouterNote(housingRequestId, auteurId, texte, le, trx);
      await repository.journaliser({ housingRequestId, acteurUserId: auteurId, action: 'note', le }, trx);
      return noteId;
    });
    return { id, texte, le, auteur: await repository.nomDuCompte(auteurId) };
  }

  /**
   * « Suivre » makes the manager the one who follows the request (taking it over from another, who is then
   * named in the audit by the change); « Ne plus suivre » frees it, only when it is theirs. Answers the new state.
   */
  async changerSuivi(housingRequestId: string, managerId: string, suivre: boolean): Promise<SuiviVue> {
    const { repository } = this.deps;
    const le = this.deps.now().toISOString();
    const change = await repository.transaction(async (trx) => {
      const courant = (await repository.suivi(housingRequestId, trx))?.id ?? null;
      if (suivre ? courant === managerId : courant !== managerId) return false;
      await repository.changerSuivi(housingRequestId, suivre ? managerId : null, trx);
      await repository.journaliser({ housingRequestId, acteurUserId: managerId, action: suivre ? 'suivi' : 'fin-suivi', le }, trx);
      return true;
    });
    if (change) await this.publier(housingRequestId, le);
    const suiviePar = await repository.suivi(housingRequestId);
    return { suiviePar, moi: suiviePar?.id === managerId };
  }

  /** A manager's or an admin's account, whom a request may be given to; undefined for any other id. */
  async gestionnaire(userId: string): Promise<{ id: string; nom: string } | undefined> {
    const trouve = await this.deps.repository.gestionnaire(userId);
    return trouve && { id: trouve.id, nom: trouve.nom };
  }

  /**
   * « Confier à… »: the colleague `aId` (a manager or an admin, else 400 GESTIONNAIRE_INCONNU) follows the request
   * from now on, taking it over from whoever did. In one transaction: the change, its audit line (`confie`, naming
   * the colleague; `suivi` when one gives it to oneself) and the e-mail that tells the colleague — none to oneself;
   * in a bulk action (`lot`), the action's one e-mail instead of one per request. Nothing changes, and nobody is
   * told, when the colleague follows it already. Answers the new state as `parId` sees it, and whether it changed.
   */
  async confier(housingRequestId: string, parId: string, aId: string, lot?: MailDeLot): Promise<{ vue: SuiviVue; change: boolean }> {
    const { repository } = this.deps;
    const { envoi } = this.deps;
    const le = this.deps.now().toISOString();
    let apresCommit: (() => void) | undefined;
    const change = await repository.transaction(async (trx) => {
      const collegue = await repository.gestionnaire(aId, trx);
      if (!collegue) throw new ApiError(400, 'GESTIONNAIRE_INCONNU', MESSAGES.gestionnaireInconnu, { gestionnaireId: MESSAGES.gestionnaireInconnu });
      if ((await repository.suivi(housingRequestId, trx))?.id === aId) return false;
      await repository.changerSuivi(housingRequestId, aId, trx);
      if (aId === parId) {
        await repository.journaliser({ housingRequestId, acteurUserId: parId, action: 'suivi', le }, trx);
        return true;
      }
      // The colleague as their account id: the audit names them when read (a deleted account: « Compte supprimé »).
      await repository.journaliser({ housingRequestId, acteurUserId: parId, action: 'confie', detail: aId, le }, trx);
      const numero = await repository.numeroDe(housingRequestId, trx);
      const par = await repository.nomDuCompte(parId, trx);
      if (lot) apresCommit = await this.ajouterAuMailDeLot(lot, numero, collegue.email, par, trx);
      else await envoi.mailer.enqueue(mailDemandeConfiee(numero, envoi.publicUrl, collegue.email, par), { trx, demandeId: housingRequestId });
      return true;
    });
    apresCommit?.();
    if (change) await this.publier(housingRequestId, le);
    const suiviePar = await repository.suivi(housingRequestId);
    return { vue: { suiviePar, moi: suiviePar?.id === parId }, change };
  }

  /** The managers' lists and pages hear that who follows the request changed (never the applicant's page). */
  private async publier(housingRequestId: string, date: string): Promise<void> {
    const { repository, bus, log } = this.deps;
    try {
      const demande = await repository.pourEvenement(housingRequestId);
      if (!demande) return;
      const statut = demande.statutDeLaDemande as Statut;
      await bus.publish({ numeroUnique: demande.numeroUnique, statutDeLaDemande: statut, de: statut, date, quoi: 'suivi' });
    } catch (error) {
      log.error({ err: error }, 'publication du changement de suivi impossible');
    }
  }

  /** The end of a bulk « Confier à… »: its e-mail, if one is queued and has not started to leave, leaves now. */
  async envoyerMailDeLot(lot: MailDeLot): Promise<void> {
    const { mail } = lot;
    if (!mail) return;
    const { mailer } = this.deps.envoi;
    await this.deps.repository.transaction(async (trx) => {
      if (await mailer.cancel(lot.cle(), trx)) await mailer.enqueue(mail, { trx, key: lot.cle() });
    });
  }

  /**
   * Queues, in the request's transaction, the bulk action's mail naming this request too (see MailDeLot); answers
   * what to remember of it once the transaction is committed.
   */
  private async ajouterAuMailDeLot(lot: MailDeLot, numero: string, to: string, par: string, trx: Db): Promise<() => void> {
    const { mailer, publicUrl } = this.deps.envoi;
    const premier = lot.numeros.length === 0;
    const remplace = !premier && (await mailer.cancel(lot.cle(), trx));
    const numeros = remplace ? [...lot.numeros, numero] : [numero];
    const morceau = premier || remplace ? lot.morceau : lot.morceau + 1;
    const mail = mailDemandesConfiees(numeros, publicUrl, to, par);
    await mailer.enqueue(mail, { trx, key: lot.cle(morceau), delayMs: lot.delaiMs });
    return () => {
      lot.numeros = numeros;
      lot.morceau = morceau;
      lot.mail = mail;
    };
  }
}
