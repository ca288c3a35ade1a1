import { keepPreviousData, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { requeteDeVue } from '../../../domain/demande.js';
import type {
  annulationStatutSchema,
  ChangementStatut,
  Compteurs,
  DemandeComplete,
  DemandeCreation,
  DemandeCreee,
  DemandeVue,
  EvenementStatut,
  LigneDemande,
  ListeQuery,
  StatutChange,
  StatutRestaure,
} from '../../../domain/demande.js';
import type { Categorie, DocumentsParCategorie } from '../../../domain/documents.js';
import type { Statut } from '../../../domain/statut.js';
import type { z } from '../../../domain/zod.js';
import { ApiError, apiFetch, apiUrl, fetchOk, networkError, sendJson, toApiError } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';
import { getCle } from '../../lib/clesDAcces.js';

/** A request's API path (the spec's URLs say `logement`). */
const demandePath = (numeroUnique: string) => `/logement/${encodeURIComponent(numeroUnique)}`;

/** The private key kept on this device for a request, as the API asks for it. */
export function keyHeaders(numeroUnique: string): Record<string, string> {
  const cle = getCle(numeroUnique);
  return cle ? { 'X-Access-Key': cle } : {};
}

export function useDemande(numeroUnique: string) {
  return useQuery({
    queryKey: cles.demande(numeroUnique),
    queryFn: async () => (await apiFetch<{ data: DemandeVue }>(demandePath(numeroUnique), { headers: keyHeaders(numeroUnique) })).data,
  });
}

export function useHistorique(numeroUnique: string) {
  return useQuery({
    queryKey: cles.historique(numeroUnique),
    // With the key, the history also carries the reason of a refusal.
    queryFn: async () =>
      (await apiFetch<{ data: EvenementStatut[] }>(`${demandePath(numeroUnique)}/historique`, { headers: keyHeaders(numeroUnique) })).data,
  });
}

/** The address of the zip of a request's documents. */
export const documentsZipUrl = (numeroUnique: string) => apiUrl(`${demandePath(numeroUnique)}/documents.zip`);

/** True when a request already exists for this numéro (the spec's pre-check before submitting). */
export async function demandeExiste(numeroUnique: string): Promise<boolean> {
  try {
    await apiFetch(demandePath(numeroUnique));
    return true;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return false;
    throw error;
  }
}

export function useCreationDemande() {
  return useMutation({
    mutationFn: async (demande: DemandeCreation) => (await sendJson<{ data: DemandeCreee }>('/logement', demande)).data,
  });
}

/**
 * Sends files to their blocks in one multipart call, reporting progress (fetch cannot report
 * upload progress, XMLHttpRequest can).
 */
function uploadDocuments(
  numeroUnique: string,
  files: { categorie: Categorie; file: File }[],
  onProgress: (fraction: number) => void,
): Promise<DocumentsParCategorie> {
  const form = new FormData();
  for (const { categorie, file } of files) form.append(categorie, file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', apiUrl(`/logement/upload-files/${encodeURIComponent(numeroUnique)}`));
    for (const [k, v] of Object.entries(keyHeaders(numeroUnique))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(networkError());
    xhr.onload = () => {
      const response = new Response(xhr.responseText, { status: xhr.status, headers: { 'content-type': 'application/json' } });
      if (xhr.status >= 200 && xhr.status < 300) {
        void response.json().then((body: { data: { documents: DocumentsParCategorie } }) => resolve(body.data.documents), reject);
      } else {
        void toApiError(response).then(reject);
      }
    };
    xhr.send(form);
  });
}

/** Sends documents; the request's page shows them at once. */
export function useEnvoiDocuments(numeroUnique: string, onProgress: (fraction: number) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (files: { categorie: Categorie; file: File }[]) => uploadDocuments(numeroUnique, files, onProgress),
    onSuccess: (documents) => queryClient.setQueryData<DemandeComplete>(cles.demande(numeroUnique), (old) => (old ? { ...old, documents } : old)),
  });
}

/** A document's bytes, fetched with the request's key (an <img src> cannot send the header). */
export async function fetchDocumentBlob(numeroUnique: string, fileUrl: string): Promise<Blob> {
  return (await fetchOk(fileUrl, { headers: keyHeaders(numeroUnique) })).blob();
}

/** The managers' list query in an address: the page's own address and the API's share it. */
export function listeQueryString(p: ListeQuery): string {
  // The view's query, with the sort, the page and its size always written.
  const search = new URLSearchParams(requeteDeVue(p));
  search.set('sort', p.sort);
  search.set('order', p.order);
  search.set('page', String(p.page));
  search.set('pageSize', String(p.pageSize));
  return search.toString();
}

/** The address of the list's export: its format, the list's query and the columns chosen. */
export const exportUrl = (params: ListeQuery, format: 'csv' | 'xlsx', colonnes: readonly string[]) => {
  const query = listeQueryString(params);
  return apiUrl(`/logement/export.${format}?${query}${query ? '&' : ''}colonnes=${colonnes.join(',')}`);
};

interface ListeDemandes {
  data: LigneDemande[];
  total: number;
  /** False past TOTAL_BORNE matches: more than `total` match (docs/decisions/0013). */
  totalExact: boolean;
}

/** The counts of the list's tabs; refreshed with the list (live events, status changes). */
export function useCompteurs() {
  return useQuery({
    queryKey: cles.compteurs,
    queryFn: async () => (await apiFetch<{ data: Compteurs }>('/compteurs')).data,
    placeholderData: keepPreviousData,
  });
}

export function useListe(params: ListeQuery) {
  return useQuery({
    queryKey: cles.liste(params),
    queryFn: () => apiFetch<ListeDemandes>(`/logement?${listeQueryString(params)}`),
    placeholderData: keepPreviousData,
  });
}

/** A change asked from the list's row. */
export interface ChangementDeLigne {
  ligne: LigneDemande;
  statut: Statut;
  /** The reason told to the applicant (« Refusé » only). */
  motif?: string;
}

/** Every page of the list shows this request with this status. */
function setStatutDansLesListes(queryClient: QueryClient, numeroUnique: string, statut: Statut) {
  queryClient.setQueriesData<ListeDemandes>({ queryKey: cles.pagesDeListe }, (old) =>
    old ? { ...old, data: old.data.map((r) => (r.numeroUnique === numeroUnique ? { ...r, statutDeLaDemande: statut } : r)) } : old,
  );
}

/**
 * A manager sets a request's status from the list: the row changes at once; if the server refuses,
 * it goes back (the caller says why); once done, the list and its counts are read again.
 */
export function useChangementStatut(params: ListeQuery) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ ligne, statut, motif }: ChangementDeLigne) =>
      (
        await sendJson<{ data: StatutChange }>('/logement/update/status', {
          logementId: ligne.numeroUnique,
          newStatus: statut,
          ...(motif ? { motif } : {}),
        } satisfies ChangementStatut)
      ).data,
    onMutate: async ({ ligne, statut }) => {
      const key = cles.liste(params);
      await queryClient.cancelQueries({ queryKey: key });
      const previous = queryClient.getQueryData<ListeDemandes>(key);
      queryClient.setQueryData<ListeDemandes>(key, (old) =>
        old ? { ...old, data: old.data.map((r) => (r.id === ligne.id ? { ...r, statutDeLaDemande: statut } : r)) } : old,
      );
      return { key, previous };
    },
    onError: (_error, _variables, snapshot) => {
      if (snapshot) queryClient.setQueryData(snapshot.key, snapshot.previous);
    },
    // The tabs' and statuses' counts, and a tab the request leaves: read again, whether the live stream is up or not.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.listes }),
  });
}

/**
 * Undoes a status change within its 10 seconds (before its e-mail leaves): the previous status comes back in
 * every list and on the request's page. A 409 TROP_TARD says it is too late, in French.
 */
export function useAnnulationStatut() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) =>
      (await sendJson<{ data: StatutRestaure }>('/logement/update/status/annuler', { id } satisfies z.input<typeof annulationStatutSchema>)).data,
    onSuccess: (retour) => {
      setStatutDansLesListes(queryClient, retour.numeroUnique, retour.statutDeLaDemande);
      void queryClient.invalidateQueries({ queryKey: cles.listes });
      void queryClient.invalidateQueries({ queryKey: cles.demande(retour.numeroUnique) });
      void queryClient.invalidateQueries({ queryKey: cles.historique(retour.numeroUnique) });
    },
  });
}
