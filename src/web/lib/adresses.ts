import { useQuery } from '@tanstack/react-query';
import type { Suggestion } from '../../domain/adresses.js';
import { apiFetch } from './api.js';
import { cles } from './queryKeys.js';

/**
 * Address suggestions from /app/api/adresses (the national address base, else the district's street list), for
 * the housing form and the technical report's placing: the national ones carry a position (`lat`, `lon`).
 */
export function useAdresses(q: string, enabled: boolean) {
  return useQuery({
    queryKey: cles.adresses(q),
    queryFn: async ({ signal }) => (await apiFetch<{ data: Suggestion[] }>(`/adresses?q=${encodeURIComponent(q)}`, { signal })).data,
    enabled,
    staleTime: 5 * 60_000,
    retry: false,
  });
}
