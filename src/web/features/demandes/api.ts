import { useQuery } from '@tanstack/react-query';
import type { Categorie, DocumentsParCategorie, TypeAccepte } from '../../../domain/documents.js';
import type { LogementCree, LogementInput, LogementStatutVue, LogementVue } from '../../../domain/logement.js';
import { ApiError, apiFetch, NETWORK_MESSAGE, postJson, toApiError } from '../../lib/api.js';
import { getCle } from './cles.js';

const ACCESS_HEADER = 'X-Access-Key';

function keyHeaders(numeroUnique: string): Record<string, string> {
  const cle = getCle(numeroUnique);
  return cle ? { [ACCESS_HEADER]: cle } : {};
}

export async function fetchDemande(numeroUnique: string): Promise<LogementVue> {
  const body = await apiFetch<{ data: LogementVue }>(`/logement/${encodeURIComponent(numeroUnique)}`, { headers: keyHeaders(numeroUnique) });
  return body.data;
}

export function useDemande(numeroUnique: string) {
  return useQuery({ queryKey: ['logement', numeroUnique], queryFn: () => fetchDemande(numeroUnique) });
}

export function useMesDemandes() {
  return useQuery({
    queryKey: ['logement', 'mine'],
    queryFn: async () => (await apiFetch<{ data: LogementStatutVue[] }>('/logement/mine')).data,
  });
}

/** True when a request already exists for this numéro (the spec's pre-check before submitting). */
export async function demandeExiste(numeroUnique: string): Promise<boolean> {
  try {
    await apiFetch(`/logement/${encodeURIComponent(numeroUnique)}`);
    return true;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) return false;
    throw error;
  }
}

export async function createDemande(input: LogementInput): Promise<LogementCree> {
  return (await postJson<{ data: LogementCree }>('/logement', input)).data;
}

export interface Parametres {
  uploadMaxBytes: number;
  maxFichiersParEnvoi: number;
  typesAcceptes: Record<TypeAccepte, string[]>;
  google: boolean;
}

export function useParametres() {
  return useQuery({
    queryKey: ['parametres'],
    queryFn: async () => (await apiFetch<{ data: Parametres }>('/parametres')).data,
    staleTime: Infinity,
  });
}

export interface Suggestion {
  label: string;
  adresse: string;
  codePostal: string;
  ville: string;
}

export async function fetchAdresses(q: string, signal?: AbortSignal): Promise<Suggestion[]> {
  return (await apiFetch<{ data: Suggestion[] }>(`/adresses?q=${encodeURIComponent(q)}`, { signal })).data;
}

/**
 * Sends files to their blocks in one multipart call, reporting progress (fetch cannot report
 * upload progress, XMLHttpRequest can).
 */
export function uploadDocuments(
  numeroUnique: string,
  files: { categorie: Categorie; file: File }[],
  onProgress: (fraction: number) => void,
): Promise<DocumentsParCategorie> {
  const form = new FormData();
  for (const { categorie, file } of files) form.append(categorie, file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/app/api/logement/upload-files/${encodeURIComponent(numeroUnique)}`);
    for (const [k, v] of Object.entries(keyHeaders(numeroUnique))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', NETWORK_MESSAGE));
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

/** A document's bytes, fetched with the request's key (an <img src> cannot send the header). */
export async function fetchDocumentBlob(numeroUnique: string, fileUrl: string): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(fileUrl, { headers: keyHeaders(numeroUnique) });
  } catch {
    throw new ApiError(0, 'NETWORK', NETWORK_MESSAGE);
  }
  if (!response.ok) throw await toApiError(response);
  return response.blob();
}
