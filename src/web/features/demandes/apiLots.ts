import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { EtatLot, NouveauLot } from '../../../domain/lots.js';
import { apiFetch, sendJson } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';

/** Bulk actions on the list (docs/api.md « Bulk actions »): start one, follow its progress. */

export function useLancerLot() {
  return useMutation({ mutationFn: async (lot: NouveauLot) => (await sendJson<{ data: EtatLot }>('/lots', lot)).data });
}

/**
 * The progress of a running action, read twice a second until it ends; the lists and the requests' managers' part
 * (« Suivie par », labels, journal) are read again then.
 */
export function useEtatLot(id: string | null) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: cles.lot(id),
    queryFn: async () => (await apiFetch<{ data: EtatLot }>(`/lots/${encodeURIComponent(id!)}`)).data,
    enabled: id !== null,
    refetchInterval: (q) => (q.state.data?.fini ? false : 500),
  });
  const fini = query.data?.fini ?? false;
  useEffect(() => {
    if (fini) void Promise.all([queryClient.invalidateQueries({ queryKey: cles.listes }), queryClient.invalidateQueries({ queryKey: cles.instructions })]);
  }, [fini, queryClient]);
  return query;
}
