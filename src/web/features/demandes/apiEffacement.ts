import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { DemandeComplete } from '../../../domain/demande.js';
import { apiFetch, apiUrl, errorMessage, fetchOk, sendJson } from '../../lib/api.js';
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

/** Saves a file the API answered (fetched with the request's key, which a plain link cannot send). */
export async function telecharger(url: string, headers: Record<string, string>, fileName: string): Promise<void> {
  const blob = await (await fetchOk(url, { headers })).blob();
  const objectUrl = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = objectUrl;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
}

/** « Télécharger mes données » of one request (demande.json and its documents). */
export function telechargerDonneesDemande(numeroUnique: string): Promise<void> {
  return telecharger(apiUrl(`${demandePath(numeroUnique)}/export.zip`), keyHeaders(numeroUnique), `demande-${numeroUnique}-donnees.zip`);
}

/** « Tout télécharger »: every document of the request in one zip, fetched with the request's key. */
export function telechargerDocumentsZip(numeroUnique: string): Promise<void> {
  return telecharger(documentsZipUrl(numeroUnique), keyHeaders(numeroUnique), `demande-${numeroUnique}-documents.zip`);
}

/** A download started by a button: whether it is under way, and why it failed, in French. */
export function useTelechargement() {
  const [etat, setEtat] = useState<{ pending: boolean; error: string | null }>({ pending: false, error: null });
  const lancer = useCallback(async (telecharge: () => Promise<void>) => {
    setEtat({ pending: true, error: null });
    try {
      await telecharge();
      setEtat({ pending: false, error: null });
    } catch (error) {
      setEtat({ pending: false, error: errorMessage(error, 'Le téléchargement a échoué. Réessayez dans un instant.') });
    }
  }, []);
  return { ...etat, lancer };
}
