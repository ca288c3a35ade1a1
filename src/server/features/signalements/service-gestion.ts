import type { FastifyBaseLogger } from 'fastify';
import { MESSAGES } from '../../../domain/erreurs.js';
import { compacter, foldForSearch } from '../../../domain/normalise.js';
import {
  codeDeCategorie,
  type CategorieGestion,
  type EtatSignalement,
  type EvenementSignalement,
  type ModificationCategorie,
  type Moderation,
  type NoteSignalement,
  type NouvelleCategorie,
} from '../../../domain/signalements.js';
import type { Db } from '../../db/index.js';
import type { SignalementCategorieRow, SignalementRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { SignalementsRepository } from './repository.js';
import type { GestionSignalementsRepository } from './repository-gestion.js';

const categorieIntrouvable = () => new ApiError(404, 'NOT_FOUND', 'Cette catégorie n’existe pas.');
const memeNom = () => new ApiError(409, 'DUPLICATE', 'Une catégorie porte déjà ce nom.', { libelle: 'Une catégorie porte déjà ce nom.' });

/** A category as admins see it. */
export function categorieGestion(c: SignalementCategorieRow & { signalements: number }): CategorieGestion {
  return { code: c.code, libelle: c.libelle, description: c.description, emailService: c.emailService, active: c.active === 1, rang: c.rang, signalements: c.signalements };
}

/**
 * The managers' acts on technical reports besides public updates (those go through SignalementsService
 * .publierMiseAJour): private notes, moderation (each act logged: who, when, what, why), and the admins'
 * categories. Each is one transaction; the live event follows the commit.
 */
export class GestionSignalementsService {
  constructor(
    private readonly deps: {
      repository: SignalementsRepository;
      gestion: GestionSignalementsRepository;
      bus: EventBus;
      now: () => Date;
    },
  ) {}

  private async publier(event: EvenementSignalement, log: FastifyBaseLogger): Promise<void> {
    await this.deps.bus.publishSignalement(event).catch((error: unknown) => log.error({ err: error }, 'publication de l’événement du signalement impossible'));
  }

  /** A private note: managers only, never public, never e-mailed; the managers' stream hears that one was added (not its text). */
  async ajouterNote(row: SignalementRow, auteurUserId: string, texte: string, log: FastifyBaseLogger): Promise<NoteSignalement> {
    const le = this.deps.now().toISOString();
    const id = await this.deps.gestion.ajouterNote({ signalementId: row.id, auteurUserId, texte, le });
    await this.publier({ numero: row.numero, etat: row.etat as EtatSignalement, de: row.etat as EtatSignalement, date: le, quoi: 'note' }, log);
    const note = (await this.deps.gestion.notes(row.id)).find((n) => n.id === id)!;
    return note;
  }

  /**
   * Hides or shows again the title, the description, a photo or a public update, and logs it. Hiding what is hidden
   * (or showing what is shown) changes nothing and logs nothing: answers false. A photo or an update that is not the
   * report's: 404.
   */
  async moderer(row: SignalementRow, m: Moderation, acteurUserId: string, log: FastifyBaseLogger): Promise<boolean> {
    const { repository, gestion } = this.deps;
    const change = await repository.transaction(async (trx) => {
      const locked = await repository.pourModification(row.id, trx);
      if (!locked) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
      const voulu = m.masquer ? 1 : 0;
      let actuel: number;
      if (m.cible === 'titre') actuel = locked.titreMasque;
      else if (m.cible === 'description') actuel = locked.descriptionMasquee;
      else if (m.cible === 'photo') {
        const photo = await repository.photo(row.id, m.id!, trx);
        if (!photo) throw new ApiError(404, 'NOT_FOUND', 'Cette photo n’existe pas pour ce signalement.');
        actuel = photo.masquee;
      } else {
        const maj = (await repository.misesAJour(row.id, { avecMasquees: true }, trx)).find((u) => u.id === m.id);
        if (!maj) throw new ApiError(404, 'NOT_FOUND', 'Cette mise à jour n’existe pas pour ce signalement.');
        actuel = maj.masquee;
      }
      if (actuel === voulu) return false;
      if (m.cible === 'titre') await repository.moderer(row.id, { titre: m.masquer }, trx);
      else if (m.cible === 'description') await repository.moderer(row.id, { description: m.masquer }, trx);
      else if (m.cible === 'photo') await repository.masquerPhoto(row.id, m.id!, m.masquer, trx);
      else await repository.masquerMiseAJour(row.id, m.id!, m.masquer, trx);
      const dernier = await gestion.derniereModeration(row.id, trx);
      const le = new Date(Math.max(this.deps.now().getTime(), dernier === null ? 0 : Date.parse(dernier) + 1)).toISOString();
      await gestion.journaliserModeration(
        { signalementId: row.id, acteurUserId, action: m.masquer ? 'masquer' : 'afficher', cible: m.cible, cibleId: m.id ?? null, motif: m.motif ? m.motif : null, le },
        trx,
      );
      return true;
    });
    if (change) {
      // Public: what anyone sees of the report changed (its number and state only; nothing of what was hidden).
      await this.publier({ numero: row.numero, etat: row.etat as EtatSignalement, de: row.etat as EtatSignalement, date: this.deps.now().toISOString(), quoi: 'moderation' }, log);
    }
    return change;
  }

  // --- Categories (admins) ------------------------------------------------------------------------

  /** Two names that differ only by case, accents, spaces or punctuation are the same name (« Nids-de-poule », « nids de poule »). */
  private async verifierNom(libelle: string, sauf: string | null, trx: Db): Promise<void> {
    const cle = (nom: string) => compacter(foldForSearch(nom));
    if ((await this.deps.gestion.libelles(trx)).some((c) => c.code !== sauf && cle(c.libelle) === cle(libelle))) throw memeNom();
  }

  private async categorie(code: string): Promise<CategorieGestion> {
    const c = (await this.deps.gestion.categoriesAvecUsage()).find((x) => x.code === code);
    if (!c) throw categorieIntrouvable();
    return categorieGestion(c);
  }

  /** A new category: its code made from its name (`base`, else `base-2`…), unique; placed last unless `rang` is given. */
  async creerCategorie(input: NouvelleCategorie): Promise<CategorieGestion> {
    const { gestion } = this.deps;
    const code = await gestion.transaction(async (trx) => {
      await gestion.verrouillerCategories(trx);
      await this.verifierNom(input.libelle, null, trx);
      const base = codeDeCategorie(input.libelle);
      const pris = await gestion.codesCommencantPar(base, trx);
      let code = base;
      for (let i = 2; pris.has(code); i += 1) code = `${base}-${i}`;
      const rang = input.rang ?? (await gestion.rangMax(trx)) + 10;
      await gestion.creerCategorie({ code, libelle: input.libelle, description: input.description, emailService: input.emailService, active: input.active ? 1 : 0, rang }, trx);
      return code;
    });
    return this.categorie(code);
  }

  /** Renames, describes, routes (service e-mail), offers or withdraws, orders a category; its code never changes. */
  async modifierCategorie(code: string, input: ModificationCategorie): Promise<CategorieGestion> {
    const { gestion } = this.deps;
    await gestion.transaction(async (trx) => {
      await gestion.verrouillerCategories(trx);
      const actuelle = await gestion.categorie(code, trx);
      if (!actuelle) throw categorieIntrouvable();
      if (input.libelle !== undefined) await this.verifierNom(input.libelle, code, trx);
      if (input.active === false && actuelle.active === 1 && (await gestion.compterActives(trx)) <= 1) throw new ApiError(409, 'DERNIERE_CATEGORIE', MESSAGES.derniereCategorie);
      const set: Partial<Omit<SignalementCategorieRow, 'code'>> = {};
      if (input.libelle !== undefined) set.libelle = input.libelle;
      if (input.description !== undefined) set.description = input.description;
      if (input.emailService !== undefined) set.emailService = input.emailService;
      if (input.active !== undefined) set.active = input.active ? 1 : 0;
      if (input.rang !== undefined) set.rang = input.rang;
      await gestion.modifierCategorie(code, set, trx);
    });
    return this.categorie(code);
  }

  /** Deletes a category no report uses (409 CATEGORIE_UTILISEE otherwise: withdraw it instead), never the last one offered. */
  async supprimerCategorie(code: string): Promise<void> {
    const { gestion } = this.deps;
    await gestion.transaction(async (trx) => {
      await gestion.verrouillerCategories(trx);
      const actuelle = await gestion.categorie(code, trx);
      if (!actuelle) throw categorieIntrouvable();
      if (await gestion.categorieUtilisee(code, trx)) throw new ApiError(409, 'CATEGORIE_UTILISEE', MESSAGES.categorieUtilisee);
      if (actuelle.active === 1 && (await gestion.compterActives(trx)) <= 1) throw new ApiError(409, 'DERNIERE_CATEGORIE', MESSAGES.derniereCategorie);
      await gestion.supprimerCategorie(code, trx);
    });
  }
}
