import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { MESSAGES } from '../../../domain/erreurs.js';
import { dansPolygone, type Polygone } from '../../../domain/geometrie.js';
import {
  anneeDuNumero,
  ETAT_REOUVERTURE,
  ETAT_SIGNALEMENT_LIBELLES,
  estOuvert,
  formatNumeroSignalement,
  HORS_PERIMETRE,
  photosOuvertes,
  PHOTO_DELAI_MS,
  PHOTOS_MAX,
  rangEtat,
  type Desabonnement,
  type EtatSignalement,
  type EvenementSignalement,
  type NouveauSignalement,
} from '../../../domain/signalements.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { SignalementCategorieRow, SignalementPhotoRow, SignalementRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import type { Storage } from '../../storage/index.js';
import { hashAccessKey, newAccessKey } from '../demandes/access.js';
import {
  lienConfirmationAlerte,
  lienDeSuivi,
  lienDesabonnement,
  mailAlerteNouveauSignalement,
  mailConfirmationAlerte,
  mailEtatService,
  mailMiseAJour,
  mailSignalementEnregistre,
  mailSignalementService,
  mailSuiviConfirme,
  mailToujoursPasResoluService,
  pageDuSignalement,
} from './mails.js';
import type { PhotoPreparee } from './photos.js';
import type { SignalementsRepository } from './repository.js';

/** An unconfirmed alert's confirmation is sent again at most this often for one address. */
export const RENVOI_CONFIRMATION_MS = 10 * 60_000;

/** What a public update changes: a state (with the original of a duplicate), a text, or both. */
export interface Changement {
  etat?: EtatSignalement;
  /** The original's number, with `etat` « doublon ». */
  doublonDe?: string;
  texte?: string | null;
  par: 'mairie' | 'signalant';
  auteurUserId?: string | null;
}

/** Options of a public update: a check on the locked report, who not to e-mail, whether the service hears of it. */
export interface OptionsChangement {
  /** Runs on the report as locked in the transaction; throws to refuse the change. */
  verifier?: (row: SignalementRow) => void;
  /** An address that made the change and is not e-mailed about it. */
  sauf?: string;
  /** The category's service is e-mailed that the reporter reopened the report. */
  prevenirServiceReouverture?: boolean;
}

/**
 * When a manager's change of state e-mails the category's service (it already received the report at its creation):
 * the town hall confirms it — from « Nouveau » to an open state — or reopens a closed one. Not for the service's own
 * steps (planifié, en cours, résolu) nor for a closing.
 */
export function motifService(avant: EtatSignalement, etat: EtatSignalement | null): 'confirmation' | 'reouverture' | null {
  if (etat === null || !estOuvert(etat)) return null;
  if (avant === 'nouveau' && etat !== 'nouveau') return 'confirmation';
  return estOuvert(avant) ? null : 'reouverture';
}

const sha256 = (texte: string) => createHash('sha256').update(texte, 'utf8').digest('hex');

/**
 * State changes of technical reports (docs/produit.md « Signalements techniques »). Each is one transaction that
 * also queues its e-mails in the durable outbox (src/server/mail): the reporter's, the category service's,
 * the followers' and the district alerts' — so a mail exists if and only if what it tells is committed. The
 * live event (the bus's « signalement » topic) follows the commit.
 *
 * The links that stop a follow-up or an alert carry a token derived from the row's id with the server's secret
 * (HMAC-SHA-256): every mail to one follower carries the same link, while the database keeps only the token's
 * SHA-256 (a copy of the database cannot unsubscribe anybody).
 */
export class SignalementsService {
  constructor(
    private readonly deps: {
      repository: SignalementsRepository;
      storage: Storage;
      mailer: Mailer;
      bus: EventBus;
      config: Pick<Config, 'publicUrl'>;
      /** The server's secret (AUTH_SECRET or the generated one), for the unsubscribe links' tokens. */
      secret: string;
      /** The district's boundary: points outside are refused. */
      perimetre: Polygone;
      now: () => Date;
    },
  ) {}

  private get repository(): SignalementsRepository {
    return this.deps.repository;
  }

  /** The token of a follower's or an alert's links: stable for the row, unguessable without the secret. */
  jeton(quoi: 'suivi' | 'alerte', id: string): string {
    return createHmac('sha256', this.deps.secret).update(`signalement-${quoi}:${id}`, 'utf8').digest('base64url');
  }

  private page(numero: string): string {
    return pageDuSignalement(this.deps.config.publicUrl, numero);
  }

  private desabonnement(quoi: 'suivi' | 'alerte', id: string): string {
    return lienDesabonnement(this.deps.config.publicUrl, this.jeton(quoi, id));
  }

  private async publier(event: EvenementSignalement, log: FastifyBaseLogger): Promise<void> {
    await this.deps.bus.publishSignalement(event).catch((error: unknown) => log.error({ err: error }, 'publication de l’événement du signalement impossible'));
  }

  /** The category a new report may use, or 400 CATEGORIE_INCONNUE; in `trx`, kept from deletion until it ends. */
  private async categorieActive(code: string, trx?: Db): Promise<SignalementCategorieRow> {
    const categorie = trx ? await this.repository.categoriePartagee(code, trx) : await this.repository.categorie(code);
    if (!categorie || categorie.active !== 1) {
      const message = 'Cette catégorie n’existe pas ou n’est plus proposée : choisissez-en une dans la liste.';
      throw new ApiError(400, 'CATEGORIE_INCONNUE', message, { categorie: message });
    }
    return categorie;
  }

  /**
   * Records a new report: its number (`2026-00042`, allocated in the transaction), its first public step
   * (« nouveau »), its reporter as its first follower, and the e-mails: the reporter's (follow link, once), the
   * category's service (if it has an address), and each confirmed district alert but the reporter's own.
   * Answers the row and, once only, the private key of the follow link. `origine.open311CleId`: the Open311 API key
   * the report was posted with (features/open311), kept on the report for the managers.
   */
  async creer(
    input: NouveauSignalement,
    ownerUserId: string | null,
    log: FastifyBaseLogger,
    origine: { open311CleId?: string } = {},
  ): Promise<{ row: SignalementRow; cle: string }> {
    if (!dansPolygone(input, this.deps.perimetre)) throw new ApiError(400, 'HORS_PERIMETRE', HORS_PERIMETRE, { lat: HORS_PERIMETRE, lon: HORS_PERIMETRE });
    await this.categorieActive(input.categorie);
    const { mailer, config } = this.deps;
    const cle = newAccessKey();
    const row = await this.repository.transaction(async (trx) => {
      // Read again under lock: an admin may have withdrawn or deleted it since.
      const categorie = await this.categorieActive(input.categorie, trx);
      const maintenant = this.deps.now();
      const le = maintenant.toISOString();
      const annee = anneeDuNumero(maintenant);
      const numero = formatNumeroSignalement(annee, await this.repository.allouerRang(annee, trx));
      const cree = await this.repository.inserer(
        {
          id: randomUUID(),
          numero,
          categorie: categorie.code,
          titre: input.titre,
          description: input.description,
          lat: input.lat,
          lon: input.lon,
          adresse: input.adresse,
          email: input.email,
          nom: input.nom,
          nomMasque: input.nomMasque ? 1 : 0,
          etat: 'nouveau',
          ouvert: 1,
          doublonDe: null,
          accessKeyHash: hashAccessKey(cle),
          ownerUserId,
          creeLe: le,
          misAJourLe: le,
          titreMasque: 0,
          descriptionMasquee: 0,
          open311CleId: origine.open311CleId ?? null,
        },
        trx,
      );
      await this.repository.ajouterMiseAJour({ id: randomUUID(), signalementId: cree.id, le, etat: 'nouveau', etatPrecedent: null, texte: null, par: 'signalant', auteurUserId: ownerUserId, masquee: 0 }, trx);
      const suiveurId = randomUUID();
      await this.repository.ajouterSuiveur({ id: suiveurId, signalementId: cree.id, email: cree.email, jetonHash: sha256(this.jeton('suivi', suiveurId)), creeLe: le }, trx);
      await mailer.enqueue(mailSignalementEnregistre(cree, categorie, lienDeSuivi(config.publicUrl, numero, cle), this.desabonnement('suivi', suiveurId)), { trx });
      if (categorie.emailService) await mailer.enqueue(mailSignalementService(cree, categorie, this.page(numero), categorie.emailService), { trx });
      for (const alerte of await this.repository.alertesConfirmees(trx)) {
        if (alerte.email === cree.email) continue;
        await mailer.enqueue(mailAlerteNouveauSignalement(cree, categorie, this.page(numero), this.desabonnement('alerte', alerte.id), alerte.email), { trx });
      }
      return cree;
    });
    await this.publier({ numero: row.numero, etat: 'nouveau', de: null, date: row.creeLe }, log);
    return { row, cle };
  }

  /** Why photos may not be added now, as the error to answer, or null (checked before the photo is read, and again with it). */
  refusPhoto(row: Pick<SignalementRow, 'etat' | 'creeLe'>, nbPhotos: number): ApiError | null {
    if (nbPhotos >= PHOTOS_MAX) {
      return new ApiError(413, 'PHOTOS_MAX_ATTEINT', `Ce signalement a déjà ${PHOTOS_MAX} photos, le maximum : aucune autre ne peut être ajoutée.`);
    }
    if (!photosOuvertes(row as { etat: EtatSignalement; creeLe: string }, nbPhotos, this.deps.now())) {
      return new ApiError(
        409,
        'PHOTOS_FERMEES',
        `Les photos s’ajoutent dans l’heure qui suit le signalement (${PHOTO_DELAI_MS / 60_000} minutes), ou tant que la mairie ne l’a pas examiné. Ce n’est plus le cas pour celui-ci.`,
      );
    }
    return null;
  }

  /**
   * Stores a prepared photo (photos.ts), then records it: the report locked, its photos counted again (two
   * uploads at once cannot pass PHOTOS_MAX together). If the record fails, the stored file is removed.
   */
  async ajouterPhoto(row: SignalementRow, photo: PhotoPreparee, log: FastifyBaseLogger): Promise<SignalementPhotoRow> {
    const { storage } = this.deps;
    const id = randomUUID();
    const storageKey = `${row.id}/${id}.jpg`;
    const temp = storage.createTemp();
    temp.stream.end(photo.data);
    try {
      await temp.commit(storageKey);
    } catch (error) {
      await temp.discard();
      throw error;
    }
    let enregistree: SignalementPhotoRow;
    let etat: EtatSignalement;
    try {
      enregistree = await this.repository.transaction(async (trx) => {
        const locked = await this.repository.pourModification(row.id, trx);
        if (!locked) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
        const refus = this.refusPhoto(locked, await this.repository.compterPhotos(row.id, trx));
        if (refus) throw refus;
        const le = this.deps.now().toISOString();
        const ligne: SignalementPhotoRow = { id, signalementId: row.id, storageKey, largeur: photo.largeur, hauteur: photo.hauteur, taille: photo.data.length, masquee: 0, creeLe: le };
        await this.repository.ajouterPhoto(ligne, trx);
        await this.repository.toucher(row.id, le, trx);
        etat = locked.etat as EtatSignalement;
        return ligne;
      });
    } catch (error) {
      await storage.remove(storageKey).catch((e: unknown) => log.error({ err: e, storageKey }, 'photo non enregistrée et non supprimée'));
      throw error;
    }
    await this.publier({ numero: row.numero, etat: etat!, de: etat!, date: enregistree.creeLe, quoi: 'photo' }, log);
    return enregistree;
  }

  /**
   * A public update (the managers' state changes and texts, « Toujours pas résolu »): in one transaction, the
   * report locked, the change checked (`options.verifier`), the state and its history step, and an e-mail to
   * each follower (but `options.sauf`) — and to the category's service when the change asks for its action
   * (motifService). Setting the current state again without a text changes nothing and tells no one (« doublon »
   * again with another original is a change). A duplicate's followers move to the original (they are told in this
   * update's mail), and so do the reports that were duplicates of it: an original is never itself a duplicate.
   * Steps of one report are strictly ordered in time.
   */
  async publierMiseAJour(signalementId: string, changement: Changement, log: FastifyBaseLogger, options: OptionsChangement = {}): Promise<SignalementRow> {
    const { mailer } = this.deps;
    const texte = changement.texte?.trim() ? changement.texte.trim() : null;
    const resultat = await this.repository.transaction(async (trx) => {
      const row = await this.verrouiller(signalementId, changement, trx);
      if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
      options.verifier?.(row);
      const avant = row.etat as EtatSignalement;
      const original = changement.etat === 'doublon' ? await this.original(row, changement.doublonDe, trx) : null;
      const autreOriginal = original !== null && avant === 'doublon' && original.id !== row.doublonDe;
      const etat = changement.etat !== undefined && (changement.etat !== avant || autreOriginal) ? changement.etat : null;
      if (etat === null && texte === null) return { row, avant, etat };
      const dernier = await this.repository.derniereMiseAJour(row.id, trx);
      const le = new Date(Math.max(this.deps.now().getTime(), dernier === null ? 0 : Date.parse(dernier) + 1)).toISOString();
      if (etat !== null) await this.repository.changerEtat(row.id, etat, le, trx, original?.id ?? null);
      else await this.repository.toucher(row.id, le, trx);
      await this.repository.ajouterMiseAJour(
        { id: randomUUID(), signalementId: row.id, le, etat, etatPrecedent: etat === null ? null : avant, texte, par: changement.par, auteurUserId: changement.auteurUserId ?? null, masquee: 0 },
        trx,
      );
      const fusion = etat === 'doublon' ? original : null;
      const apres: SignalementRow = {
        ...row,
        etat: etat ?? avant,
        ouvert: estOuvert(etat ?? avant) ? 1 : 0,
        etatRang: rangEtat(etat ?? avant),
        doublonDe: etat === 'doublon' ? (fusion?.id ?? null) : etat === null ? row.doublonDe : null,
        misAJourLe: le,
      };
      const page = this.page(row.numero);
      const pageOriginal = fusion ? this.page(fusion.numero) : null;
      for (const suiveur of await this.repository.suiveurs(row.id, trx)) {
        if (suiveur.email === options.sauf) continue;
        await mailer.enqueue(mailMiseAJour(apres, { etat, texte, par: changement.par }, pageOriginal, page, this.desabonnement('suivi', suiveur.id), suiveur.email), { trx });
      }
      if (fusion) {
        await this.repository.transfererSuiveurs(row.id, fusion.id, trx);
        await this.repository.reporterDoublons(row.id, fusion.id, trx);
      }
      const motif = options.prevenirServiceReouverture ? 'toujours-pas-resolu' : changement.par === 'mairie' ? motifService(avant, etat) : null;
      if (motif) {
        const categorie = await this.repository.categorie(row.categorie, trx);
        const to = categorie?.emailService;
        if (categorie && to) {
          await mailer.enqueue(
            motif === 'toujours-pas-resolu' ? mailToujoursPasResoluService(apres, categorie, texte, page, to) : mailEtatService(apres, categorie, { motif, avant, texte }, page, to),
            { trx },
          );
        }
      }
      return { row: apres, avant, etat };
    });
    const { row, avant, etat } = resultat;
    if (etat !== null || texte !== null) {
      await this.publier({ numero: row.numero, etat: row.etat as EtatSignalement, de: avant, date: row.misAJourLe, ...(etat === null ? { quoi: 'mise-a-jour' as const } : {}) }, log);
    }
    return row;
  }

  /**
   * The report locked until the transaction ends (PostgreSQL) and, when it becomes a duplicate, its original too, the
   * two in the order of their ids: two managers making A and B each other's duplicate at once (or Z a duplicate of A
   * while A becomes one of B) would each read the other report before the other's change, and a loop or a chain would
   * form. Locked, the later waits for the earlier and then reads its change (`original` refuses it).
   */
  private async verrouiller(signalementId: string, changement: Changement, trx: Db): Promise<SignalementRow | undefined> {
    const autre = changement.etat === 'doublon' && changement.doublonDe ? (await this.repository.parNumero(changement.doublonDe, trx))?.id : undefined;
    if (autre === undefined || autre === signalementId) return this.repository.pourModification(signalementId, trx);
    const [premier, second] = autre < signalementId ? [autre, signalementId] : [signalementId, autre];
    const lus = [await this.repository.pourModification(premier, trx), await this.repository.pourModification(second, trx)];
    return lus.find((l) => l?.id === signalementId);
  }

  /**
   * The original of a duplicate, by its number: another report, itself no duplicate (so that no chain, and no
   * loop, ever forms); else 400 VALIDATION with `fields.doublonDe`, saying which report to name instead.
   */
  private async original(row: SignalementRow, numero: string | undefined, trx: Db): Promise<SignalementRow> {
    const refus = (message: string) => new ApiError(400, 'VALIDATION', message, { doublonDe: message });
    if (!numero) throw refus('Indiquez le numéro du signalement d’origine.');
    const original = await this.repository.parNumero(numero, trx);
    if (!original) throw refus(`Il n’existe pas de signalement n° ${numero} : vérifiez le numéro du signalement d’origine.`);
    if (original.id === row.id) throw refus('Un signalement ne peut pas être le doublon de lui-même : indiquez le numéro d’un autre signalement.');
    if (original.etat === 'doublon') {
      if (original.doublonDe === row.id) {
        throw refus(`Le signalement n° ${original.numero} est lui-même un doublon de celui-ci : les relier dans l’autre sens ferait une boucle. Rouvrez d’abord n° ${original.numero} si c’est lui l’original.`);
      }
      const premier = original.doublonDe ? await this.repository.parId(original.doublonDe, trx) : undefined;
      throw refus(
        premier
          ? `Le signalement n° ${original.numero} est lui-même un doublon de n° ${premier.numero} : indiquez n° ${premier.numero}.`
          : `Le signalement n° ${original.numero} est lui-même un doublon : indiquez son signalement d’origine.`,
      );
    }
    return original;
  }

  /**
   * « Toujours pas résolu »: the reporter reopens a resolved report (ETAT_REOUVERTURE), with an optional text.
   * Only from « résolu » (409 ETAT_INCOMPATIBLE otherwise); the followers and the category's service are told.
   */
  toujoursPasResolu(row: SignalementRow, texte: string, log: FastifyBaseLogger): Promise<SignalementRow> {
    return this.publierMiseAJour(row.id, { etat: ETAT_REOUVERTURE, texte, par: 'signalant', auteurUserId: null }, log, {
      sauf: row.email,
      prevenirServiceReouverture: true,
      verifier: (locked) => {
        if (locked.etat !== 'resolu') {
          throw new ApiError(
            409,
            'ETAT_INCOMPATIBLE',
            `«\u00a0Toujours pas résolu\u00a0» ne s’emploie que pour un signalement que la mairie a déclaré résolu. Celui-ci est : ${ETAT_SIGNALEMENT_LIBELLES[locked.etat as EtatSignalement] ?? locked.etat}.`,
          );
        }
      },
    });
  }

  /**
   * Adds a follower (« Suivre ce signalement », « C’est le même problème »). A new follower gets an e-mail that
   * says so, with the link to stop; an address that already follows changes nothing and gets nothing (the
   * answer is the same either way: it does not tell who follows what).
   */
  async suivre(row: SignalementRow, email: string): Promise<void> {
    const id = randomUUID();
    await this.repository.transaction(async (trx) => {
      // A duplicate's news are its original's (its followers moved there when it was marked): following one follows
      // the original. Locked, so that a follow and the marking never cross (PostgreSQL).
      let suivi = (await this.repository.pourModification(row.id, trx)) ?? row;
      if (suivi.etat === 'doublon' && suivi.doublonDe) suivi = (await this.repository.pourModification(suivi.doublonDe, trx)) ?? suivi;
      const nouveau = await this.repository.ajouterSuiveur({ id, signalementId: suivi.id, email, jetonHash: sha256(this.jeton('suivi', id)), creeLe: this.deps.now().toISOString() }, trx);
      if (nouveau) await this.deps.mailer.enqueue(mailSuiviConfirme(suivi, this.page(suivi.numero), this.desabonnement('suivi', id), email), { trx });
    });
  }

  /** Stops a follow-up or an alert from its e-mailed link's token; 404 when the link is not (or no longer) valid. */
  async desabonner(jeton: string): Promise<Desabonnement> {
    const abonnement = await this.repository.abonnement(sha256(jeton));
    if (!abonnement) throw new ApiError(404, 'NOT_FOUND', MESSAGES.lienDesabonnementInvalide);
    await this.repository.supprimerAbonnement(abonnement);
    return { quoi: abonnement.quoi, numero: abonnement.quoi === 'suivi' ? abonnement.numero : null };
  }

  /**
   * Asks for the district's alert (double opt-in): a new address gets a confirmation link; an unconfirmed one
   * gets it again at most every RENVOI_CONFIRMATION_MS; a confirmed one nothing. The answer is the same in
   * every case.
   */
  async demanderAlerte(email: string): Promise<void> {
    const { mailer, config } = this.deps;
    const maintenant = this.deps.now();
    await this.repository.transaction(async (trx) => {
      const existante = await this.repository.alerteParEmail(email, trx);
      if (existante) {
        if (existante.confirmeLe !== null || maintenant.getTime() - Date.parse(existante.creeLe) < RENVOI_CONFIRMATION_MS) return;
        await this.repository.redaterAlerte(existante.id, maintenant.toISOString(), trx);
        await mailer.enqueue(mailConfirmationAlerte(lienConfirmationAlerte(config.publicUrl, this.jeton('alerte', existante.id)), email), { trx });
        return;
      }
      const id = randomUUID();
      if (await this.repository.ajouterAlerte({ id, email, jetonHash: sha256(this.jeton('alerte', id)), confirmeLe: null, creeLe: maintenant.toISOString() }, trx)) {
        await mailer.enqueue(mailConfirmationAlerte(lienConfirmationAlerte(config.publicUrl, this.jeton('alerte', id)), email), { trx });
      }
    });
  }

  /** Confirms an alert from its e-mailed link (confirming twice answers the same); 404 when the link is not valid. */
  async confirmerAlerte(jeton: string): Promise<void> {
    const abonnement = await this.repository.abonnement(sha256(jeton));
    if (!abonnement || abonnement.quoi !== 'alerte') {
      throw new ApiError(404, 'NOT_FOUND', 'Ce lien de confirmation n’est pas (ou plus) valable : l’alerte a peut-être été arrêtée depuis. Demandez-la de nouveau.');
    }
    if (abonnement.confirmeLe === null) await this.repository.confirmerAlerte(abonnement.id, this.deps.now().toISOString());
  }
}
