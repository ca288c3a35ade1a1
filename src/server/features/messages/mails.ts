import type { Mail } from '../../mail/index.js';
import { SIGNATURE } from '../demandes/mails.js';
import type { DemandeRow } from '../../db/schema.js';

const page = (publicUrl: string, numeroUnique: string) => `${publicUrl}/logement/${encodeURIComponent(numeroUnique)}`;

/** The town hall wrote to the applicant: the message, and where to answer (the private link opens the thread). */
export function mailMessageMairie(row: DemandeRow, publicUrl: string, texte: string): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} : un message de la mairie annexe`,
    text: [
      `Bonjour ${row.prenom},`,
      '',
      `La mairie annexe du Jas de Bouffan vous écrit au sujet de votre demande de logement social (numéro unique ${row.numeroUnique}) :`,
      '',
      texte,
      '',
      'Pour répondre, ouvrez votre lien privé (reçu lors de l’enregistrement), puis la partie « Messages » de votre demande :',
      page(publicUrl, row.numeroUnique),
      '',
      'Ne répondez pas à cet e-mail : cette adresse ne reçoit pas de courrier.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The applicant wrote: the manager who follows the request is told, without the text (it stays on the site). */
export function mailMessageDemandeur(row: DemandeRow, publicUrl: string, to: string): Mail {
  return {
    to,
    subject: `Nouveau message — demande de logement n° ${row.numeroUnique}`,
    text: [
      'Bonjour,',
      '',
      `Le demandeur a écrit un message sur la demande n° ${row.numeroUnique}, que vous suivez. Lisez-le sur sa page :`,
      page(publicUrl, row.numeroUnique),
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
