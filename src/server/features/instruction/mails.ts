import { salutation, type Mail } from '../../mail/index.js';
import { mailGestionnaire, pageDeLaDemande, SIGNATURE } from '../demandes/mails.js';

/** How many of a bulk action's requests its e-mail lists one by one; the others are in « Suivies par moi ». */
export const NUMEROS_PAR_MAIL_MAX = 50;

/** The managers' list, on its tab « Suivies par moi ». */
const suiviesParMoi = (publicUrl: string) => `${publicUrl}/logement/list?suivi=moi`;

/**
 * A colleague (`par`, a manager's name) gave this manager a request (« Confier à… »): its numéro and its page,
 * nothing of the applicant.
 */
export function mailDemandeConfiee(numeroUnique: string, publicUrl: string, to: string, par: string): Mail {
  return mailGestionnaire(
    { numeroUnique },
    publicUrl,
    to,
    'Demande confiée',
    `${par} vous a confié la demande n° ${numeroUnique} : vous la suivez désormais (onglet « Suivies par moi » de la liste). Ouvrez-la :`,
  );
}

/**
 * A bulk « Confier à… »: one e-mail for the whole action, the requests given so far by numéro and page (the first
 * NUMEROS_PAR_MAIL_MAX), and the list « Suivies par moi », where all of them are. One request: the mail of one.
 */
export function mailDemandesConfiees(numeros: readonly string[], publicUrl: string, to: string, par: string): Mail {
  if (numeros.length === 1) return mailDemandeConfiee(numeros[0]!, publicUrl, to, par);
  const listes = numeros.slice(0, NUMEROS_PAR_MAIL_MAX);
  const autres = numeros.length - listes.length;
  return {
    to,
    subject: `${numeros.length} demandes de logement vous sont confiées`,
    text: [
      salutation(),
      '',
      `${par} vous a confié ${numeros.length} demandes de logement : vous les suivez désormais.`,
      '',
      ...listes.map((n) => `- n° ${n} : ${pageDeLaDemande(publicUrl, n)}`),
      ...(autres > 0 ? [`- et ${autres} ${autres > 1 ? 'autres' : 'autre'}.`] : []),
      '',
      'Retrouvez-les toutes dans l’onglet « Suivies par moi » de la liste :',
      suiviesParMoi(publicUrl),
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
