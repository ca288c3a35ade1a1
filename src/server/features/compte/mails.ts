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
