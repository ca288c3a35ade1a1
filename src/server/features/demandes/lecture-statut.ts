import type { Db } from '../../db/index.js';
import { RequetePreparee } from '../../db/preparee.js';
import type { CorrectionRow, DemandeRow, DocumentRow } from '../../db/schema.js';

/**
 * The reads of the lookup GET /logement/:numeroUnique, the app's hottest route (issue 11): statements
 * prepared once (db/preparee.ts) reading only the columns the answer needs, named as the code names them.
 */

const snake = (name: string) => name.replace(/[A-Z]/gu, (c) => `_${c.toLowerCase()}`);
/** The columns as the code names them (`date_d_enregistrement as "dateDEnregistrement"`), of table alias `t` if given. */
const colonnes = (names: readonly string[], t = '') => names.map((n) => `${t}${snake(n)}${n === snake(n) ? '' : ` as "${n}"`}`).join(', ');

/** What decides who sees a request in full: its private key's hash and its owner (access.ts `AccesRow`). */
const COLONNES_ACCES = ['accessKeyHash', 'ownerUserId'] as const satisfies readonly (keyof DemandeRow)[];

/** Who may see the request in full (key hash, owner) and its status view. */
export const COLONNES_STATUT = ['id', 'numeroUnique', 'statutDeLaDemande', 'dateDEnregistrement', ...COLONNES_ACCES] as const satisfies readonly (keyof DemandeRow)[];
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

/** A JSON object of `names` read from table alias `t`: SQLite's json_object, PostgreSQL's json_build_object. */
function objetJson(fonction: 'json_object' | 'json_build_object', t: string, names: readonly string[]): string {
  return `${fonction}(${names.map((n) => `'${n}', ${t}.${snake(n)}`).join(', ')})`;
}

/**
 * The full view in one statement (on PostgreSQL each round trip costs the server ~150 µs of CPU): the request's
 * columns, its documents as a JSON array in their order, its open request for corrections as a JSON object or null.
 */
function completeEnUneFois(kind: 'sqlite' | 'postgres', par: 'id' | 'numero'): string {
  const [objet, tableau] = kind === 'sqlite' ? (['json_object', 'json_group_array'] as const) : (['json_build_object', 'json_agg'] as const);
  const param = kind === 'sqlite' ? '?' : '$1';
  const documents = `(select ${tableau}(${objetJson(objet, 'd', COLONNES_DOCUMENT)} order by d.category, d.position) from documents d where d.housing_request_id = h.id)`;
  const correction = `(select ${objetJson(objet, 'c', COLONNES_CORRECTION)} from corrections c where c.housing_request_id = h.id and c.close_le is null order by c.demandee_le desc limit 1)`;
  // By numéro, with what decides access (a private key presented: the key decides on this one read).
  const noms = par === 'id' ? COLONNES_COMPLETES : [...COLONNES_COMPLETES, ...COLONNES_ACCES];
  const cle = par === 'id' ? 'h.id' : 'h.numero_unique';
  return `select ${colonnes(noms, 'h.')}, ${documents} as "documents", ${correction} as "correction" from housing_requests h where ${cle} = ${param} and h.effacee_le is null`;
}

/** The full view's row as read: its documents and correction still JSON (text on SQLite, parsed by pg on PostgreSQL). */
export type DemandeCompleteLue = DemandeCompleteRow & { documents: string | DocumentVueRow[] | null; correction: string | CorrectionVueRow | null };
/** The same by numéro, with the columns that decide access. */
export type DemandeCompleteEtAccesRow = DemandeCompleteRow & Pick<DemandeRow, (typeof COLONNES_ACCES)[number]>;

/** The lookup's reads; erased requests (anonymous tombstones) are found by no numéro and no id. */
export function lecturesConsultation(db: Db) {
  return {
    statut: preparee<DemandeStatutRow>(db, 'qv_demande_statut', `select ${colonnes(COLONNES_STATUT)} from housing_requests where numero_unique = ? and effacee_le is null`),
    complete: new RequetePreparee<DemandeCompleteLue>(db, 'qv_demande_complete', completeEnUneFois('sqlite', 'id'), completeEnUneFois('postgres', 'id')),
    completeParNumero: new RequetePreparee<DemandeCompleteLue & DemandeCompleteEtAccesRow>(
      db,
      'qv_demande_complete_numero',
      completeEnUneFois('sqlite', 'numero'),
      completeEnUneFois('postgres', 'numero'),
    ),
  };
}

/** JSON as SQLite gives it (text) or as pg gives it (parsed). */
export function depuisJson<T>(value: string | T | null): T | null {
  return typeof value === 'string' ? (JSON.parse(value) as T) : value;
}
