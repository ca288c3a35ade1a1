import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { LOT_MAX, type EtatLot, type LotDemande } from '../../../domain/lots.js';
import type { ListeQuery } from '../../../domain/demande.js';
import type { Statut } from '../../../domain/statut.js';
import { ApiError } from '../../errors.js';
import type { DemandesRepository } from '../demandes/repository.js';
import type { DemandesService } from '../demandes/service.js';
import type { EtiquettesRepository } from '../etiquettes/repository.js';
import type { EtiquettesService } from '../etiquettes/service.js';
import type { InstructionService } from '../instruction/service.js';

/** How long a finished bulk action's progress stays readable. */
const GARDE_MS = 60 * 60_000;

interface Lot {
  etat: EtatLot;
  proprietaire: string;
}

/**
 * Bulk actions (docs/produit.md « Travail par lot »): the requests are chosen at once (the filter read then,
 * at most LOT_MAX), then changed one by one, each change its own transaction with its history line and its
 * e-mail (outbox), as a manager would one at a time: a crash stops the action between two requests, and
 * nothing acknowledged is lost. One action at a time per manager; its progress is kept in this process.
 */
export class LotsService {
  private readonly lots = new Map<string, Lot>();
  private ferme = false;

  constructor(
    private readonly deps: {
      repository: DemandesRepository;
      demandes: DemandesService;
      instruction: InstructionService;
      etiquettes: { service: EtiquettesService; repository: EtiquettesRepository };
      log: FastifyBaseLogger;
    },
  ) {}

  async lancer(managerId: string, lot: LotDemande, log: FastifyBaseLogger): Promise<EtatLot> {
    for (const l of this.lots.values()) {
      if (l.proprietaire === managerId && !l.etat.fini) {
        throw new ApiError(409, 'LOT_EN_COURS', 'Un traitement par lot est déjà en cours : attendez qu’il se termine.');
      }
    }
    if (lot.action.type === 'etiquette' && !(await this.deps.etiquettes.repository.liste()).some((e) => e.id === (lot.action as { id: string }).id)) {
      throw new ApiError(404, 'NOT_FOUND', 'Cette étiquette n’existe pas.');
    }
    const numeros = lot.selection.mode === 'numeros' ? [...new Set(lot.selection.numeros)] : await this.selection(lot.selection.requete, managerId);
    const etat: EtatLot = { id: randomUUID(), total: numeros.length, faits: 0, inchanges: 0, echecs: 0, fini: false };
    this.lots.set(etat.id, { etat, proprietaire: managerId });
    void this.executer(etat, numeros, managerId, lot.action, log);
    return { ...etat };
  }

  /** The progress of one of this manager's bulk actions (another manager's is not found). */
  etat(id: string, managerId: string): EtatLot {
    const lot = this.lots.get(id);
    if (!lot || lot.proprietaire !== managerId) throw new ApiError(404, 'NOT_FOUND', 'Ce traitement par lot n’existe pas ou plus.');
    return { ...lot.etat };
  }

  /** Stops the running actions between two requests (the app closes). */
  fermer(): void {
    this.ferme = true;
  }

  /** Every request the list's filter matches now, in its order; more than LOT_MAX is refused. */
  private async selection(q: ListeQuery, managerId: string): Promise<string[]> {
    const numeros: string[] = [];
    for await (const row of this.deps.repository.stream({ ...q, suiviePar: managerId })) {
      numeros.push(row.numeroUnique);
      if (numeros.length > LOT_MAX) {
        throw new ApiError(413, 'LOT_TROP_GRAND', `Plus de ${LOT_MAX.toLocaleString('fr-FR')} demandes correspondent à ce filtre : affinez-le, ${LOT_MAX.toLocaleString('fr-FR')} au plus à la fois.`);
      }
    }
    return numeros;
  }

  private async executer(etat: EtatLot, numeros: string[], managerId: string, action: LotDemande['action'], log: FastifyBaseLogger): Promise<void> {
    try {
      for (const numero of numeros) {
        if (this.ferme) break;
        try {
          const change =
            action.type === 'statut'
              ? await this.statut(numero, action.statut, action.motif, managerId, log)
              : action.type === 'suivre'
                ? await this.suivre(numero, managerId)
                : await this.etiqueter(numero, action.id, managerId);
          if (change) etat.faits += 1;
          else etat.inchanges += 1;
        } catch (error) {
          // Erased or withdrawn meanwhile: said in the count; anything else is the server's, and logged.
          if (!(error instanceof ApiError && error.statusCode === 404)) log.error({ err: error }, 'traitement par lot : une demande a échoué');
          etat.echecs += 1;
        }
      }
    } finally {
      etat.fini = true;
      setTimeout(() => this.lots.delete(etat.id), GARDE_MS).unref();
    }
  }

  private async statut(numero: string, statut: Statut, motif: string | undefined, managerId: string, log: FastifyBaseLogger): Promise<boolean> {
    return (await this.deps.demandes.changerStatut(numero, statut, managerId, log, motif)).annulation !== null;
  }

  private async suivre(numero: string, managerId: string): Promise<boolean> {
    const row = await this.demande(numero);
    if (row.suiviePar === managerId) return false;
    await this.deps.instruction.changerSuivi(row.id, managerId, true);
    return true;
  }

  private async etiqueter(numero: string, etiquetteId: string, managerId: string): Promise<boolean> {
    return this.deps.etiquettes.service.ajouter((await this.demande(numero)).id, etiquetteId, managerId);
  }

  private async demande(numero: string) {
    const row = await this.deps.repository.findByNumero(numero);
    if (!row) throw new ApiError(404, 'NOT_FOUND', 'introuvable');
    return row;
  }
}
