import { libelleCategorie } from '../../../domain/documents.js';
import { salutation, type Mail } from '../../mail/index.js';
import { mailGestionnaire, pageDeLaDemande, SIGNATURE } from '../demandes/mails.js';
import type { DemandeRow, DocumentRow } from '../../db/schema.js';

/** The applicant is asked to correct the request: the reason, the documents to replace and why, where to do it. */
export function mailCorrectionDemandee(row: DemandeRow, publicUrl: string, motif: string, documents: readonly (Pick<DocumentRow, 'category' | 'originalName'> & { motif: string })[]): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} : des corrections sont demandées`,
    text: [
      salutation(row.prenom),
      '',
      `La mairie annexe du Jas de Bouffan a examiné votre demande de logement social (numéro unique ${row.numeroUnique}) et vous demande de la compléter ou de la corriger.`,
      '',
      'Ce qu’il faut corriger :',
      motif,
      ...(documents.length > 0
        ? ['', 'Documents à remplacer :', ...documents.map((d) => `- ${libelleCategorie(d.category)} — « ${d.originalName} » : ${d.motif}`)]
        : []),
      '',
      'Ouvrez votre lien privé (reçu lors de l’enregistrement) pour envoyer les nouveaux documents, puis indiquez « J’ai fait les corrections » sur la page de votre demande :',
      pageDeLaDemande(publicUrl, row.numeroUnique),
      '',
      'Votre demande reste enregistrée pendant ce temps : elle garde sa date et son ancienneté.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The applicant says the corrections are made: the manager who follows the request (or who asked) is told where to check. */
export function mailCorrectionsFaites(row: DemandeRow, publicUrl: string, to: string): Mail {
  return mailGestionnaire(
    row,
    publicUrl,
    to,
    'Corrections faites',
    `Le demandeur indique avoir fait les corrections demandées sur la demande n° ${row.numeroUnique}. Vérifiez-les sur sa page, puis clôturez la demande de correction :`,
  );
}

/**
 * The request's e-mail address was changed: the former address is told (someone holding the private link could
 * otherwise take the request's e-mails away unseen), without the new address.
 */
export function mailAdresseChangee(avant: DemandeRow): Mail {
  return {
    to: avant.email,
    subject: `Votre demande de logement n° ${avant.numeroUnique} : l’adresse e-mail a changé`,
    text: [
      salutation(avant.prenom),
      '',
      `L’adresse e-mail de votre demande de logement social (numéro unique ${avant.numeroUnique}) vient d’être remplacée depuis son lien privé ou votre compte. Les prochains e-mails de la mairie annexe partiront à la nouvelle adresse.`,
      '',
      'Si ce n’est pas vous, prévenez sans attendre la mairie annexe du Jas de Bouffan, en lui donnant ce numéro unique.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
