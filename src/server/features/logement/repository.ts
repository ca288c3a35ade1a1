import { randomUUID } from 'node:crypto';
import { formatJour } from '../../../domain/dates.js';
import { CATEGORIE_VALUES, type Categorie, type DocumentInfo, type DocumentsParCategorie, type TypeAccepte } from '../../../domain/documents.js';
import type { EvenementStatut, LogementComplet, LogementCreation, LogementStatutVue } from '../../../domain/logement.js';
import { foldForSearch } from '../../../domain/normalise.js';
import {
  BAILLEURS,
  labelOf,
  LOGEMENTS_ACTUELS,
  QUARTIER_OPTIONS,
  QUARTIERS_SOUHAITES,
  SEXES,
  SITUATIONS_FAMILIALES,
  TYPES_DE_LOGEMENT,
} from '../../../domain/options.js';
import { STATUT_INITIAL, statutRang, type Statut } from '../../../domain/statut.js';
import type { Db } from '../../db/index.js';
import type { DocumentRow, HousingRequestRow, NewHousingRequest } from '../../db/schema.js';

/**
 * What the managers' search looks into: every field of the request as people read it (option labels,
 * dd/mm/yyyy dates, the status), case and accents folded so that "helene" finds "Hélène".
 */
export function searchTextOf(d: Omit<LogementCreation, 'numeroUnique'> & { numeroUnique: string; dateDEnregistrement: string; statutDeLaDemande: string }): string {
  const parts = [
    d.numeroUnique,
    d.prenom,
    d.nom,
    d.email,
    d.numeroDeTelephone,
    d.adresse,
    d.adresseComplement,
    d.codePostal,
    d.ville,
    labelOf(SEXES, d.sexe),
    d.dateDeNaissance ?? '',
    labelOf(SITUATIONS_FAMILIALES, d.situationFamiliale),
    `${d.nombreDEnfants} enfant${d.nombreDEnfants > 1 ? 's' : ''}`,
    labelOf(LOGEMENTS_ACTUELS, d.logementActuel),
    labelOf(TYPES_DE_LOGEMENT, d.typeDeLogementActuel),
    labelOf(QUARTIER_OPTIONS, d.quartierActuel),
    labelOf(BAILLEURS, d.bailleurActuel),
    labelOf(TYPES_DE_LOGEMENT, d.typeDeLogementSouhaite),
    ...d.quartierSouhaite.map((q) => labelOf(QUARTIERS_SOUHAITES, q)),
    d.salaireBrut ?? '',
    d.salaireAvisImpot1 ?? '',
    d.salaireAvisImpot2 ?? '',
    formatJour(d.dateDEnregistrement),
    d.statutDeLaDemande,
    d.motivations,
    d.commentaires,
  ];
  return foldForSearch(parts.filter((p) => p !== '').join(' ')).replace(/\s+/gu, ' ');
}

export function documentUrl(numeroUnique: string, documentId: string): string {
  return `/app/api/logement/${encodeURIComponent(numeroUnique)}/documents/${documentId}`;
}

export function toStatutVue(row: HousingRequestRow): LogementStatutVue {
  return {
    acces: 'statut',
    numeroUnique: row.numeroUnique,
    statutDeLaDemande: row.statutDeLaDemande as Statut,
    dateDEnregistrement: row.dateDEnregistrement,
  };
}

export function groupDocuments(numeroUnique: string, rows: readonly DocumentRow[]): DocumentsParCategorie {
  const map = Object.fromEntries(CATEGORIE_VALUES.map((c) => [c, [] as DocumentInfo[]])) as DocumentsParCategorie;
  for (const row of rows) {
    map[row.category as Categorie]?.push({
      id: row.id,
      fileUrl: documentUrl(numeroUnique, row.id),
      name: row.originalName,
      type: row.contentType as TypeAccepte,
      size: row.size,
      uploadedAt: row.uploadedAt,
    });
  }
  return map;
}

export function toComplet(row: HousingRequestRow, documents: readonly DocumentRow[]): LogementComplet {
  return {
    acces: 'complet',
    id: row.id,
    numeroUnique: row.numeroUnique,
    prenom: row.prenom,
    nom: row.nom,
    sexe: row.sexe as LogementComplet['sexe'],
    dateDeNaissance: row.dateDeNaissance,
    email: row.email,
    numeroDeTelephone: row.numeroDeTelephone,
    adresse: row.adresse,
    adresseComplement: row.adresseComplement,
    codePostal: row.codePostal,
    ville: row.ville,
    salaireBrut: row.salaireBrut,
    salaireAvisImpot1: row.salaireAvisImpot1,
    salaireAvisImpot2: row.salaireAvisImpot2,
    situationFamiliale: row.situationFamiliale as LogementComplet['situationFamiliale'],
    nombreDEnfants: row.nombreDEnfants,
    logementActuel: row.logementActuel as LogementComplet['logementActuel'],
    typeDeLogementActuel: row.typeDeLogementActuel as LogementComplet['typeDeLogementActuel'],
    quartierActuel: row.quartierActuel as LogementComplet['quartierActuel'],
    bailleurActuel: row.bailleurActuel as LogementComplet['bailleurActuel'],
    typeDeLogementSouhaite: row.typeDeLogementSouhaite as LogementComplet['typeDeLogementSouhaite'],
    quartierSouhaite: JSON.parse(row.quartierSouhaite) as LogementComplet['quartierSouhaite'],
    dateDEnregistrement: row.dateDEnregistrement,
    statutDeLaDemande: row.statutDeLaDemande as Statut,
    motivations: row.motivations,
    commentaires: row.commentaires,
    documents: groupDocuments(row.numeroUnique, documents),
  };
}

export async function findByNumero(db: Db, numeroUnique: string): Promise<HousingRequestRow | undefined> {
  return db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', numeroUnique).executeTakeFirst();
}

export async function listDocuments(db: Db, housingRequestId: string): Promise<DocumentRow[]> {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('housingRequestId', '=', housingRequestId)
    .orderBy('category')
    .orderBy('position')
    .execute();
}

/**
 * Inserts a request and its first status event in one transaction.
 * A duplicate numéro surfaces as the database's UNIQUE violation (the caller maps it to 409).
 */
export async function insertLogement(
  db: Db,
  input: LogementCreation,
  accessKeyHash: string,
  now: Date,
  ownerUserId: string | null = null,
): Promise<HousingRequestRow> {
  const at = now.toISOString();
  const row: NewHousingRequest = {
    ...input,
    quartierSouhaite: JSON.stringify(input.quartierSouhaite),
    id: randomUUID(),
    accessKeyHash,
    dateDEnregistrement: at,
    statutDeLaDemande: STATUT_INITIAL,
    updatedAt: at,
    ownerUserId,
    searchText: searchTextOf({ ...input, dateDEnregistrement: at, statutDeLaDemande: STATUT_INITIAL }),
    nomTri: foldForSearch(input.nom),
    prenomTri: foldForSearch(input.prenom),
    statutRang: statutRang(STATUT_INITIAL),
  };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('housingRequests').values(row).execute();
    await trx
      .insertInto('statusEvents')
      .values({ id: randomUUID(), housingRequestId: row.id, fromStatus: null, toStatus: STATUT_INITIAL, actorUserId: null, at })
      .execute();
  });
  return row as HousingRequestRow;
}

/** The request's status history, oldest first; the actor's name only when `withActor` (managers). */
export async function listHistorique(db: Db, housingRequestId: string, withActor: boolean): Promise<EvenementStatut[]> {
  const rows = await db
    .selectFrom('statusEvents')
    .leftJoin('user', 'user.id', 'statusEvents.actorUserId')
    .select(['statusEvents.fromStatus', 'statusEvents.toStatus', 'statusEvents.at', 'user.prenom', 'user.nom'])
    .where('statusEvents.housingRequestId', '=', housingRequestId)
    .orderBy('statusEvents.at')
    .orderBy('statusEvents.id')
    .execute();
  return rows.map((r) => ({
    de: r.fromStatus as Statut | null,
    vers: r.toStatus as Statut,
    date: r.at,
    ...(withActor ? { par: r.prenom ? `${r.prenom} ${r.nom ?? ''}`.trim() : 'Dépôt de la demande' } : {}),
  }));
}
