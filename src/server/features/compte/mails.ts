import type { Mail } from '../../mail/index.js';

/** The e-mails of accounts (sent by better-auth through the app's mailer). */

export function mailNouveauMotDePasse(to: string, url: string): Mail {
  return {
    to,
    subject: 'Quartier Vivant : choisir un nouveau mot de passe',
    text: [
      'Bonjour,',
      '',
      'Vous avez demandé à changer le mot de passe de votre compte Quartier Vivant. Ouvrez ce lien (valable une heure) :',
      url,
      '',
      "Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de passe reste inchangé.",
    ].join('\n'),
  };
}

export function mailConfirmationAdresse(to: string, url: string): Mail {
  return {
    to,
    subject: 'Quartier Vivant : confirmez votre adresse e-mail',
    text: ['Bonjour,', '', 'Pour confirmer votre adresse e-mail sur Quartier Vivant, ouvrez ce lien (valable 24 heures) :', url].join('\n'),
  };
}

/** After an account's deletion: what went, what stays (the housing requests, the town hall's file). */
export function mailCompteSupprime(to: string, demandesGardees: number): Mail {
  return {
    to,
    subject: 'Quartier Vivant : votre compte a été supprimé',
    text: [
      'Bonjour,',
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
      '',
      "Si vous n'êtes pas à l'origine de cette suppression, contactez la mairie annexe du Jas de Bouffan.",
    ].join('\n'),
  };
}
