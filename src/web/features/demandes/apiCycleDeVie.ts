import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { CycleDeVie } from '../../../domain/cycleDeVie.js';
import type { Statut } from '../../../domain/statut.js';
import { apiFetch, apiUrl } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';
import { keyHeaders } from './api.js';
import { telecharger } from '../../lib/telechargement.js';

/** The validity of a request, « Renouveler », « Réactiver » and the attestation (docs/api.md « Cycle de vie »). */
const chemin = (numeroUnique: string, suite: string) => `/logement/${encodeURIComponent(numeroUnique)}/${suite}`;
const cleCycle = (numeroUnique: string) => [...cles.demande(numeroUnique), 'cycle-de-vie'];

export function useCycleDeVie(numeroUnique: string) {
  return useQuery({
    queryKey: cleCycle(numeroUnique),
    queryFn: async () => (await apiFetch<{ data: CycleDeVie }>(chemin(numeroUnique, 'cycle-de-vie'), { headers: keyHeaders(numeroUnique) })).data,
  });
}

export function useRenouveler(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await apiFetch<{ data: CycleDeVie }>(chemin(numeroUnique, 'renouveler'), { method: 'POST', headers: keyHeaders(numeroUnique) })).data,
    onSuccess: (cycle) => queryClient.setQueryData(cleCycle(numeroUnique), cycle),
  });
}

export function useReactiver(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      (await apiFetch<{ data: { statutDeLaDemande: Statut; cycleDeVie: CycleDeVie } }>(chemin(numeroUnique, 'reactiver'), { method: 'POST', headers: keyHeaders(numeroUnique) }))
        .data,
    // The status, the history and the validity all changed.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.demande(numeroUnique) }).then(() => queryClient.invalidateQueries({ queryKey: cles.historique(numeroUnique) })),
  });
}

/** « Télécharger l'attestation d'enregistrement » (fetched with the key, which a plain link cannot send). */
export function telechargerAttestation(numeroUnique: string): Promise<void> {
  return telecharger(apiUrl(chemin(numeroUnique, 'attestation.pdf')), keyHeaders(numeroUnique), `attestation-enregistrement-${numeroUnique}.pdf`);
}
