/** Calls to /app/api with errors turned into French messages for people (DESIGN.md errors). */

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

export const NETWORK_MESSAGE = 'Impossible de joindre le serveur. Vérifiez votre connexion internet puis réessayez.';

interface ErrorBody {
  error?: { code?: string; message?: string; fields?: Record<string, string> };
}

export async function toApiError(response: Response): Promise<ApiError> {
  let body: ErrorBody = {};
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    /* not JSON: keep the generic message */
  }
  return new ApiError(
    response.status,
    body.error?.code ?? 'HTTP_ERROR',
    body.error?.message ?? 'Une erreur inattendue est survenue. Réessayez dans un instant.',
    body.error?.fields ?? {},
  );
}

export async function apiFetch<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/app/api${path}`, init);
  } catch {
    throw new ApiError(0, 'NETWORK', NETWORK_MESSAGE);
  }
  if (!response.ok) throw await toApiError(response);
  return (await response.json()) as T;
}

export function postJson<T>(path: string, body: unknown): Promise<T> {
  return apiFetch<T>(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
