import type { FastifyBaseLogger } from 'fastify';
import type { DemandeCreation } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { isValidNumeroUnique, normaliseNumeroUnique } from '../../../domain/normalise.js';
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

/**
 * State changes of housing requests: each one is a transaction; what it tells the world (e-mail,
 * live event) happens only after the commit.
 */
export class DemandesService {
  constructor(
    private readonly deps: { repository: DemandesRepository; mailer: Mailer; bus: EventBus; config: Pick<Config, 'publicUrl'>; now?: () => Date },
  ) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** Records a new request; answers its row and, once only, its private key and link. */
  async creer(input: DemandeCreation, ownerUserId: string | null): Promise<{ row: DemandeRow; accessKey: string; privateLink: string }> {
    const { repository, mailer, config } = this.deps;
    const accessKey = newAccessKey();
    let row: DemandeRow;
    try {
      row = await repository.transaction((trx) => repository.insert(input, hashAccessKey(accessKey), this.now().toISOString(), ownerUserId, trx));
    } catch (error) {
      if (isUniqueViolation(error)) throw new ApiError(409, 'DUPLICATE', MESSAGES.doublon, { numeroUnique: MESSAGES.doublon });
      throw error;
    }
    const link = privateLink(config.publicUrl, row.numeroUnique, accessKey);
    mailer.send(mailDemandeEnregistree(row, link));
    return { row, accessKey, privateLink: link };
  }

  /**
   * A manager sets a status (any status, in any order). The change and its history event are one
   * transaction; the applicant's e-mail and the live event follow the commit. Setting the current
   * status again changes nothing and tells no one.
   */
  async changerStatut(logementId: string, statut: Statut, actorUserId: string, log: FastifyBaseLogger): Promise<DemandeRow> {
    const { repository, mailer, bus, config } = this.deps;
    const numero = normaliseNumeroUnique(logementId);
    const at = this.now().toISOString();
    const result = await repository.transaction(async (trx) => {
      // Two managers at the same instant: the second waits, then sees the first's status as "from".
      const row = await repository.findForUpdate(isValidNumeroUnique(numero) ? numero : '', logementId, trx);
      if (!row) return null;
      if (row.statutDeLaDemande === statut) return { row, from: null };
      const updated = await repository.setStatut(row, statut, at, trx);
      await repository.insertEvenement(row.id, row.statutDeLaDemande, statut, actorUserId, at, trx);
      return { row: updated, from: row.statutDeLaDemande };
    });
    if (!result) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
    const { row, from } = result;
    if (from !== null) {
      await bus
        .publish({ numeroUnique: row.numeroUnique, statutDeLaDemande: statut, de: from as Statut, date: at })
        .catch((error: unknown) => log.error({ err: error }, 'publication du changement de statut impossible'));
      mailer.send(mailStatutChange(row, config.publicUrl));
    }
    return row;
  }
}
