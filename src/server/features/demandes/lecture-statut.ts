import type { Db } from '../../db/index.js';
import { RequetePreparee } from '../../db/preparee.js';
import type { CorrectionRow, DemandeRow, DocumentRow } from '../../db/schema.js';

/**
 * The reads of the lookup GET /logement/:numeroUnique, the app's hottest route (issue 11): statements
 * prepared once (db/preparee.ts) reading only the columns the answer needs, named as the code names them.
 */

const snake = (name: string) => name.replace(/[A-Z]/gu, (c) => `_${c.toLowerCase()}`);
const colonnes = (names: readonly string[]) => names.map((n) => (n === snake(n) ? n : `${snake(n)} as "${n}"`)).join(', ');

/** Who may see the request in full (key hash, owner) and its status view. */
export const COLONNES_STATUT = ['id', 'numeroUnique', 'statutDeLaDemande', 'dateDEnregistrement', 'accessKeyHash', 'ownerUserId'] as const satisfies readonly (keyof DemandeRow)[];
export type DemandeStatutRow = Pick<DemandeRow, (typeof COLONNES_STATUT)[number]>;

/** What the full view shows (vues.ts `toComplete`). */
export const COLONNES_COMPLETES = [
  'id',
  'numeroUnique',
  'prenom',
  'nom',
  'sexe',
  'dateDeNaissance',
  'email',
  'numeroDeTelephone',
  'adresse',
  'adresseComplement',
  'codePostal',
  'ville',
  'salaireBrut',
  'salaireAvisImpot1',
  'salaireAvisImpot2',
  'situationFamiliale',
  'nombreDEnfants',
  'logementActuel',
  'typeDeLogementActuel',
  'quartierActuel',
  'bailleurActuel',
  'typeDeLogementSouhaite',
  'quartierSouhaite',
  'dateDEnregistrement',
  'statutDeLaDemande',
  'motivations',
  'commentaires',
] as const satisfies readonly (keyof DemandeRow)[];
export type DemandeCompleteRow = Pick<DemandeRow, (typeof COLONNES_COMPLETES)[number]>;

/** What the full view shows of each document (vues.ts `groupDocuments`). */
export const COLONNES_DOCUMENT = ['id', 'category', 'originalName', 'contentType', 'size', 'uploadedAt', 'avis', 'avisMotif'] as const satisfies readonly (keyof DocumentRow)[];
export type DocumentVueRow = Pick<DocumentRow, (typeof COLONNES_DOCUMENT)[number]>;

function preparee<R>(db: Db, name: string, sql: string): RequetePreparee<R> {
  let n = 0;
  return new RequetePreparee<R>(db, name, sql, sql.replace(/\?/gu, () => `$${++n}`));
}

/** What the full view shows of the open request for corrections (vues.ts `toCorrection`). */
export const COLONNES_CORRECTION = ['motif', 'demandeeLe', 'faiteLe'] as const satisfies readonly (keyof CorrectionRow)[];
export type CorrectionVueRow = Pick<CorrectionRow, (typeof COLONNES_CORRECTION)[number]>;

/** The lookup's reads; erased requests (anonymous tombstones) are found by no numéro and no id. */
export function lecturesConsultation(db: Db) {
  return {
    statut: preparee<DemandeStatutRow>(db, 'qv_demande_statut', `select ${colonnes(COLONNES_STATUT)} from housing_requests where numero_unique = ? and effacee_le is null`),
    complete: preparee<DemandeCompleteRow>(db, 'qv_demande_complete', `select ${colonnes(COLONNES_COMPLETES)} from housing_requests where id = ? and effacee_le is null`),
    documents: preparee<DocumentVueRow>(
      db,
      'qv_demande_documents',
      `select ${colonnes(COLONNES_DOCUMENT)} from documents where housing_request_id = ? order by category, position`,
    ),
    correction: preparee<CorrectionVueRow>(
      db,
      'qv_demande_correction',
      `select ${colonnes(COLONNES_CORRECTION)} from corrections where housing_request_id = ? and close_le is null order by demandee_le desc limit 1`,
    ),
  };
}
