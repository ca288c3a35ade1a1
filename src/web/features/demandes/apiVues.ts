import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NouvelleVue, Vue } from '../../../domain/vues.js';
import { apiFetch, apiUrl, fetchOk, sendJson } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';

export function useVues() {
  return useQuery({ queryKey: cles.vues, queryFn: async () => (await apiFetch<{ data: Vue[] }>('/vues')).data });
}

export function useAjoutVue() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (vue: NouvelleVue) => (await sendJson<{ data: Vue }>('/vues', vue)).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.vues }),
  });
}

export function useSuppressionVue() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => {
      await fetchOk(apiUrl(`/vues/${encodeURIComponent(id)}`), { method: 'DELETE' });
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.vues }),
  });
}
