import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AvisDocument, Correction, NouvelleCorrection } from '../../../domain/corrections.js';
import type { DemandeComplete, DemandeModification } from '../../../domain/demande.js';
import type { DocumentInfo } from '../../../domain/documents.js';
import { apiFetch, apiUrl, fetchOk, sendJson } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';
import { keyHeaders } from './api.js';

/** Requests for corrections and the review of documents (docs/api.md « Corrections »). */

const base = (numeroUnique: string) => `/logement/${encodeURIComponent(numeroUnique)}`;

/** What each change shows at once: the request's page, the managers' journal, the list's badge. */
function useRafraichir(numeroUnique: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: cles.demande(numeroUnique) }),
      queryClient.invalidateQueries({ queryKey: cles.journal(numeroUnique) }),
      queryClient.invalidateQueries({ queryKey: cles.listes }),
    ]);
}

export function useDemandeCorrection(numeroUnique: string) {
  const rafraichir = useRafraichir(numeroUnique);
  return useMutation({
    mutationFn: async (corps: NouvelleCorrection) => (await sendJson<{ data: Correction }>(`${base(numeroUnique)}/corrections`, corps)).data,
    onSuccess: rafraichir,
  });
}

export function useClotureCorrection(numeroUnique: string) {
  const rafraichir = useRafraichir(numeroUnique);
  return useMutation({
    mutationFn: async () => {
      await fetchOk(apiUrl(`${base(numeroUnique)}/corrections/cloture`), { method: 'POST' });
    },
    onSuccess: rafraichir,
  });
}

/** « J'ai fait les corrections », sent with the request's key when this device holds it. */
export function useCorrectionsFaites(numeroUnique: string) {
  const rafraichir = useRafraichir(numeroUnique);
  return useMutation({
    mutationFn: async () => (await apiFetch<{ data: Correction }>(`${base(numeroUnique)}/corrections/faites`, { method: 'POST', headers: keyHeaders(numeroUnique) })).data,
    onSuccess: rafraichir,
  });
}

export function useAvisDocument(numeroUnique: string) {
  const rafraichir = useRafraichir(numeroUnique);
  return useMutation({
    mutationFn: async ({ documentId, avis }: { documentId: string; avis: AvisDocument }) =>
      (await sendJson<{ data: DocumentInfo }>(`${base(numeroUnique)}/documents/${encodeURIComponent(documentId)}/avis`, avis, 'PUT')).data,
    onSuccess: rafraichir,
  });
}

/** The applicant's corrections to the fields (`PUT /logement/:numeroUnique`), with the key when this device holds it. */
export function useModificationDemande(numeroUnique: string) {
  const queryClient = useQueryClient();
  const rafraichir = useRafraichir(numeroUnique);
  return useMutation({
    mutationFn: async (champs: DemandeModification) =>
      (
        await apiFetch<{ data: DemandeComplete }>(base(numeroUnique), {
          method: 'PUT',
          headers: { ...keyHeaders(numeroUnique), 'content-type': 'application/json' },
          body: JSON.stringify(champs),
        })
      ).data,
    onSuccess: async (demande) => {
      queryClient.setQueryData(cles.demande(numeroUnique), demande);
      await rafraichir();
    },
  });
}
