import { formatJour } from '../../../domain/dates.js';
import { salutation, type Mail } from '../../mail/index.js';
import type { DemandeRow } from '../../db/schema.js';

/** The e-mails of a housing request, as the applicant reads them. */

/** The last line of every e-mail about a request (corrections and messages sign the same). */
export const SIGNATURE = 'Quartier Vivant — mairie annexe du Jas de Bouffan, Aix-en-Provence';

/** The request's page, without its key (a link in an e-mail must not open it to whoever reads the mail). */
export const pageDeLaDemande = (publicUrl: string, numeroUnique: string) => `${publicUrl}/logement/${encodeURIComponent(numeroUnique)}`;

/** A word to a manager about a request: what happened, in one sentence, and the request's page; no personal data. */
export function mailGestionnaire(row: Pick<DemandeRow, 'numeroUnique'>, publicUrl: string, to: string, sujet: string, phrase: string): Mail {
  return {
    to,
    subject: `${sujet} — demande de logement n° ${row.numeroUnique}`,
    text: [salutation(), '', phrase, pageDeLaDemande(publicUrl, row.numeroUnique), '', SIGNATURE].join('\n'),
  };
}

/** The first e-mail's line about its attestation: left out of the mail when the attestation is (decided as it leaves). */
const ANNONCE_ATTESTATION =
  'Vous trouverez en pièce jointe votre attestation d’enregistrement. Vous pouvez aussi la télécharger depuis votre lien privé, tant que votre demande est en cours.';

export function mailDemandeEnregistree(row: DemandeRow, privateLink: string): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} est enregistrée`,
    text: [
      salutation(row.prenom),
      '',
      `Votre demande de logement social (numéro unique ${row.numeroUnique}) a bien été enregistrée par la mairie annexe du Jas de Bouffan.`,
      `Son statut actuel : ${row.statutDeLaDemande}.`,
      '',
      'Voici votre lien privé. Il vous permet de suivre votre demande et d’envoyer vos documents (livret de famille, pièce d’identité, avis d’imposition, bulletins de salaire) :',
      privateLink,
      '',
      'Gardez ce lien pour vous : toute personne qui le possède peut voir votre demande et vos documents.',
      '',
      `Votre demande est valable jusqu’au ${formatJour(row.valideJusqua)}. Pensez à la renouveler chaque année depuis votre lien privé : nous vous le rappellerons par e-mail.`,
      ANNONCE_ATTESTATION,
      '',
      SIGNATURE,
    ].join('\n'),
    piecesJointes: [{ type: 'attestation', demandeId: row.id, annonce: ANNONCE_ATTESTATION }],
  };
}

/** The new status, and with a refusal the reason the manager gave (`motif`), as written. */
export function mailStatutChange(row: DemandeRow, publicUrl: string, motif?: string | null): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} : ${row.statutDeLaDemande}`,
    text: [
      salutation(row.prenom),
      '',
      `Le statut de votre demande de logement social (numéro unique ${row.numeroUnique}) a changé.`,
      `Nouveau statut : ${row.statutDeLaDemande}.`,
      ...(motif ? ['', 'Motif indiqué par la mairie annexe :', motif] : []),
      '',
      'Suivez votre demande ici (ouvrez votre lien privé pour voir son détail et envoyer des documents) :',
      pageDeLaDemande(publicUrl, row.numeroUnique),
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** After a withdrawal or an erasure on request: what was erased; no link (the request no longer exists). */
export function mailDemandeEffacee(row: DemandeRow, parLaMairie: boolean): Mail {
  return {
    to: row.email,
    subject: parLaMairie ? `Votre demande de logement n° ${row.numeroUnique} a été effacée` : `Votre demande de logement n° ${row.numeroUnique} a été retirée`,
    text: [
      salutation(row.prenom),
      '',
      parLaMairie
        ? `À votre demande, la mairie annexe du Jas de Bouffan a effacé votre demande de logement social (numéro unique ${row.numeroUnique}).`
        : `Votre demande de logement social (numéro unique ${row.numeroUnique}) a été retirée, comme vous l’avez demandé.`,
      'Vos informations personnelles et vos documents ont été supprimés. Seul l’historique des statuts est conservé, sans aucune donnée vous concernant.',
      '',
      'Vous pouvez déposer une nouvelle demande à tout moment, avec le même numéro unique.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** "Renvoyer mon lien privé": the new private link (the previous one no longer works). */
export function mailNouveauLien(row: DemandeRow, privateLink: string): Mail {
  return {
    to: row.email,
    subject: `Votre nouveau lien privé — demande de logement n° ${row.numeroUnique}`,
    text: [
      salutation(row.prenom),
      '',
      `Un nouveau lien privé a été demandé pour votre demande de logement social (numéro unique ${row.numeroUnique}). Le voici :`,
      privateLink,
      '',
      'Votre ancien lien privé ne fonctionne plus.',
      'Si vous n’êtes pas à l’origine de cette demande, gardez ce nouveau lien : vous seul le recevez, à cette adresse.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The reminder before the end of the validity (RAPPELS_JOURS): how to renew. */
export function mailRappelRenouvellement(row: DemandeRow, publicUrl: string): Mail {
  return {
    to: row.email,
    subject: `Renouvelez votre demande de logement n° ${row.numeroUnique} avant le ${formatJour(row.valideJusqua)}`,
    text: [
      salutation(row.prenom),
      '',
      `Votre demande de logement social (numéro unique ${row.numeroUnique}) est valable jusqu’au ${formatJour(row.valideJusqua)}.`,
      'Pour qu’elle reste active, renouvelez-la avant cette date : ouvrez votre lien privé (celui reçu lors de l’enregistrement) et cliquez sur « Renouveler ma demande ». Cela ne prend qu’un clic et votre ancienneté est conservée.',
      '',
      `Votre demande : ${pageDeLaDemande(publicUrl, row.numeroUnique)}`,
      'Si vous avez perdu votre lien privé, vous pouvez en recevoir un nouveau depuis cette page (« Renvoyer mon lien privé »).',
      '',
      'Sans renouvellement, la demande sera radiée un mois après cette date.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The request was struck off for want of renewal: how to reactivate it, until when. */
export function mailRadiation(row: DemandeRow, publicUrl: string, reactivableJusqua: string): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} a été radiée`,
    text: [
      salutation(row.prenom),
      '',
      `Votre demande de logement social (numéro unique ${row.numeroUnique}) n’a pas été renouvelée : elle était valable jusqu’au ${formatJour(row.valideJusqua)}. Elle est donc radiée.`,
      '',
      `Vous pouvez la réactiver jusqu’au ${formatJour(reactivableJusqua)}, en gardant son ancienneté (enregistrée le ${formatJour(row.dateDEnregistrement)}) : ouvrez votre lien privé et cliquez sur « Réactiver ma demande ».`,
      `Votre demande : ${pageDeLaDemande(publicUrl, row.numeroUnique)}`,
      '',
      'Passé cette date, il faudra déposer une nouvelle demande. Vos informations seront effacées un an après la radiation.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
