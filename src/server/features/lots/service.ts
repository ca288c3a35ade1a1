import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { LOT_MAX, type EtatLot, type LotDemande } from '../../../domain/lots.js';
import type { ListeQuery } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { Statut } from '../../../domain/statut.js';
import { ApiError } from '../../errors.js';
import type { DemandesRepository } from '../demandes/repository.js';
import type { DemandesService } from '../demandes/service.js';
import type { EtiquettesRepository } from '../etiquettes/repository.js';
import type { EtiquettesService } from '../etiquettes/service.js';
import { MailDeLot, type InstructionService } from '../instruction/service.js';
import { etatDuLot, type Issue, type LotsRepository } from './repository.js';

/** A bulk action started longer ago than this, and finished, is forgotten (its progress was read long since). */
const GARDE_MS = 60 * 60_000;
/** The lease of a running action, moved forward at each request: past it without news, its instance is gone. */
export const BAIL_LOT_MS = 2 * 60_000;

const iso = (ms: number) => new Date(ms).toISOString();

const lotEnCours = () => new ApiError(409, 'LOT_EN_COURS', 'Un traitement par lot est déjà en cours : attendez qu’il se termine.');

/**
 * Bulk actions (docs/produit.md « Travail par lot »): the requests are chosen at once (the filter read then,
 * at most LOT_MAX), then changed one by one, each change its own transaction with its history line and its
 * e-mail (outbox), as a manager would one at a time — but for « Confier à… », whose colleague gets one e-mail for
 * the whole action (MailDeLot, rewritten in each request's transaction): a crash stops the action between two
 * requests, and nothing acknowledged is lost. One action at a time per manager, on whichever instance it runs. Its progress is
 * kept in the database (LotsRepository), so that the manager's polls may reach any instance; the instance that
 * started it runs it.
 */
export class LotsService {
  /** The actions this instance runs (the app's close waits for them to stop between two requests). */
  private readonly executions = new Set<Promise<void>>();
  private ferme = false;

  constructor(
    private readonly deps: {
      repository: DemandesRepository;
      lots: LotsRepository;
      demandes: DemandesService;
      instruction: InstructionService;
      etiquettes: { service: EtiquettesService; repository: EtiquettesRepository };
      log: FastifyBaseLogger;
    },
  ) {}

  async lancer(managerId: string, lot: LotDemande, log: FastifyBaseLogger): Promise<EtatLot> {
    const debut = Date.now();
    // Checked before the selection is read (it may take a while), and again as the action is recorded.
    if (await this.deps.lots.enCours(managerId, iso(debut))) throw lotEnCours();
    if (lot.action.type === 'etiquette' && !(await this.deps.etiquettes.repository.liste()).some((e) => e.id === (lot.action as { id: string }).id)) {
      throw new ApiError(404, 'NOT_FOUND', 'Cette étiquette n’existe pas.');
    }
    if (lot.action.type === 'confier') {
      if (!(await this.deps.instruction.gestionnaire(lot.action.gestionnaireId))) {
        throw new ApiError(400, 'GESTIONNAIRE_INCONNU', MESSAGES.gestionnaireInconnu, { action: MESSAGES.gestionnaireInconnu });
      }
    }
    const numeros = lot.selection.mode === 'numeros' ? [...new Set(lot.selection.numeros)] : await this.selection(lot.selection.requete, managerId, lot.selection.sauf);
    const etat: EtatLot = { id: randomUUID(), total: numeros.length, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: false };
    await this.deps.lots.oublier(iso(debut - GARDE_MS), iso(debut));
    if (!(await this.deps.lots.creerSiLibre(etat, managerId, iso(Date.now() + BAIL_LOT_MS), iso(debut)))) throw lotEnCours();
    const mailDeLot = lot.action.type === 'confier' ? new MailDeLot(etat.id, BAIL_LOT_MS) : null;
    const execution = this.executer(etat.id, numeros, managerId, lot.action, log, mailDeLot);
    this.executions.add(execution);
    void execution.finally(() => this.executions.delete(execution));
    return { ...etat };
  }

  /** The progress of one of this manager's bulk actions, from whichever instance runs it (another manager's is not found). */
  async etat(id: string, managerId: string): Promise<EtatLot> {
    const row = await this.deps.lots.lire(id);
    if (!row || row.proprietaire !== managerId) throw new ApiError(404, 'NOT_FOUND', 'Ce traitement par lot n’existe pas ou plus.');
    return etatDuLot(row, iso(Date.now()));
  }

  /** Stops the running actions between two requests, and waits for them (the app closes). */
  async fermer(): Promise<void> {
    this.ferme = true;
    await Promise.all(this.executions);
  }

  /** Every request the list's filter matches now, in its order, but those left out (`sauf`); more than LOT_MAX is refused. */
  private async selection(q: ListeQuery, managerId: string, sauf: readonly string[]): Promise<string[]> {
    const laisses = new Set(sauf);
    const numeros: string[] = [];
    for await (const row of this.deps.repository.stream({ ...q, suiviePar: managerId })) {
      if (laisses.has(row.numeroUnique)) continue;
      numeros.push(row.numeroUnique);
      if (numeros.length > LOT_MAX) {
        throw new ApiError(413, 'LOT_TROP_GRAND', `Plus de ${LOT_MAX.toLocaleString('fr-FR')} demandes correspondent à ce filtre : affinez-le, ${LOT_MAX.toLocaleString('fr-FR')} au plus à la fois.`);
      }
    }
    return numeros;
  }

  /** `mailDeLot`: a « Confier à… »'s one e-mail to the colleague, sent at the end (or by its delay after a crash). */
  private async executer(id: string, numeros: string[], managerId: string, action: LotDemande['action'], log: FastifyBaseLogger, mailDeLot: MailDeLot | null): Promise<void> {
    let traites = 0;
    let progression = true;
    try {
      for (const numero of numeros) {
        if (this.ferme) break;
        let issue: Issue;
        try {
          const change =
            action.type === 'statut'
              ? await this.statut(numero, action.statut, action.motif, managerId, log)
              : action.type === 'suivre'
                ? await this.suivre(numero, managerId)
                : action.type === 'confier'
                  ? await this.confier(numero, action.gestionnaireId, managerId, mailDeLot!)
                  : await this.etiqueter(numero, action.id, managerId);
          issue = change === true ? 'faits' : change === false ? 'inchanges' : change;
        } catch (error) {
          // Erased or withdrawn meanwhile: said in the count; anything else is the server's, and logged.
          if (!(error instanceof ApiError && error.statusCode === 404)) log.error({ err: error }, 'traitement par lot : une demande a échoué');
          issue = 'echecs';
        }
        await this.deps.lots.compter(id, issue, iso(Date.now() + BAIL_LOT_MS));
        traites += 1;
      }
    } catch (error) {
      // The progress could not be written (the database away): the action stops; its lease will pass.
      log.error({ err: error }, 'traitement par lot : progression non enregistrée, traitement arrêté');
      progression = false;
    }
    // Before the end is written: once the manager reads « terminé », the colleague's e-mail is on its way.
    if (mailDeLot) {
      await this.deps.instruction.envoyerMailDeLot(mailDeLot).catch((error: unknown) => log.error({ err: error }, 'traitement par lot : e-mail au collègue retardé'));
    }
    if (!progression) return;
    await this.deps.lots.finir(id, traites < numeros.length).catch((error: unknown) => log.error({ err: error }, 'traitement par lot : fin non enregistrée'));
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

  /** « Confier à… »: a request the colleague follows already is left as it is (no e-mail for it). */
  private async confier(numero: string, aId: string, managerId: string, mailDeLot: MailDeLot): Promise<boolean> {
    const row = await this.demande(numero);
    if (row.suiviePar === aId) return false;
    return (await this.deps.instruction.confier(row.id, managerId, aId, mailDeLot)).change;
  }

  /**
   * Adds the label; a request that has it already is counted unchanged; one that already carries the most labels a
   * request may (ETIQUETTES_PAR_DEMANDE_MAX) is skipped, counted apart — never given one more.
   */
  private async etiqueter(numero: string, etiquetteId: string, managerId: string): Promise<boolean | 'completes'> {
    const issue = await this.deps.etiquettes.service.ajouter((await this.demande(numero)).id, etiquetteId, managerId);
    return issue === 'complete' ? 'completes' : issue === 'ajoutee';
  }

  private async demande(numero: string) {
    const row = await this.deps.repository.findByNumero(numero);
    if (!row) throw new ApiError(404, 'NOT_FOUND', 'introuvable');
    return row;
  }
}
