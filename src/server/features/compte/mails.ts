import { salutation, type Mail } from '../../mail/index.js';
import { CONSERVATION_SIGNALANT_MOIS } from './donnees-signalements.js';

/** The e-mails of accounts (sent by better-auth through the app's mailer). */

/** Who an account's mail goes to: the address, and the account's first name when it has one (greeted by it). */
export interface Destinataire {
  email: string;
  prenom?: string | null;
}

export function mailNouveauMotDePasse(to: Destinataire, url: string): Mail {
  return {
    to: to.email,
    subject: 'Quartier Vivant : choisir un nouveau mot de passe',
    text: [
      salutation(to.prenom),
      '',
      'Vous avez demandé à changer le mot de passe de votre compte Quartier Vivant. Ouvrez ce lien (valable une heure) :',
      url,
      '',
      'Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : votre mot de passe reste inchangé.',
    ].join('\n'),
  };
}

export function mailConfirmationAdresse(to: Destinataire, url: string): Mail {
  return {
    to: to.email,
    subject: 'Quartier Vivant : confirmez votre adresse e-mail',
    text: [salutation(to.prenom), '', 'Pour confirmer votre adresse e-mail sur Quartier Vivant, ouvrez ce lien (valable 24 heures) :', url].join('\n'),
  };
}

/** What the deletion did to the person's technical reports (compte/donnees-signalements.ts). */
export interface SignalementsApresSuppression {
  signalements: number;
  suivis: number;
  alertes: number;
}

/**
 * After an account's deletion: what went, what stays (the housing requests, the town hall's file; the technical
 * reports, public, without the name and the account).
 */
export function mailCompteSupprime(to: Destinataire, demandesGardees: number, signalements: SignalementsApresSuppression = { signalements: 0, suivis: 0, alertes: 0 }): Mail {
  const arretes = [
    ...(signalements.suivis > 0 ? [signalements.suivis === 1 ? 'le suivi d’un signalement' : `le suivi de ${signalements.suivis} signalements`] : []),
    ...(signalements.alertes > 0 ? ['l’alerte des nouveaux signalements du quartier'] : []),
  ];
  return {
    to: to.email,
    subject: 'Quartier Vivant : votre compte a été supprimé',
    text: [
      salutation(to.prenom),
      '',
      'Votre compte Quartier Vivant a été supprimé, comme vous l’avez demandé : votre profil, votre photo, vos abonnements et vos connexions ont été effacés.',
      ...(demandesGardees > 0
        ? [
            '',
            demandesGardees === 1
              ? 'Votre demande de logement reste enregistrée auprès de la mairie annexe : vous la suivez avec le lien privé reçu lors de son dépôt (ou demandez-en un nouveau depuis la page de la demande).'
              : `Vos ${demandesGardees} demandes de logement restent enregistrées auprès de la mairie annexe : vous les suivez avec les liens privés reçus lors de leur dépôt (ou demandez-en de nouveaux depuis la page de chaque demande).`,
          ]
        : []),
      ...(signalements.signalements > 0
        ? [
            '',
            `${signalements.signalements === 1 ? 'Votre signalement technique reste visible' : `Vos ${signalements.signalements} signalements techniques restent visibles`} sur le site, sans votre nom ni lien avec un compte. L’adresse e-mail donnée en signalant reste connue de la mairie annexe pour le suivi, jusqu’à ${CONSERVATION_SIGNALANT_MOIS} mois après la clôture du signalement ; le lien de suivi privé reçu en signalant fonctionne toujours.`,
          ]
        : []),
      ...(arretes.length > 0 ? ['', `À cette adresse, ${arretes.join(' et ')} ${arretes.length > 1 ? 'sont arrêtés' : signalements.suivis > 0 ? 'est arrêté' : 'est arrêtée'} : vous ne recevrez plus ces e-mails.`] : []),
      '',
      'Si vous n’êtes pas à l’origine de cette suppression, contactez la mairie annexe du Jas de Bouffan.',
    ].join('\n'),
  };
}
