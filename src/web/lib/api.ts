/** Calls to /app/api with errors turned into French messages for people (docs/produit.md « Messages »). */
import { MESSAGES, type CorpsErreur } from '../../domain/erreurs.js';

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

/** fetch, with a network failure or an error status thrown as an ApiError. */
export async function fetchOk(url: string, init: RequestInit = {}): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw networkError();
  }
  if (!response.ok) throw await toApiError(response);
  return response;
}

export async function apiFetch<T>(path: string, init: RequestInit = {}): Promise<T> {
  return (await (await fetchOk(apiUrl(path), init)).json()) as T;
}

export function sendJson<T>(path: string, body: unknown, method: 'POST' | 'PATCH' | 'PUT' = 'POST'): Promise<T> {
  return apiFetch<T>(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
