import type { FastifyBaseLogger } from 'fastify';
import { avecMotif, type Annulation, type DemandeCreation } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { isValidNumeroUnique, normaliseNumeroUnique } from '../../../domain/normalise.js';
import { ajouterMois, VALIDITE_MOIS_DEFAUT } from '../../../domain/cycleDeVie.js';
import type { Statut } from '../../../domain/statut.js';
import type { Config } from '../../config.js';
import { isUniqueViolation } from '../../db/index.js';
import type { DemandeRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import { hashAccessKey, newAccessKey, privateLink } from './access.js';
import { mailDemandeEnregistree, mailStatutChange } from './mails.js';
import type { DemandesRepository } from './repository.js';

/** How long a status change can be undone; its e-mail leaves only after (docs/produit.md « Statuts »). */
export const DELAI_ANNULATION_MS = 10_000;

/** The outbox key of a status change's e-mail: undoing the change withdraws it. */
const cleDuMail = (evenementId: string) => `statut:${evenementId}`;

/**
 * State changes of housing requests: each one is a transaction, which also queues the e-mail it sends
 * (the durable outbox, src/server/mail); the live event follows the commit.
 */
export class DemandesService {
  constructor(
    private readonly deps: {
      repository: DemandesRepository;
      mailer: Mailer;
      bus: EventBus;
      /** `delaiAnnulationMs`: the undo window (default 10 s; tests shorten it). */
      config: Pick<Config, 'publicUrl'> & Partial<Pick<Config, 'cycleDeVie'>> & { delaiAnnulationMs?: number };
      now?: () => Date;
    },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  private delaiAnnulation(): number {
    return this.deps.config.delaiAnnulationMs ?? DELAI_ANNULATION_MS;
  }

  /**
   * Records a new request; answers its row and, once only, its private key and link. The managers' open
   * lists hear of it live (an event with no previous status), after the commit.
   */
  async creer(input: DemandeCreation, ownerUserId: string | null, log?: FastifyBaseLogger): Promise<{ row: DemandeRow; accessKey: string; privateLink: string }> {
    const { repository, mailer, bus, config } = this.deps;
    const accessKey = newAccessKey();
    let row: DemandeRow;
    try {
      row = await repository.transaction(async (trx) => {
        const at = this.now().toISOString();
        const valideJusqua = ajouterMois(at, config.cycleDeVie?.validiteMois ?? VALIDITE_MOIS_DEFAUT);
        const inserted = await repository.insert(input, hashAccessKey(accessKey), at, ownerUserId, trx, valideJusqua);
        await mailer.enqueue(mailDemandeEnregistree(inserted, privateLink(config.publicUrl, inserted.numeroUnique, accessKey)), { trx, demandeId: inserted.id });
        return inserted;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, 'DUPLICATE', MESSAGES.doublon, { numeroUnique: MESSAGES.doublon });
      throw error;
    }
    await bus
      .publish({ numeroUnique: row.numeroUnique, statutDeLaDemande: row.statutDeLaDemande as Statut, de: null, date: row.dateDEnregistrement })
      .catch((error: unknown) => log?.error({ err: error }, 'publication de la nouvelle demande impossible'));
    return { row, accessKey, privateLink: privateLink(config.publicUrl, row.numeroUnique, accessKey) };
  }

  /**
   * A manager sets a status (any status, in any order). The change, its history event (with a refusal's
   * reason) and the applicant's e-mail, queued to leave after the undo window, are one transaction; the live
   * event follows the commit. Setting the current status again changes nothing, tells no one, and has
   * nothing to undo (`annulation` null).
   */
  async changerStatut(
    logementId: string,
    statut: Statut,
    actorUserId: string,
    log: FastifyBaseLogger,
    motif?: string,
  ): Promise<{ row: DemandeRow; annulation: Annulation | null }> {
    const { repository, mailer, bus, config } = this.deps;
    const numero = normaliseNumeroUnique(logementId);
    const delai = this.delaiAnnulation();
    const raison = avecMotif(statut) && motif?.trim() ? motif.trim() : null;
    const result = await repository.transaction(async (trx) => {
      // Two managers at the same instant: the second waits, then sees the first's status as "from".
      const row = await repository.findForUpdate(isValidNumeroUnique(numero) ? numero : '', logementId, trx);
      if (!row) return null;
      if (row.statutDeLaDemande === statut) return { row, from: null, id: null, at: '', jusqua: '' };
      // Steps of one request are strictly ordered in time (a change in the same millisecond as the previous
      // step is recorded one millisecond later): "the latest change" is then always one step.
      const last = await repository.lastEvenementAt(row.id, trx);
      const time = Math.max(this.now().getTime(), last === null ? 0 : Date.parse(last) + 1);
      const at = new Date(time).toISOString();
      const jusqua = new Date(time + delai).toISOString();
      const updated = await repository.setStatut(row, statut, at, trx);
      const avant = { clotureeLe: row.clotureeLe, radieeLe: row.radieeLe };
      const id = await repository.insertEvenement(row.id, row.statutDeLaDemande, statut, actorUserId, at, trx, { motif: raison, undoUntil: jusqua, avant });
      await mailer.enqueue(mailStatutChange(updated, config.publicUrl, raison), { delayMs: delai, key: cleDuMail(id), trx, demandeId: row.id });
      return { row: updated, from: row.statutDeLaDemande, id, at, jusqua };
    });
    if (!result) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
    const { row, from, id, at, jusqua } = result;
    if (from === null || id === null) return { row, annulation: null };
    await bus
      .publish({ numeroUnique: row.numeroUnique, statutDeLaDemande: statut, de: from as Statut, date: at })
      .catch((error: unknown) => log.error({ err: error }, 'publication du changement de statut impossible'));
    return { row, annulation: { id, jusqua } };
  }

  /**
   * Undoes a status change before its e-mail leaves: in one transaction, when the change is still the
   * request's latest, its window is open and its e-mail not yet claimed by the delivery loop, the previous
   * status (and its rank) comes back, the change leaves the history (its row stays, marked undone) and its
   * e-mail is withdrawn. The live event follows the commit. Undoing twice answers the same.
   */
  async annuler(id: string, actorUserId: string, log: FastifyBaseLogger): Promise<DemandeRow> {
    const { repository, mailer, bus } = this.deps;
    const at = this.now().toISOString();
    const tropTard = () => new ApiError(409, 'TROP_TARD', MESSAGES.tropTardPourAnnuler);
    const result = await repository.transaction(async (trx) => {
      const found = await repository.findEvenement(id, trx);
      // Only a manager's change can be undone: the creation's step has no window.
      if (!found || found.undoUntil === null || found.fromStatus === null) throw new ApiError(404, 'NOT_FOUND', MESSAGES.changementIntrouvable);
      // The request locked (PostgreSQL), the step is read again: another undo may have just committed.
      const row = await repository.findForUpdate('', found.housingRequestId, trx);
      const event = await repository.findEvenement(id, trx);
      if (!row || !event) throw new ApiError(404, 'NOT_FOUND', MESSAGES.changementIntrouvable);
      if (event.undoneAt !== null) {
        if (row.statutDeLaDemande === event.fromStatus && !(await repository.hasLaterEvenement(event, trx))) return { row, undone: null };
        throw tropTard();
      }
      if (at >= found.undoUntil || row.statutDeLaDemande !== event.toStatus || (await repository.hasLaterEvenement(event, trx))) throw tropTard();
      // Last check, and the only write that can fail the race: a mail the loop has claimed is on its way.
      if (!(await mailer.cancel(cleDuMail(event.id), trx))) throw tropTard();
      const restored = await repository.setStatut(row, event.fromStatus as Statut, at, trx, { clotureeLe: event.avantClotureeLe, radieeLe: event.avantRadieeLe });
      await repository.markUndone(event.id, at, actorUserId, trx);
      return { row: restored, undone: event.toStatus as Statut };
    });
    const { row, undone } = result;
    if (undone !== null) {
      await bus
        .publish({ numeroUnique: row.numeroUnique, statutDeLaDemande: row.statutDeLaDemande as Statut, de: undone, date: at })
        .catch((error: unknown) => log.error({ err: error }, "publication de l’annulation du statut impossible"));
    }
    return row;
  }
}
