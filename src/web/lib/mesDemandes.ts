import { useQuery } from '@tanstack/react-query';
import type { MaDemande } from '../../domain/demande.js';
import { apiFetch } from './api.js';
import { cles } from './queryKeys.js';

/** « Mes demandes »: the requests of the signed-in account (the housing page lists them, the profile offers to withdraw them). */
export function useMesDemandes() {
  return useQuery({ queryKey: cles.mesDemandes, queryFn: async () => (await apiFetch<{ data: MaDemande[] }>('/logement/mine')).data });
}
