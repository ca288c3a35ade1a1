import { ETIQUETTES_MAX, ETIQUETTES_PAR_DEMANDE_MAX, type Etiquette, type NouvelleEtiquette } from '../../../domain/etiquettes.js';
import { isUniqueViolation, type Db } from '../../db/index.js';
import { ApiError } from '../../errors.js';
import type { InstructionRepository } from '../instruction/repository.js';
import type { EtiquettesRepository } from './repository.js';

const introuvable = () => new ApiError(404, 'NOT_FOUND', 'Cette étiquette n’existe pas.');
const homonyme = () => new ApiError(409, 'DUPLICATE', 'Une étiquette porte déjà ce nom.');
/** Two admins naming two labels alike at once (PostgreSQL): both pass the check, the unique key refuses the later. */
const siHomonyme = (error: unknown): never => {
  throw isUniqueViolation(error) ? homonyme() : error;
};

/**
 * Labels (docs/produit.md « Étiquettes »): admins keep the set (at most ETIQUETTES_MAX, names unique whatever
 * their case); managers change a request's labels, each change one transaction with its audit line (the
 * labels' names, which are not personal data).
 */
export class EtiquettesService {
  constructor(private readonly deps: { repository: EtiquettesRepository; journal: InstructionRepository; now: () => Date }) {}

  creer(e: NouvelleEtiquette): Promise<Etiquette> {
    const { repository } = this.deps;
    return repository.transaction(async (trx) => {
      if ((await repository.compter(trx)) >= ETIQUETTES_MAX) {
        throw new ApiError(409, 'TROP_D_ETIQUETTES', `Il y a déjà ${ETIQUETTES_MAX} étiquettes, le maximum : supprimez-en une avant d’en créer une autre.`);
      }
      if (await repository.homonyme(e.nom, null, trx)) throw homonyme();
      return repository.creer({ ...e, le: this.deps.now().toISOString() }, trx);
    }).catch(siHomonyme);
  }

  modifier(id: string, e: NouvelleEtiquette): Promise<Etiquette> {
    const { repository } = this.deps;
    return repository.transaction(async (trx) => {
      if (await repository.homonyme(e.nom, id, trx)) throw homonyme();
      if (!(await repository.modifier(id, e, trx))) throw introuvable();
      return { id, ...e };
    }).catch(siHomonyme);
  }

  async supprimer(id: string): Promise<void> {
    const { repository } = this.deps;
    if (!(await repository.transaction((trx) => repository.supprimer(id, trx)))) throw introuvable();
  }

  /** Sets the request's labels to `ids`; answers them. */
  async changer(housingRequestId: string, ids: readonly string[], managerId: string): Promise<string[]> {
    const voulues = [...new Set(ids)];
    await this.deps.repository.transaction((trx) => this.appliquer(housingRequestId, voulues, null, managerId, trx));
    return voulues;
  }

  /**
   * Adds one label to the request (bulk work): `ajoutee`, `deja` there, or `complete` — the request already
   * carries ETIQUETTES_PAR_DEMANDE_MAX labels and is left as it is (the limit of `PUT …/etiquettes`).
   */
  async ajouter(housingRequestId: string, id: string, managerId: string): Promise<'ajoutee' | 'deja' | 'complete'> {
    const { ajoutees, complete } = await this.deps.repository.transaction((trx) => this.appliquer(housingRequestId, null, id, managerId, trx));
    return complete ? 'complete' : ajoutees.length > 0 ? 'ajoutee' : 'deja';
  }

  /**
   * The request's labels become `voulues`, or get `une` more; the change goes to the audit. Never more than
   * ETIQUETTES_PAR_DEMANDE_MAX: `une` more on a request that has as many changes nothing (`complete`).
   */
  private async appliquer(housingRequestId: string, voulues: string[] | null, une: string | null, managerId: string, trx: Db) {
    const { repository, journal } = this.deps;
    const toutes = new Map((await repository.liste(trx)).map((e) => [e.id, e.nom]));
    const cible = voulues ?? [une!];
    if (cible.some((id) => !toutes.has(id))) throw introuvable();
    await repository.verrouiller(housingRequestId, trx);
    const actuelles = await repository.deDemande(housingRequestId, trx);
    const ajoutees = cible.filter((id) => !actuelles.includes(id));
    const retirees = voulues ? actuelles.filter((id) => !voulues.includes(id)) : [];
    // `voulues` holds at most the limit (PUT's schema); one more on a request already full skips it.
    if (!voulues && ajoutees.length > 0 && actuelles.length >= ETIQUETTES_PAR_DEMANDE_MAX) return { ajoutees: [], retirees: [], complete: true };
    if (ajoutees.length + retirees.length === 0) return { ajoutees, retirees, complete: false };
    const le = this.deps.now().toISOString();
    await repository.poser(housingRequestId, ajoutees, managerId, le, trx);
    await repository.retirer(housingRequestId, retirees, trx);
    const noms = (ids: string[]) => ids.map((id) => `« ${toutes.get(id) ?? '?'} »`).join(', ');
    const detail = [ajoutees.length ? `ajoutée : ${noms(ajoutees)}` : '', retirees.length ? `retirée : ${noms(retirees)}` : ''].filter(Boolean).join(' ; ');
    await journal.journaliser({ housingRequestId, acteurUserId: managerId, action: 'etiquettes', detail, le }, trx);
    return { ajoutees, retirees, complete: false };
  }
}
