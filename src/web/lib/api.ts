/** Calls to /app/api with errors turned into French messages for people (docs/produit.md « Messages »). */
import { MESSAGES, type CorpsErreur } from '../../domain/erreurs.js';
import { noterReponse } from './apiActivite.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The address of an API path, for what the browser fetches by itself (links, EventSource, uploads). */
export function apiUrl(path: string): string {
  return `/app/api${path}`;
}

/** The message a person reads for a failure: the server's own, else `fallback`. */
export function errorMessage(error: unknown, fallback: string = MESSAGES.inattendue): string {
  return error instanceof ApiError ? error.message : fallback;
}

export const networkError = () => new ApiError(0, 'NETWORK', MESSAGES.reseau);

export async function toApiError(response: Response): Promise<ApiError> {
  let body: Partial<CorpsErreur> = {};
  try {
    body = (await response.json()) as Partial<CorpsErreur>;
  } catch {
    /* not JSON: keep the generic message */
  }
  return new ApiError(response.status, body.error?.code ?? 'HTTP_ERROR', body.error?.message ?? MESSAGES.inattendue, body.error?.fields ?? {});
}

/**
 * fetch, with a network failure or an error status thrown as an ApiError. Every answer of the API moves the
 * session's clock (apiActivite.ts): a request is activity, and a 401 says the session is over.
 */
export async function fetchOk(url: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  const envoi = Date.now();
  try {
    response = await fetch(url, init);
  } catch {
    throw networkError();
  }
  const api = url.startsWith(apiUrl('/'));
  if (!response.ok) {
    const error = await toApiError(response);
    if (api) noterReponse(url, envoi, Date.now(), response.status, error.code);
    throw error;
  }
  if (api) noterReponse(url, envoi, Date.now(), response.status);
  return response;
}

export async function apiFetch<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await (await fetchOk(apiUrl(path), init)).json()) as T;
}

export function sendJson<T>(path: string, body: unknown, method: 'POST' | 'PATCH' | 'PUT' = 'POST'): Promise<T> {
  return apiFetch<T>(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
