/**
 * Withdrawal, erasure and deletion (docs/produit.md « Retrait et effacement »): the rules the web and the
 * server share.
 */

/** The statuses in which the requester may still delete a document (the town hall has not sent the file onward). */
export const STATUTS_SUPPRESSION_DOCUMENT: readonly string[] = ['En attente des documents', 'En cours de traitement'];

/** A document the town hall asked to replace may be deleted whatever the status. */
export function peutSupprimerDocument(statut: string, avis: string | null = null): boolean {
  return STATUTS_SUPPRESSION_DOCUMENT.includes(statut) || avis === 'a-remplacer';
}

export const MESSAGE_SUPPRESSION_DOCUMENT_REFUSEE =
  'Ce document ne peut plus être supprimé : la mairie annexe a peut-être déjà transmis votre dossier. Contactez-la si un document doit être remplacé.';

/** The one answer of "Renvoyer mon lien privé", whether or not the address matched or the request exists. */
export const MESSAGE_RENVOI_LIEN =
  'Si cette adresse est celle de la demande, un nouveau lien privé vient d’y être envoyé. Il remplace l’ancien, qui ne fonctionne plus. Pensez à regarder dans vos courriers indésirables.';

/** What a withdrawal erases, said before it is confirmed (the web's dialog) and after (the answer). */
export const CE_QUI_EST_EFFACE = [
  'vos informations personnelles (nom, adresse, e-mail, téléphone, revenus, situation, motivations) ;',
  'tous vos documents envoyés ;',
  'votre lien privé, qui ne fonctionnera plus.',
] as const;
