import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CleCree, CleOpen311, NouvelleCle } from '../../../domain/open311.js';
import { apiFetch, sendJson } from '../../lib/api.js';
import { clesTechnique } from './cles.js';

/** The admins' Open311 API keys (docs/api.md « Open311 GeoReport v2 », « Clés d’API »). */
const CHEMIN = '/open311/cles';

/** Every key issued, newest first (never the keys themselves: only their names, dates and state). */
export function useClesOpen311() {
  return useQuery({ queryKey: clesTechnique.clesOpen311, queryFn: async () => (await apiFetch<{ data: CleOpen311[] }>(CHEMIN)).data });
}

/** Issues a key: the answer holds the key itself, this once; the list is read again. */
export function useCreerCleOpen311() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (corps: NouvelleCle) => (await sendJson<{ data: CleCree }>(CHEMIN, corps)).data,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clesTechnique.clesOpen311 }),
  });
}

/** Revokes a key: its row as the server answers it replaces the listed one at once, then the list is read again. */
export function useRevoquerCleOpen311() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await sendJson<{ data: CleOpen311 }>(`${CHEMIN}/${encodeURIComponent(id)}/revoquer`, {})).data,
    onSuccess: (cle) => {
      queryClient.setQueryData<CleOpen311[]>(clesTechnique.clesOpen311, (liste) => liste?.map((c) => (c.id === cle.id ? cle : c)));
      return queryClient.invalidateQueries({ queryKey: clesTechnique.clesOpen311 });
    },
  });
}
