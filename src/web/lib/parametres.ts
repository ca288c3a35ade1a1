import { useQuery } from '@tanstack/react-query';
import type { Parametres, Territoire } from '../../domain/parametres.js';
import { apiFetch } from './api.js';
import { cles } from './queryKeys.js';

/** Limits and switches of this installation (they change only with a restart). */
export function useParametres() {
  return useQuery({ queryKey: cles.parametres, queryFn: async () => (await apiFetch<{ data: Parametres }>('/parametres')).data, staleTime: Infinity });
}

/** The sign-up lists: the city, the quartier and its streets. */
export function useTerritoire() {
  return useQuery({ queryKey: cles.territoire, queryFn: async () => (await apiFetch<{ data: Territoire }>('/territoire')).data, staleTime: Infinity });
}
