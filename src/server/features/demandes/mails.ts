import type { Mail } from '../../mail/index.js';
import type { DemandeRow } from '../../db/schema.js';

/** The e-mails of a housing request, as the applicant reads them. */

const SIGNATURE = 'Quartier Vivant — mairie annexe du Jas de Bouffan, Aix-en-Provence';

export function mailDemandeEnregistree(row: DemandeRow, privateLink: string): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} est enregistrée`,
    text: [
      `Bonjour ${row.prenom},`,
      '',
      `Votre demande de logement social (numéro unique ${row.numeroUnique}) a bien été enregistrée par la mairie annexe du Jas de Bouffan.`,
      `Son statut actuel : ${row.statutDeLaDemande}.`,
      '',
      'Voici votre lien privé. Il vous permet de suivre votre demande et d’envoyer vos documents (livret de famille, pièce d’identité, avis d’imposition, bulletins de salaire) :',
      privateLink,
      '',
      'Gardez ce lien pour vous : toute personne qui le possède peut voir votre demande et vos documents.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The new status, and with a refusal the reason the manager gave (`motif`), as written. */
export function mailStatutChange(row: DemandeRow, publicUrl: string, motif?: string | null): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} : ${row.statutDeLaDemande}`,
    text: [
      `Bonjour ${row.prenom},`,
      '',
      `Le statut de votre demande de logement social (numéro unique ${row.numeroUnique}) a changé.`,
      `Nouveau statut : ${row.statutDeLaDemande}.`,
      ...(motif ? ['', 'Motif indiqué par la mairie annexe :', motif] : []),
      '',
      'Suivez votre demande ici (ouvrez votre lien privé pour voir son détail et envoyer des documents) :',
      `${publicUrl}/logement/${encodeURIComponent(row.numeroUnique)}`,
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
