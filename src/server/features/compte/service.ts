import { fromNodeHeaders } from 'better-auth/node';
import type { IncomingHttpHeaders } from 'node:http';
import { isVisibilite, MOT_DE_PASSE_COURANT, VISIBILITE_DEFAUT, type Inscription, type ModificationProfil } from '../../../domain/compte.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { AuthALaDemande } from '../../auth/a-la-demande.js';
import { isCommonPassword } from '../../auth/courant.js';
import type { AccountThrottle } from '../../auth/throttle.js';
import type { Mailer } from '../../mail/index.js';
import type { Storage } from '../../storage/index.js';
import { gardeErreurDeStockage } from '../../db/pannes.js';
import type { UserRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { placeSlugs, type CompteRepository } from './repository.js';
import { avatarKey } from './avatar.js';
import { detacherSignalementsDuCompte } from './donnees-signalements.js';
import { mailCompteSupprime } from './mails.js';
import { DEFAULT_PIC, pictureVersion, type Regard } from './vues.js';

const EMAIL_TAKEN = 'Un compte existe déjà avec cette adresse e-mail. Connectez-vous, ou choisissez « Mot de passe oublié ».';
const RUE_INCONNUE = 'Choisissez votre rue dans la liste.';
const MOT_DE_PASSE_INCORRECT = 'Mot de passe incorrect. Saisissez le mot de passe de votre compte pour confirmer la suppression.';
export const MESSAGE_ROLE_PROTEGE =
  "Un compte de gestionnaire ou d’administrateur ne peut pas être supprimé ainsi : demandez à un administrateur de lui rendre le rôle d’habitant, puis recommencez.";

/** State changes of accounts. */
export class CompteService {
  constructor(
    private readonly deps: {
      repository: CompteRepository;
      auth: AuthALaDemande;
      rues: ReadonlySet<string>;
      mailer: Mailer;
      storage: Storage;
      throttle: AccountThrottle;
    },
  ) {}

  /**
   * « Supprimer mon compte »: a resident's own account, with its password when it has one. One transaction
   * deletes its rows (CompteRepository.supprimer), detaches its technical reports (detacherSignalementsDuCompte)
   * and queues the confirmation e-mail; the picture and the throttle rows go after. Managers and admins sign the status history: their account changes role first.
   */
  async supprimerCompte(uid: string, motDePasse: string | undefined): Promise<void> {
    const { repository, auth, mailer, storage, throttle } = this.deps;
    const user = await repository.findById(uid);
    if (!user) throw new ApiError(404, 'NOT_FOUND', MESSAGES.habitantIntrouvable);
    if (user.userType !== 'habitant') throw new ApiError(409, 'ROLE_PROTEGE', MESSAGE_ROLE_PROTEGE);
    const hash = await repository.passwordHash(uid);
    if (hash !== null) {
      if (!motDePasse || !(await auth.avec(async (betterAuth) => (await betterAuth.$context).password.verify({ hash, password: motDePasse })))) {
        throw new ApiError(403, 'INVALID_PASSWORD', MOT_DE_PASSE_INCORRECT, { motDePasse: 'Mot de passe incorrect.' });
      }
    }
    await repository.transaction(async (trx) => {
      // The technical reports first: they stay, without the account (compte/donnees-signalements.ts).
      const signalements = await detacherSignalementsDuCompte(trx, user);
      const kept = await repository.supprimer(uid, trx);
      // Another deletion of the account ended first (two tabs, a retry): it told the person; this one changes nothing.
      if (kept === null) throw new ApiError(404, 'NOT_FOUND', MESSAGES.habitantIntrouvable);
      await mailer.enqueue(mailCompteSupprime({ email: user.email, prenom: user.prenom }, kept, signalements), { trx });
    });
    const version = pictureVersion(user);
    if (version) await storage.remove(avatarKey(user.id, version)).catch(() => undefined);
    await Promise.all([throttle.forget('sign-in', user.email), throttle.forget('reset', user.email), throttle.forget('verification', user.email)]);
  }

  /**
   * Creates the account through better-auth (password hashing, session), then its profile and, after an
   * invitation, the mutual follow. Answers the new user and the session cookies to set.
   */
  async inscrire(input: Inscription, headers: IncomingHttpHeaders): Promise<{ user: UserRow; cookies: string[] }> {
    const { repository, auth, rues } = this.deps;
    if (!rues.has(input.rue)) throw new ApiError(400, 'VALIDATION', RUE_INCONNUE, { rue: RUE_INCONNUE });
    if (await isCommonPassword(input.password)) throw new ApiError(400, 'PASSWORD_TOO_COMMON', MOT_DE_PASSE_COURANT, { password: MOT_DE_PASSE_COURANT });

    let created: { headers: Headers; userId: string };
    try {
      // A full or read-only disk keeps its own error (better-auth reports any failed insert as its own).
      const { headers: answer, response } = await gardeErreurDeStockage(() =>
        auth.avec((betterAuth) =>
          betterAuth.api.signUpEmail({
            body: { name: `${input.prenom} ${input.nom}`, email: input.email, password: input.password, nom: input.nom, prenom: input.prenom },
            headers: fromNodeHeaders(headers),
            returnHeaders: true,
          }),
        ),
      );
      created = { headers: answer, userId: response.user.id };
    } catch (error) {
      const { APIError } = await import('better-auth/api');
      const code = error instanceof APIError ? String(error.body?.code ?? '') : '';
      // Two sign-ups with one address at once (PostgreSQL): both passed better-auth's check, the unique index refused
      // the later insert, which better-auth reports as a failed creation. The address is taken all the same.
      if (code.startsWith('USER_ALREADY_EXISTS') || (code === 'FAILED_TO_CREATE_USER' && (await repository.adressePrise(input.email)))) {
        throw new ApiError(409, 'EMAIL_TAKEN', EMAIL_TAKEN, { email: EMAIL_TAKEN });
      }
      throw error;
    }

    try {
      await repository.update(created.userId, {
        gender: input.gender,
        birthday: input.birthday,
        pays: input.pays,
        ville: input.ville,
        quartier: input.quartier,
        ...placeSlugs(input.ville, input.quartier),
        residence: input.residence,
        rue: input.rue,
        image: DEFAULT_PIC,
      });
      if (input.inviterUid) await repository.followEachOther(created.userId, input.inviterUid);
    } catch (error) {
      // A half-made account (say, the disk filled between the two writes) would answer « compte existant » to
      // the next try: it is undone, so that trying again later works. If even that fails, the error stays.
      await repository.supprimer(created.userId).catch(() => undefined);
      throw error;
    }
    return { user: (await repository.findById(created.userId))!, cookies: created.headers.getSetCookie() };
  }

  /** Names (already checked by profilSchema's rules) and the visibility choice; `name` follows the names. */
  async modifierProfil(uid: string, changes: ModificationProfil): Promise<UserRow> {
    const { repository } = this.deps;
    const current = await repository.findById(uid);
    if (!current) throw new ApiError(404, 'NOT_FOUND', MESSAGES.habitantIntrouvable);
    const nom = changes.nom ?? current.nom;
    const prenom = changes.prenom ?? current.prenom;
    await repository.update(uid, {
      nom,
      prenom,
      name: `${prenom} ${nom}`,
      ...(changes.visibilite ? { visibilite: changes.visibilite } : {}),
      updatedAt: new Date().toISOString(),
    });
    return (await repository.findById(uid))!;
  }

  /**
   * What `viewerId` (null: signed out) sees of `target`'s public profile and picture (docs/produit.md
   * « Comptes ») : the person themself, admins and their neighbours (follows either way) see the name and
   * picture; signed-in residents of the same quartier too when the person chose 'quartier'; anyone when
   * 'tous'. Everyone else sees the first name only. Managers have no right of their own here.
   */
  async regard(viewerId: string | null, target: UserRow): Promise<Regard> {
    const { repository } = this.deps;
    const visibilite = isVisibilite(target.visibilite) ? target.visibilite : VISIBILITE_DEFAUT;
    if (visibilite === 'tous' || viewerId === target.id) return 'complet';
    if (!viewerId) return 'prenom';
    const viewer = await repository.findById(viewerId);
    if (!viewer) return 'prenom';
    if (viewer.userType === 'admin') return 'complet';
    if (visibilite === 'quartier' && viewer.quartierSlug !== '' && viewer.quartierSlug === target.quartierSlug) return 'complet';
    return (await repository.areNeighbours(viewer.id, target.id)) ? 'complet' : 'prenom';
  }
}
