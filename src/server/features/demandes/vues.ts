import type { Correction } from '../../../domain/corrections.js';
import type { DemandeComplete, DemandeStatutVue } from '../../../domain/demande.js';
import { CATEGORIE_VALUES, type Avis, type Categorie, type DocumentInfo, type DocumentsParCategorie, type TypeAccepte } from '../../../domain/documents.js';
import type { Statut } from '../../../domain/statut.js';
import type { DemandeRow } from '../../db/schema.js';
import type { CorrectionVueRow, DemandeCompleteRow, DocumentVueRow } from './lecture-statut.js';

/** Rows as the API shows them (docs/produit.md « Confidentialité »): the status view, the full view. */

export function documentUrl(numeroUnique: string, documentId: string): string {
  return `/app/api/logement/${encodeURIComponent(numeroUnique)}/documents/${documentId}`;
}

export function toStatutVue(row: Pick<DemandeRow, 'numeroUnique' | 'statutDeLaDemande' | 'dateDEnregistrement'>): DemandeStatutVue {
  return {
    acces: 'statut',
    numeroUnique: row.numeroUnique,
    statutDeLaDemande: row.statutDeLaDemande as Statut,
    dateDEnregistrement: row.dateDEnregistrement,
  };
}

/** A stored document (of a block, or a message's attachment) as people see it. */
export function documentInfo(numeroUnique: string, row: DocumentVueRow): DocumentInfo {
  return {
    id: row.id,
    fileUrl: documentUrl(numeroUnique, row.id),
    name: row.originalName,
    type: row.contentType as TypeAccepte,
    size: row.size,
    uploadedAt: row.uploadedAt,
    avis: row.avis as Avis | null,
    motifAvis: row.avis === 'a-remplacer' ? row.avisMotif : null,
  };
}

export function groupDocuments(numeroUnique: string, rows: readonly DocumentVueRow[]): DocumentsParCategorie {
  // A loop rather than Object.fromEntries of pairs: the full view's every answer builds it (~1 µs less, issue 11).
  const map = {} as DocumentsParCategorie;
  for (const c of CATEGORIE_VALUES) map[c] = [];
  for (const row of rows) map[row.category as Categorie]?.push(documentInfo(numeroUnique, row));
  return map;
}

type Complete<K extends keyof DemandeComplete> = DemandeComplete[K];

/** The open request for corrections: asked, or done by the applicant and waiting for a manager's check. */
export function toCorrection(row: CorrectionVueRow): Correction {
  return { etat: row.faiteLe ? 'faite' : 'demandee', motif: row.motif, demandeeLe: row.demandeeLe, faiteLe: row.faiteLe };
}

export function toComplete(row: DemandeCompleteRow, documents: readonly DocumentVueRow[], correction: CorrectionVueRow | null = null): DemandeComplete {
  return {
    acces: 'complet',
    id: row.id,
    numeroUnique: row.numeroUnique,
    prenom: row.prenom,
    nom: row.nom,
    sexe: row.sexe as Complete<'sexe'>,
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
    situationFamiliale: row.situationFamiliale as Complete<'situationFamiliale'>,
    nombreDEnfants: row.nombreDEnfants,
    logementActuel: row.logementActuel as Complete<'logementActuel'>,
    typeDeLogementActuel: row.typeDeLogementActuel as Complete<'typeDeLogementActuel'>,
    quartierActuel: row.quartierActuel as Complete<'quartierActuel'>,
    bailleurActuel: row.bailleurActuel as Complete<'bailleurActuel'>,
    typeDeLogementSouhaite: row.typeDeLogementSouhaite as Complete<'typeDeLogementSouhaite'>,
    quartierSouhaite: JSON.parse(row.quartierSouhaite) as Complete<'quartierSouhaite'>,
    dateDEnregistrement: row.dateDEnregistrement,
    statutDeLaDemande: row.statutDeLaDemande as Statut,
    motivations: row.motivations,
    commentaires: row.commentaires,
    documents: groupDocuments(row.numeroUnique, documents),
    correction: correction && toCorrection(correction),
  };
}
