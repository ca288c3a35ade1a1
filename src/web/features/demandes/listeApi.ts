import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { EvenementStatut, LigneDemande } from '../../../domain/logement.js';

export type { LigneDemande };
import type { Statut } from '../../../domain/statut.js';
import { apiFetch, postJson } from '../../lib/api.js';

export interface ListeParams {
  q: string;
  status: string;
  sort: string;
  order: 'asc' | 'desc';
  page: number;
  pageSize: number;
}

export function listeQueryString(p: ListeParams): string {
  const search = new URLSearchParams();
  if (p.q) search.set('q', p.q);
  if (p.status) search.set('status', p.status);
  search.set('sort', p.sort);
  search.set('order', p.order);
  search.set('page', String(p.page));
  search.set('pageSize', String(p.pageSize));
  return search.toString();
}

export function useListe(params: ListeParams) {
  return useQuery({
    queryKey: ['liste', params],
    queryFn: () => apiFetch<{ data: LigneDemande[]; total: number }>(`/logement?${listeQueryString(params)}`),
    placeholderData: keepPreviousData,
  });
}

export async function changerStatut(numeroUnique: string, newStatus: Statut): Promise<void> {
  await postJson('/logement/update/status', { logementId: numeroUnique, newStatus });
}

export function useHistorique(numeroUnique: string) {
  return useQuery({
    queryKey: ['historique', numeroUnique],
    queryFn: async () => (await apiFetch<{ data: EvenementStatut[] }>(`/logement/${encodeURIComponent(numeroUnique)}/historique`)).data,
  });
}

/**
 * Live status changes (Server-Sent Events): every change for managers' lists, one request's for its
 * detail page. Each change refreshes what shows it. The browser reconnects by itself.
 */
export function useStatutEnDirect(numeroUnique?: string): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const url = numeroUnique ? `/app/api/evenements?numero=${encodeURIComponent(numeroUnique)}` : '/app/api/evenements';
    const source = new EventSource(url);
    source.addEventListener('statut', (event) => {
      const change = JSON.parse((event as MessageEvent<string>).data) as { numeroUnique: string };
      void queryClient.invalidateQueries({ queryKey: ['liste'] });
      void queryClient.invalidateQueries({ queryKey: ['logement', change.numeroUnique] });
      void queryClient.invalidateQueries({ queryKey: ['historique', change.numeroUnique] });
    });
    return () => source.close();
  }, [numeroUnique, queryClient]);
}
