import type { ListeGestionSignalementsQuery, ListeSignalementsQuery } from '../../../domain/signalements.js';

/**
 * The TanStack Query keys of the technical reports' pages (beside lib/queryKeys.ts, whose keys are the housing
 * requests' and the accounts'). They nest: `technique` reaches everything, `listes` every page of the public list.
 */
export const clesTechnique = {
  tout: ['technique'],
  carte: ['technique', 'carte'],
  perimetre: ['technique', 'perimetre'],
  categories: ['technique', 'categories'],
  listes: ['technique', 'liste'],
  liste: (q: ListeSignalementsQuery) => ['technique', 'liste', q],
  proches: (lat: number, lon: number) => ['technique', 'proches', lat, lon],
  signalement: (numero: string) => ['technique', 'signalement', numero],
  /** The managers' list and full view (their own routes). */
  listesGestion: ['technique', 'gestion', 'liste'],
  listeGestion: (q: ListeGestionSignalementsQuery) => ['technique', 'gestion', 'liste', q],
  signalementGestion: (numero: string) => ['technique', 'gestion', 'signalement', numero],
  /** The admins' Open311 API keys. */
  clesOpen311: ['technique', 'open311', 'cles'],
} as const;
