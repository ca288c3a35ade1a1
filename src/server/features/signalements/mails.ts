import { formatHorodatage } from '../../../domain/dates.js';
import { ETAT_SIGNALEMENT_EXPLICATIONS, ETAT_SIGNALEMENT_LIBELLES, type EtatSignalement } from '../../../domain/signalements.js';
import { salutation, type Mail } from '../../mail/index.js';
import type { SignalementCategorieRow, SignalementRow } from '../../db/schema.js';

/** The e-mails of technical reports (docs/produit.md « Signalements techniques »). */

export const SIGNATURE = 'Quartier Vivant — mairie annexe du Jas de Bouffan, Aix-en-Provence';

/** A report's public page (no key: anyone who reads the mail may open it). */
export const pageDuSignalement = (publicUrl: string, numero: string) => `${publicUrl}/technique/${encodeURIComponent(numero)}`;

/** The reporter's follow link: the page, its private key in the fragment (never sent to a server, a log or a Referer). */
export const lienDeSuivi = (publicUrl: string, numero: string, cle: string) => `${pageDuSignalement(publicUrl, numero)}#cle=${cle}`;

/** The page that stops a follow-up or an alert; the token in the fragment, posted by the page. */
export const lienDesabonnement = (publicUrl: string, jeton: string) => `${publicUrl}/technique/desabonnement#jeton=${jeton}`;

/** The page that confirms an alert (double opt-in); the token in the fragment, posted by the page. */
export const lienConfirmationAlerte = (publicUrl: string, jeton: string) => `${publicUrl}/technique/alertes/confirmation#jeton=${jeton}`;

const q = (texte: string) => `«\u00a0${texte}\u00a0»`;

/** The lines that place a report: category, title, address, point. */
function description(row: SignalementRow, categorie: Pick<SignalementCategorieRow, 'libelle'>, avecTexte: boolean): string[] {
  return [
    `Catégorie : ${categorie.libelle}`,
    `Titre : ${row.titre}`,
    ...(avecTexte && row.description ? ['Description :', row.description] : []),
    `Adresse : ${row.adresse || 'non précisée'}`,
    `Position : ${row.lat.toFixed(6)}, ${row.lon.toFixed(6)} (latitude, longitude)`,
  ];
}

/** The last lines of a mail to a follower or an alert subscriber: how to stop them. */
const pied = (desabonnement: string, quoi: string) => ['', `Pour ne plus recevoir ${quoi}, ouvrez ce lien :`, desabonnement, '', SIGNATURE];

/** To the reporter, at once: the number, the private follow link, and how to stop the follow-up e-mails. */
export function mailSignalementEnregistre(row: SignalementRow, categorie: Pick<SignalementCategorieRow, 'libelle'>, suivi: string, desabonnement: string): Mail {
  return {
    to: row.email,
    subject: `Votre signalement n° ${row.numero} est enregistré`,
    text: [
      salutation(row.nom),
      '',
      `Votre signalement n° ${row.numero} est enregistré par la mairie annexe du Jas de Bouffan. Merci de l’avoir fait.`,
      '',
      ...description(row, categorie, false),
      '',
      'Voici votre lien de suivi. Il vous permet d’ajouter des photos dans l’heure qui suit (ou tant que la mairie n’a pas examiné le signalement), et, une fois le problème déclaré résolu, de dire qu’il ne l’est pas :',
      suivi,
      '',
      'Gardez ce lien pour vous. Le signalement lui-même est public (sans votre adresse e-mail, et sans votre nom si vous avez choisi de ne pas l’afficher).',
      'Vous recevrez un e-mail à chaque nouvelle étape.',
      ...pied(desabonnement, 'les e-mails de suivi de ce signalement'),
    ].join('\n'),
  };
}

/** To the category's service: the whole report, with the reporter's contact (the public page never shows it). */
export function mailSignalementService(row: SignalementRow, categorie: Pick<SignalementCategorieRow, 'libelle'>, page: string, to: string): Mail {
  return {
    to,
    subject: `Nouveau signalement n° ${row.numero} — ${categorie.libelle} : ${row.titre}`,
    text: [
      salutation(),
      '',
      `Un habitant a fait un signalement dans la catégorie ${q(categorie.libelle)}, que votre service reçoit.`,
      '',
      ...description(row, categorie, true),
      `Signalé le : ${formatHorodatage(row.creeLe)}`,
      '',
      `Signalé par : ${row.nom || 'nom non donné'}${row.nom && row.nomMasque ? ' (ne souhaite pas que son nom soit affiché publiquement)' : ''}, ${row.email}`,
      'Ces coordonnées servent au suivi du signalement : ne les transmettez pas hors de la mairie.',
      '',
      'Le signalement, ses photos (ajoutées dans l’heure qui suit) et son historique :',
      page,
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** To the category's service: the reporter says a resolved problem is not. */
export function mailToujoursPasResoluService(row: SignalementRow, categorie: Pick<SignalementCategorieRow, 'libelle'>, texte: string | null, page: string, to: string): Mail {
  return {
    to,
    subject: `Signalement n° ${row.numero} : toujours pas résolu`,
    text: [
      salutation(),
      '',
      `La personne qui a fait le signalement n° ${row.numero} (${categorie.libelle}) indique que le problème n’est toujours pas résolu. Le signalement est rouvert : ${ETAT_SIGNALEMENT_LIBELLES[row.etat as EtatSignalement]}.`,
      ...(texte ? ['', 'Son message :', texte] : []),
      '',
      ...description(row, categorie, false),
      '',
      page,
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/**
 * To the category's service, on a manager's change that asks for its action: the town hall confirmed the report
 * (from « Nouveau » to an open state) or reopened a closed one. With the public message, if any.
 */
export function mailEtatService(
  row: SignalementRow,
  categorie: Pick<SignalementCategorieRow, 'libelle'>,
  changement: { motif: 'confirmation' | 'reouverture'; avant: EtatSignalement; texte: string | null },
  page: string,
  to: string,
): Mail {
  const etat = ETAT_SIGNALEMENT_LIBELLES[row.etat as EtatSignalement];
  const confirmation = changement.motif === 'confirmation';
  return {
    to,
    subject: confirmation ? `Signalement n° ${row.numero} confirmé par la mairie : ${etat}` : `Signalement n° ${row.numero} rouvert par la mairie`,
    text: [
      salutation(),
      '',
      confirmation
        ? `La mairie annexe a examiné le signalement n° ${row.numero} (${categorie.libelle}), que votre service a reçu à sa création, et le confirme. Son état : ${etat}.`
        : `La mairie annexe a rouvert le signalement n° ${row.numero} (${categorie.libelle}), qui était ${q(ETAT_SIGNALEMENT_LIBELLES[changement.avant])}. Son état : ${etat}.`,
      ...(changement.texte ? ['', 'Le message public de la mairie :', changement.texte] : []),
      '',
      ...description(row, categorie, false),
      '',
      page,
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** To a new follower: what they follow, and how to stop. */
export function mailSuiviConfirme(row: SignalementRow, page: string, desabonnement: string, to: string): Mail {
  return {
    to,
    subject: `Vous suivez le signalement n° ${row.numero}`,
    text: [
      salutation(),
      '',
      `Vous suivez désormais le signalement n° ${row.numero} ${q(row.titreMasque ? 'titre retiré par la modération' : row.titre)} : vous recevrez un e-mail à chaque nouvelle étape.`,
      `Son état actuel : ${ETAT_SIGNALEMENT_LIBELLES[row.etat as EtatSignalement]}.`,
      '',
      page,
      '',
      'Si vous n’avez rien demandé, ouvrez le lien ci-dessous : vous ne recevrez plus rien.',
      ...pied(desabonnement, 'les e-mails de ce signalement'),
    ].join('\n'),
  };
}

/** To each follower: a public update (a new state, a text, or both). */
export function mailMiseAJour(
  row: SignalementRow,
  maj: { etat: EtatSignalement | null; texte: string | null; par: 'mairie' | 'signalant' },
  original: string | null,
  page: string,
  desabonnement: string,
  to: string,
): Mail {
  const etat = maj.etat ? ETAT_SIGNALEMENT_LIBELLES[maj.etat] : null;
  return {
    to,
    subject: etat ? `Signalement n° ${row.numero} : ${etat}` : `Signalement n° ${row.numero} : du nouveau`,
    text: [
      salutation(),
      '',
      maj.par === 'signalant'
        ? `La personne qui a fait le signalement n° ${row.numero} indique que le problème n’est toujours pas résolu.`
        : `La mairie annexe a mis à jour le signalement n° ${row.numero} que vous suivez.`,
      ...(maj.etat ? [`Nouvel état : ${etat}. ${ETAT_SIGNALEMENT_EXPLICATIONS[maj.etat]}`] : []),
      ...(maj.etat === 'doublon' && original ? [`Le signalement d’origine, que vous suivez désormais à sa place : ${original}`] : []),
      ...(maj.texte ? ['', maj.par === 'signalant' ? 'Son message :' : 'Le message de la mairie :', maj.texte] : []),
      '',
      page,
      ...pied(desabonnement, 'les e-mails de ce signalement'),
    ].join('\n'),
  };
}

/** Double opt-in of an area alert: nothing is sent before the person confirms. */
export function mailConfirmationAlerte(confirmation: string, to: string): Mail {
  return {
    to,
    subject: 'Confirmez votre alerte : nouveaux signalements au Jas de Bouffan',
    text: [
      salutation(),
      '',
      'Vous avez demandé à être prévenu par e-mail de chaque nouveau signalement technique dans le quartier du Jas de Bouffan (voirie, éclairage, propreté…).',
      'Pour confirmer, ouvrez ce lien :',
      confirmation,
      '',
      'Si vous n’avez rien demandé, ignorez cet e-mail : vous ne recevrez rien.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** To each confirmed alert subscriber: a new report in the district (title only: its text is on its page). */
export function mailAlerteNouveauSignalement(row: SignalementRow, categorie: Pick<SignalementCategorieRow, 'libelle'>, page: string, desabonnement: string, to: string): Mail {
  return {
    to,
    subject: `Nouveau signalement au Jas de Bouffan : ${row.titre}`,
    text: [
      salutation(),
      '',
      `Un nouveau signalement a été fait dans le quartier (n° ${row.numero}).`,
      '',
      ...description(row, categorie, false),
      '',
      'Pour le voir, ou le suivre si vous êtes concerné :',
      page,
      ...pied(desabonnement, 'ces alertes'),
    ].join('\n'),
  };
}
