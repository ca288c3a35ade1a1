import { salutation, type Mail } from '../../mail/index.js';
import { mailGestionnaire, pageDeLaDemande, SIGNATURE } from '../demandes/mails.js';
import type { DemandeRow } from '../../db/schema.js';

/** The town hall wrote to the applicant: the message, and where to answer (the private link opens the thread). */
export function mailMessageMairie(row: DemandeRow, publicUrl: string, texte: string, pieces: readonly string[] = []): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} : un message de la mairie annexe`,
    text: [
      salutation(row.prenom),
      '',
      `La mairie annexe du Jas de Bouffan vous écrit au sujet de votre demande de logement social (numéro unique ${row.numeroUnique}) :`,
      '',
      texte,
      ...(pieces.length > 0 ? ['', `Pièce${pieces.length > 1 ? 's' : ''} jointe${pieces.length > 1 ? 's' : ''}, à ouvrir sur la page de votre demande :`, ...pieces.map((n) => `- ${n}`)] : []),
      '',
      'Pour répondre, ouvrez votre lien privé (reçu lors de l’enregistrement), puis la partie « Messages » de votre demande :',
      pageDeLaDemande(publicUrl, row.numeroUnique),
      '',
      'Ne répondez pas à cet e-mail : cette adresse ne reçoit pas de courrier.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/**
 * The applicant wrote: the manager who follows the request is told (`suit`), or, when nobody follows it, the one
 * who last wrote to the applicant or asked for corrections; without the text (it stays on the site).
 */
export function mailMessageDemandeur(row: DemandeRow, publicUrl: string, to: string, suit = true): Mail {
  const pourquoi = suit
    ? ', que vous suivez'
    : ', que personne ne suit : il vous est signalé parce que votre message ou votre demande de corrections est le plus récent de la mairie annexe sur cette demande';
  return mailGestionnaire(row, publicUrl, to, 'Nouveau message', `Le demandeur a écrit un message sur la demande n° ${row.numeroUnique}${pourquoi}. Lisez-le sur sa page :`);
}
