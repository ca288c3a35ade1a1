import type archiverType from 'archiver';
import { ajouterMois } from '../../../domain/cycleDeVie.js';
import { normaliseEmail } from '../../../domain/normalise.js';
import type { Db, DbKind } from '../../db/index.js';
import type { UserRow } from '../../db/schema.js';
import type { Espace } from '../../storage/choix.js';
import type { Storage } from '../../storage/index.js';
import { ajouterFichier } from '../../storage/zip.js';

/**
 * The personal data that technical reports hold about a person (docs/produit.md « Données personnelles » and
 * « Signalements techniques »), for the three places that must know it beside the reports' own feature: the
 * deletion of an account, the account's export (« Télécharger mes données ») and the daily retention job
 * (demandes/cycleDeVie.ts). The SQL is written here rather than in features/signalements/repository.ts, which
 * another change owns; it touches only the columns listed below.
 *
 * What is personal in a report: its reporter's e-mail (`signalements.email`, for the follow-up), name (`nom`),
 * account (`owner_user_id`, and `auteur_user_id` of the reporter's public updates); its followers' and the
 * district alerts' e-mail addresses. The rest (category, title, description, point, state, photos stripped of
 * their metadata, public history) is public service data and stays.
 */

/**
 * The folder of DATA_DIR (STORAGE=disk) where the reports' photos are stored (storage/choix.ts: outside
 * `uploads`, which the housing requests' sweep empties of anything that is not a document; with STORAGE=s3, the
 * bucket's prefix of that name). The backup (src/server/cli/tables.ts) reads it; test/sauvegarde.test.ts checks
 * that the photos the app stores are found there.
 */
export const DOSSIER_PHOTOS_SIGNALEMENTS = 'photos-signalements' satisfies Espace;

/**
 * Retention. A closed report (`ouvert` = 0) whose last public update is older than this becomes anonymous: its
 * reporter's e-mail, name and account link are erased and its followers removed. A closed report rarely moves
 * again (only « Toujours pas résolu » on a resolved one, or the town hall); a year covers the works' guarantee
 * and a reopening, as CONSERVATION_MOIS does for housing requests.
 */
export const CONSERVATION_SIGNALANT_MOIS = 12;
/** A district alert never confirmed (double opt-in) is removed this many days after it was last asked for. */
export const ALERTE_NON_CONFIRMEE_JOURS = 30;

/** What an account's deletion did to the reports' data. */
export interface Detachement {
  /** Reports the account made, kept without their link to it and without the reporter's name. */
  signalements: number;
  /** Followings and district alert removed under the account's (confirmed) address. */
  suivis: number;
  alertes: number;
}

/**
 * Part of « Supprimer mon compte », inside its transaction: the account's reports stay (public service data)
 * without the account (`owner_user_id`, the reporter's updates' `auteur_user_id`) and without the reporter's
 * name; their e-mail stays, tied to the report for the follow-up, until the retention job erases it. The
 * followings and the district alert under the account's address are removed — only when the account confirmed
 * that address: otherwise nothing proves that the address is the account holder's, and anyone could stop
 * someone else's e-mails by signing up with their address and deleting the account.
 */
export async function detacherSignalementsDuCompte(trx: Db, user: Pick<UserRow, 'id' | 'email' | 'emailVerified'>): Promise<Detachement> {
  const gardes = await trx.updateTable('signalements').set({ ownerUserId: null, nom: '' }).where('ownerUserId', '=', user.id).executeTakeFirst();
  await trx.updateTable('signalementMisesAJour').set({ auteurUserId: null }).where('auteurUserId', '=', user.id).execute();
  let suivis = 0;
  let alertes = 0;
  if (adresseConfirmee(user)) {
    const email = normaliseEmail(user.email);
    suivis = Number((await trx.deleteFrom('signalementSuiveurs').where('email', '=', email).executeTakeFirst()).numDeletedRows);
    alertes = Number((await trx.deleteFrom('signalementAlertes').where('email', '=', email).executeTakeFirst()).numDeletedRows);
  }
  return { signalements: Number(gardes.numUpdatedRows), suivis, alertes };
}

/** better-auth's flag: a boolean on PostgreSQL, 0/1 on SQLite. */
const adresseConfirmee = (user: Pick<UserRow, 'emailVerified'>): boolean => Boolean(user.emailVerified);

/** One report as the export writes it, and the photo files to put beside it. */
interface SignalementExporte {
  dossier: string;
  json: Record<string, unknown>;
  photos: { storageKey: string; fichier: string; le: string }[];
}

/** What « Télécharger mes données » adds about technical reports. */
export interface DonneesSignalements {
  /** For compte.json. */
  compte: {
    signalements: string[];
    suivisDeSignalements: { numero: string; depuis: string }[];
    alerteDuQuartier: { demandeeLe: string; confirmeeLe: string | null } | null;
  };
  signalements: SignalementExporte[];
}

/**
 * The reports the account made (linked to it), each with every field the reporter gave (e-mail and name
 * included), its photos and its public history (with what moderation hid, flagged); the followings and the
 * district alert under the account's address when the account confirmed it (see detacherSignalementsDuCompte).
 */
export async function donneesSignalements(db: Db, user: Pick<UserRow, 'id' | 'email' | 'emailVerified'>): Promise<DonneesSignalements> {
  const rows = await db
    .selectFrom('signalements as s')
    .leftJoin('signalements as o', 'o.id', 's.doublonDe')
    .selectAll('s')
    .select('o.numero as doublonDeNumero')
    .where('s.ownerUserId', '=', user.id)
    .orderBy('s.creeLe')
    .orderBy('s.id')
    .execute();
  const signalements: SignalementExporte[] = [];
  for (const row of rows) {
    const dossier = `signalement-${row.numero}/`;
    const photos = await db.selectFrom('signalementPhotos').selectAll().where('signalementId', '=', row.id).orderBy('creeLe').orderBy('id').execute();
    const historique = await db.selectFrom('signalementMisesAJour').selectAll().where('signalementId', '=', row.id).orderBy('le').orderBy('id').execute();
    const fichiers = photos.map((p, i) => ({ storageKey: p.storageKey, fichier: `photos/photo-${i + 1}.jpg`, le: p.creeLe }));
    signalements.push({
      dossier,
      photos: fichiers,
      json: {
        numero: row.numero,
        categorie: row.categorie,
        titre: row.titre,
        description: row.description,
        position: { lat: row.lat, lon: row.lon },
        adresse: row.adresse,
        email: row.email,
        nom: row.nom,
        nomMasque: row.nomMasque === 1,
        etat: row.etat,
        doublonDe: row.doublonDeNumero,
        creeLe: row.creeLe,
        misAJourLe: row.misAJourLe,
        titreMasque: row.titreMasque === 1,
        descriptionMasquee: row.descriptionMasquee === 1,
        photos: photos.map((p, i) => ({ fichier: fichiers[i]!.fichier, largeur: p.largeur, hauteur: p.hauteur, taille: p.taille, masquee: p.masquee === 1, ajouteeLe: p.creeLe })),
        historique: historique.map((m) => ({ le: m.le, etat: m.etat, etatPrecedent: m.etatPrecedent, texte: m.texte, par: m.par, masquee: m.masquee === 1 })),
      },
    });
  }
  let suivis: DonneesSignalements['compte']['suivisDeSignalements'] = [];
  let alerte: DonneesSignalements['compte']['alerteDuQuartier'] = null;
  if (adresseConfirmee(user)) {
    const email = normaliseEmail(user.email);
    suivis = (
      await db
        .selectFrom('signalementSuiveurs as f')
        .innerJoin('signalements as s', 's.id', 'f.signalementId')
        .select(['s.numero', 'f.creeLe'])
        .where('f.email', '=', email)
        .orderBy('f.creeLe')
        .orderBy('s.numero')
        .execute()
    ).map((f) => ({ numero: f.numero, depuis: f.creeLe }));
    const a = await db.selectFrom('signalementAlertes').select(['creeLe', 'confirmeLe']).where('email', '=', email).executeTakeFirst();
    if (a) alerte = { demandeeLe: a.creeLe, confirmeeLe: a.confirmeLe };
  }
  return {
    compte: { signalements: signalements.map((s) => `${s.dossier}signalement.json`), suivisDeSignalements: suivis, alerteDuQuartier: alerte },
    signalements,
  };
}

/** Appends each report's signalement.json and photos to the export's zip. */
export function ajouterSignalements(archive: archiverType.Archiver, photos: Storage, donnees: DonneesSignalements): void {
  for (const s of donnees.signalements) {
    archive.append(JSON.stringify(s.json, null, 2), { name: `${s.dossier}signalement.json` });
    for (const p of s.photos) ajouterFichier(archive, photos, p.storageKey, { name: `${s.dossier}${p.fichier}`, date: new Date(p.le) });
  }
}

/** What one run of the retention did. */
export interface BilanSignalements {
  /** Closed reports made anonymous (e-mail, name, account link erased). */
  signalementsAnonymises: number;
  /** Followers removed from reports closed past the retention. */
  suivisSupprimes: number;
  /** District alerts never confirmed, removed. */
  alertesNonConfirmees: number;
}

/** Reports read at once; each batch is then one short transaction. */
const LOT = 500;

/**
 * The reports' retention, a step of the daily job (demandes/cycleDeVie.ts): see CONSERVATION_SIGNALANT_MOIS and
 * ALERTE_NON_CONFIRMEE_JOURS. By batches of LOT reports, each batch one short transaction that checks the
 * condition again under a lock (a report reopened in between is left alone). Idempotent. `continuer` answers false when
 * the job must stop (the app closes), and extends the job's lease between batches.
 */
export async function conserverSignalements(db: Db, kind: DbKind, now: Date, continuer: () => Promise<boolean>): Promise<BilanSignalements> {
  const avant = ajouterMois(now.toISOString(), -CONSERVATION_SIGNALANT_MOIS);
  const bilan: BilanSignalements = { signalementsAnonymises: 0, suivisSupprimes: 0, alertesNonConfirmees: 0 };
  let apres = '';
  for (;;) {
    if (!(await continuer())) return bilan;
    const ids = (
      await db
        .selectFrom('signalements')
        .select('id')
        .where('ouvert', '=', 0)
        .where('misAJourLe', '<', avant)
        .where('id', '>', apres)
        .where((eb) =>
          eb.or([
            eb('email', '<>', ''),
            eb('nom', '<>', ''),
            eb('ownerUserId', 'is not', null),
            eb.exists(eb.selectFrom('signalementSuiveurs as f').select('f.id').whereRef('f.signalementId', '=', 'signalements.id')),
          ]),
        )
        .orderBy('id')
        .limit(LOT)
        .execute()
    ).map((r) => r.id);
    if (ids.length === 0) break;
    await db.transaction().execute(async (trx) => {
      // Checked again and locked (PostgreSQL; SQLite writes one transaction at a time): a report reopened since
      // the batch was read keeps its data, and cannot reopen before this transaction ends.
      let verrou = trx.selectFrom('signalements').select('id').where('id', 'in', ids).where('ouvert', '=', 0).where('misAJourLe', '<', avant);
      if (kind === 'postgres') verrou = verrou.forUpdate();
      const expires = (await verrou.execute()).map((r) => r.id);
      if (expires.length === 0) return;
      const suivis = await trx.deleteFrom('signalementSuiveurs').where('signalementId', 'in', expires).executeTakeFirst();
      await trx.updateTable('signalementMisesAJour').set({ auteurUserId: null }).where('signalementId', 'in', expires).where('par', '=', 'signalant').where('auteurUserId', 'is not', null).execute();
      const anonymes = await trx
        .updateTable('signalements')
        .set({ email: '', nom: '', ownerUserId: null })
        .where('id', 'in', expires)
        .where((eb) => eb.or([eb('email', '<>', ''), eb('nom', '<>', ''), eb('ownerUserId', 'is not', null)]))
        .executeTakeFirst();
      bilan.suivisSupprimes += Number(suivis.numDeletedRows);
      bilan.signalementsAnonymises += Number(anonymes.numUpdatedRows);
    });
    if (ids.length < LOT) break;
    apres = ids.at(-1)!;
  }
  const limite = new Date(now.getTime() - ALERTE_NON_CONFIRMEE_JOURS * 86_400_000).toISOString();
  const alertes = await db.deleteFrom('signalementAlertes').where('confirmeLe', 'is', null).where('creeLe', '<', limite).executeTakeFirst();
  bilan.alertesNonConfirmees = Number(alertes.numDeletedRows);
  return bilan;
}
