import { useQuery } from '@tanstack/react-query';
import type { InformationsLegales } from '../../../domain/informations.js';
import { apiFetch } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';

/** The publisher and the retention periods of this installation (they change only with a restart). */
export function useInformationsLegales() {
  return useQuery({
    queryKey: cles.informationsLegales,
    queryFn: async () => (await apiFetch<{ data: InformationsLegales }>('/informations-legales')).data,
    staleTime: Infinity,
  });
}
