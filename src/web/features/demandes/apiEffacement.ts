import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DemandeComplete } from '../../../domain/demande.js';
import { apiFetch, apiUrl, fetchOk, sendJson } from '../../lib/api.js';
import { telecharger } from '../../lib/telechargement.js';
import { oublierCle } from '../../lib/clesDAcces.js';
import { cles } from '../../lib/queryKeys.js';
import { documentsZipUrl, keyHeaders } from './api.js';

/** Withdrawal, erasure, deletion of a document, a new private link, the request's data (docs/api.md). */

const demandePath = (numeroUnique: string) => `/logement/${encodeURIComponent(numeroUnique)}`;

/** « Retirer ma demande »: on success this device forgets the request's key. */
export function useRetraitDemande(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () =>
      (await apiFetch<{ data: { message: string } }>(`${demandePath(numeroUnique)}/retirer`, { method: 'POST', headers: keyHeaders(numeroUnique) })).data,
    onSuccess: () => {
      oublierCle(numeroUnique);
      void queryClient.invalidateQueries({ queryKey: cles.mesDemandes });
      void queryClient.invalidateQueries({ queryKey: cles.listes });
    },
  });
}

/** A manager erases the request at the person's request. */
export function useEffacementGestionnaire(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => (await apiFetch<{ data: { message: string } }>(demandePath(numeroUnique), { method: 'DELETE' })).data,
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: cles.listes }),
  });
}

/** Deletes one document; the request's page shows the list without it. */
export function useSuppressionDocument(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (documentId: string) => {
      await fetchOk(apiUrl(`${demandePath(numeroUnique)}/documents/${encodeURIComponent(documentId)}`), { method: 'DELETE', headers: keyHeaders(numeroUnique) });
    },
    onSuccess: (_nothing, documentId) => {
      queryClient.setQueryData<DemandeComplete>(cles.demande(numeroUnique), (old) =>
        old
          ? { ...old, documents: Object.fromEntries(Object.entries(old.documents).map(([c, list]) => [c, list.filter((d) => d.id !== documentId)])) as DemandeComplete['documents'] }
          : old,
      );
      void queryClient.invalidateQueries({ queryKey: cles.demande(numeroUnique) });
    },
  });
}

/** "Renvoyer mon lien privé": one answer whatever the address. */
export function useRenvoiLien(numeroUnique: string) {
  return useMutation({
    mutationFn: async (email: string) => (await sendJson<{ data: { message: string } }>(`${demandePath(numeroUnique)}/renvoyer-lien`, { email })).data.message,
  });
}

/** « Télécharger mes données » of one request (demande.json and its documents). */
export function telechargerDonneesDemande(numeroUnique: string): Promise<void> {
  return telecharger(apiUrl(`${demandePath(numeroUnique)}/export.zip`), keyHeaders(numeroUnique), `demande-${numeroUnique}-donnees.zip`);
}

/** « Tout télécharger »: every document of the request in one zip, fetched with the request's key. */
export function telechargerDocumentsZip(numeroUnique: string): Promise<void> {
  return telecharger(documentsZipUrl(numeroUnique), keyHeaders(numeroUnique), `demande-${numeroUnique}-documents.zip`);
}

