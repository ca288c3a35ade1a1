import type { ListeParams } from '../../domain/demande.js';

/**
 * Every TanStack Query key of the web app. Keys nest, so that a prefix reaches a whole family:
 * `cles.demandes` is everything about housing requests (dropped at sign-out), `cles.listes` every
 * page of the managers' list.
 */
export const cles = {
  moi: ['moi'],
  parametres: ['parametres'],
  territoire: ['territoire'],
  informationsLegales: ['informations-legales'],
  profilPublic: (uid: string | undefined) => ['profil-public', uid],
  utilisateurs: ['utilisateurs'],
  rechercheUtilisateurs: (q: string, page: number) => ['utilisateurs', q, page],
  adresses: (q: string) => ['adresses', q],
  demandes: ['demandes'],
  demande: (numeroUnique: string) => ['demandes', 'detail', numeroUnique],
  mesDemandes: ['demandes', 'miennes'],
  historique: (numeroUnique: string) => ['demandes', 'historique', numeroUnique],
  messages: (numeroUnique: string) => ['demandes', 'messages', numeroUnique],
  listes: ['demandes', 'liste'],
  compteurs: ['demandes', 'liste', 'compteurs'],
  vues: ['vues'],
  lot: (id: string | null) => ['lots', id],
  etiquettes: ['etiquettes'],
  etiquettesDemande: (numeroUnique: string) => ['demandes', 'instruction', numeroUnique, 'etiquettes'],
  /** Every request's managers' part (« Suivie par », notes, journal, labels): what a bulk action may change. */
  instructions: ['demandes', 'instruction'],
  instruction: (numeroUnique: string) => ['demandes', 'instruction', numeroUnique],
  /** The managers and admins a request may be given to (« Confier à… »). */
  gestionnaires: ['demandes', 'gestionnaires'],
  notes: (numeroUnique: string) => ['demandes', 'instruction', numeroUnique, 'notes'],
  suivi: (numeroUnique: string) => ['demandes', 'instruction', numeroUnique, 'suivi'],
  journal: (numeroUnique: string) => ['demandes', 'instruction', numeroUnique, 'journal'],
  /** The pages of the list (rows), apart from the tabs' counts: what a status change writes into. */
  pagesDeListe: ['demandes', 'liste', 'pages'],
  liste: (params: ListeParams) => ['demandes', 'liste', 'pages', params],
} as const;
