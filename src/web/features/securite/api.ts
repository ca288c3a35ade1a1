import { useQuery } from '@tanstack/react-query';
import type { InformationsLegales } from '../../../domain/informations.js';
import { apiFetch } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';

/**
 * The public settings of this installation, the police municipale's contact among them (POLICE_MUNICIPALE_*).
 * The same call and cache as the legal pages': they change only with a restart.
 */
export function usePoliceMunicipale() {
  return useQuery({
    queryKey: cles.informationsLegales,
    queryFn: async () => (await apiFetch<{ data: InformationsLegales }>('/informations-legales')).data,
    staleTime: Infinity,
    select: (data) => data.policeMunicipale ?? null,
  });
}
