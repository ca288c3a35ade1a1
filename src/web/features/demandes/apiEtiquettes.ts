import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Etiquette, NouvelleEtiquette } from '../../../domain/etiquettes.js';
import { apiFetch, apiUrl, fetchOk, sendJson } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';

/** Labels (docs/api.md « Labels »): the set, a request's labels. */

export function useEtiquettes() {
  return useQuery({ queryKey: cles.etiquettes, queryFn: async () => (await apiFetch<{ data: Etiquette[] }>('/etiquettes')).data, staleTime: 60_000 });
}

export function useEtiquettesDemande(numeroUnique: string) {
  return useQuery({
    queryKey: cles.etiquettesDemande(numeroUnique),
    queryFn: async () => (await apiFetch<{ data: string[] }>(`/logement/${encodeURIComponent(numeroUnique)}/etiquettes`)).data,
  });
}

/** The request's labels become `ids`: its page, its journal and the lists show it. */
export function useChangementEtiquettes(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (ids: string[]) => (await sendJson<{ data: string[] }>(`/logement/${encodeURIComponent(numeroUnique)}/etiquettes`, { ids }, 'PUT')).data,
    onSuccess: async (ids) => {
      queryClient.setQueryData(cles.etiquettesDemande(numeroUnique), ids);
      await Promise.all([queryClient.invalidateQueries({ queryKey: cles.journal(numeroUnique) }), queryClient.invalidateQueries({ queryKey: cles.listes })]);
    },
  });
}

export function useCreationEtiquette() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (e: NouvelleEtiquette) => (await sendJson<{ data: Etiquette }>('/etiquettes', e)).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.etiquettes }),
  });
}

export function useSuppressionEtiquette() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      await fetchOk(apiUrl(`/etiquettes/${encodeURIComponent(id)}`), { method: 'DELETE' });
    },
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: cles.etiquettes }), queryClient.invalidateQueries({ queryKey: cles.demandes })]),
  });
}
