import { CATEGORIES } from '../../../domain/documents.js';
import type { Mail } from '../../mail/index.js';
import { SIGNATURE } from '../demandes/mails.js';
import type { DemandeRow, DocumentRow } from '../../db/schema.js';

const bloc = (category: string) => CATEGORIES.find((c) => c.value === category)?.label ?? category;

/** The applicant is asked to correct the request: the reason, the documents to replace and why, where to do it. */
export function mailCorrectionDemandee(row: DemandeRow, publicUrl: string, motif: string, documents: readonly (Pick<DocumentRow, 'category' | 'originalName'> & { motif: string })[]): Mail {
  return {
    to: row.email,
    subject: `Votre demande de logement n° ${row.numeroUnique} : des corrections sont demandées`,
    text: [
      `Bonjour ${row.prenom},`,
      '',
      `La mairie annexe du Jas de Bouffan a examiné votre demande de logement social (numéro unique ${row.numeroUnique}) et vous demande de la compléter ou de la corriger.`,
      '',
      'Ce qu’il faut corriger :',
      motif,
      ...(documents.length > 0
        ? ['', 'Documents à remplacer :', ...documents.map((d) => `- ${bloc(d.category)} — « ${d.originalName} » : ${d.motif}`)]
        : []),
      '',
      'Ouvrez votre lien privé (reçu lors de l’enregistrement) pour envoyer les nouveaux documents, puis indiquez « J’ai fait les corrections » sur la page de votre demande :',
      `${publicUrl}/logement/${encodeURIComponent(row.numeroUnique)}`,
      '',
      'Votre demande reste enregistrée pendant ce temps : elle garde sa date et son ancienneté.',
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
