import type { FastifyBaseLogger } from 'fastify';
import type { Message } from '../../../domain/messages.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { Statut } from '../../../domain/statut.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { DemandeRow, DocumentRow, MessageTable } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import type { PiecesRecues } from '../demandes/upload.js';
import { documentInfo } from '../demandes/vues.js';
import type { DemandesRepository } from '../demandes/repository.js';
import type { InstructionRepository } from '../instruction/repository.js';
import { mailMessageDemandeur, mailMessageMairie } from './mails.js';
import type { Cote, MessageLu, MessagesRepository } from './repository.js';

const autre = (cote: Cote): Cote => (cote === 'mairie' ? 'demandeur' : 'mairie');

/**
 * A request's thread (docs/produit.md « Messages »): writing one is a transaction with its e-mail (outbox) —
 * to the applicant for the town hall's; for the applicant's, to the manager who follows the request, or when
 * nobody does to the manager who last wrote in the thread or asked for corrections (else to nobody); the page
 * that showed the thread marks the other side's messages read (a POST: a GET changes nothing). Managers see who wrote; the applicant sees « la mairie annexe ».
 */
export class MessagesService {
  constructor(
    private readonly deps: {
      repository: MessagesRepository;
      /** Which manager hears of the applicant's message (features/instruction). */
      suivi: Pick<InstructionRepository, 'destinataire'>;
      /** The request read again, locked, in the message's transaction (features/demandes). */
      demandes: Pick<DemandesRepository, 'findForUpdate'>;
      mailer: Mailer;
      bus: EventBus;
      config: Pick<Config, 'publicUrl'>;
      now: () => Date;
    },
  ) {}

  /** The thread as `lecteur` sees it; reading changes nothing (the page says it has shown it: `marquerLus`). */
  async lire(demande: DemandeRow, lecteur: Cote): Promise<Message[]> {
    const { repository } = this.deps;
    const { messages, pieces } = await repository.transaction(async (trx) => ({
      messages: await repository.liste(demande.id, trx),
      pieces: await repository.pieces(demande.id, trx),
    }));
    return messages.map((m) => vue(m, lecteur, demande.numeroUnique, pieces.filter((p) => p.messageId === m.id)));
  }

  /** `lecteur` has seen the thread: the other side's messages are read now (their « lu »; the list's unread count). */
  async marquerLus(demande: DemandeRow, lecteur: Cote, log: FastifyBaseLogger): Promise<void> {
    const { repository } = this.deps;
    const le = this.deps.now().toISOString();
    const nouveaux = await repository.transaction((trx) => repository.marquerLus(demande.id, autre(lecteur), le, trx));
    // The list's unread count changed: the managers' lists hear it.
    if (nouveaux && lecteur === 'mairie') await this.publier(demande, le, log);
  }

  /**
   * Writes a message, with its attachments when `pieces` holds some (checked already, recorded in the same
   * transaction as the message: both or neither).
   */
  async ecrire(demande: DemandeRow, de: Cote, auteurUserId: string | null, texte: string, log: FastifyBaseLogger, pieces?: PiecesRecues): Promise<Message> {
    const { repository, mailer, config } = this.deps;
    const le = this.deps.now().toISOString();
    let gestionnaire: { email: string; suit: boolean } | null = null;
    try {
      if (de === 'demandeur') gestionnaire = await this.deps.suivi.destinataire(demande.id);
    } catch (error) {
      // The attachments received are let go (their temp files, the memory they hold): they will never be recorded.
      await pieces?.abandonner();
      throw error;
    }
    let ecrit: MessageTable | undefined;
    const ecrire = async (trx: Db, noms: readonly string[]) => {
      // Withdrawn or erased since it was read (its thread and mails are gone with it): nothing is written, no one told.
      const encore = await this.deps.demandes.findForUpdate('', demande.id, trx);
      if (!encore) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
      ecrit = await repository.ajouter({ housingRequestId: demande.id, de, auteurUserId, texte, le }, trx);
      if (de === 'mairie') await mailer.enqueue(mailMessageMairie(encore, config.publicUrl, texte, noms), { trx, demandeId: demande.id });
      else if (gestionnaire) await mailer.enqueue(mailMessageDemandeur(encore, config.publicUrl, gestionnaire.email, gestionnaire.suit), { trx, demandeId: demande.id });
      return ecrit.id;
    };
    const docs = pieces && pieces.fichiers > 0 ? await pieces.enregistrer((trx) => ecrire(trx, pieces.noms)) : [];
    if (docs.length === 0) await repository.transaction((trx) => ecrire(trx, []));
    await this.publier(demande, le, log);
    return vue({ ...ecrit!, prenom: null, nom: null }, de, demande.numeroUnique, docs);
  }

  private async publier(demande: DemandeRow, date: string, log: FastifyBaseLogger): Promise<void> {
    const statut = demande.statutDeLaDemande as Statut;
    await this.deps.bus
      .publish({ numeroUnique: demande.numeroUnique, statutDeLaDemande: statut, de: statut, date, quoi: 'message' })
      .catch((error: unknown) => log.error({ err: error }, 'publication du message impossible'));
  }
}

/** A message as `lecteur` reads it: managers see which of them wrote; the applicant, the town hall. */
function vue(m: MessageLu, lecteur: Cote, numeroUnique: string, pieces: readonly DocumentRow[]): Message {
  const nom = m.prenom || m.nom ? `${m.prenom ?? ''} ${m.nom ?? ''}`.trim() : undefined;
  return {
    id: m.id,
    de: m.de as Cote,
    ...(lecteur === 'mairie' && m.de === 'mairie' && nom ? { auteur: nom } : {}),
    texte: m.texte,
    le: m.le,
    lu: m.luLe !== null,
    pieces: pieces.map((p) => {
      const { id, fileUrl, name, type, size } = documentInfo(numeroUnique, p);
      return { id, fileUrl, name, type, size };
    }),
  };
}
