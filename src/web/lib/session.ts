import { useQuery } from '@tanstack/react-query';
import type { EcheancesSession, Moi } from '../../domain/compte.js';
import { ApiError, apiFetch } from './api.js';
import { reglerHorloge } from './apiActivite.js';
import { cles } from './queryKeys.js';

/** A local signed-in flag and uid, kept for the redirects of the sign-in screen (docs/produit.md « Comptes »); the server session is the truth. */
const FLAG = 'quartier-vivant.connecte';
const UID = 'quartier-vivant.uid';

export function setLocalSignedIn(uid: string | null): void {
  try {
    if (uid) {
      localStorage.setItem(FLAG, 'true');
      localStorage.setItem(UID, uid);
    } else {
      localStorage.removeItem(FLAG);
      localStorage.removeItem(UID);
    }
  } catch {
    /* storage unavailable: the server session still decides */
  }
}

async function fetchMoi(): Promise<Moi | null> {
  try {
    const moi = (await apiFetch<{ data: Moi }>('/user/me')).data;
    setLocalSignedIn(moi.uid);
    return moi;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      setLocalSignedIn(null);
      return null;
    }
    throw error;
  }
}

/** The signed-in account (null when signed out), from the server session. */
export function useMoi() {
  return useQuery({ queryKey: cles.moi, queryFn: fetchMoi, staleTime: 60_000 });
}

/**
 * Whether the account's session ends after 30 minutes without a request, and so gets a warning before
 * (features/compte/FinDeSession.tsx): managers' and admins' (isGestionnaire of domain/compte.ts, written here so
 * that the first screen does not load zod). Residents' last 30 days: no warning.
 */
export function sessionCourte(moi: Moi | null | undefined): boolean {
  return moi?.userType === 'manager' || moi?.userType === 'admin';
}

/**
 * GET /user/session: when the session ends, which sets the session's clock (apiActivite.ts). The call is
 * activity like any other: it is « Rester connecté ».
 */
export async function prolongerSession(): Promise<EcheancesSession> {
  const envoi = Date.now();
  const { data } = await apiFetch<{ data: EcheancesSession }>('/user/session');
  reglerHorloge(data, envoi, Date.now());
  return data;
}

/** The sign-in screen's address, written here (not imported from paths.ts) so that this module stays free of the router. */
const CONNEXION = '/connexion';

/** Paths never worth coming back to after signing in: the sign-in screens themselves, and signing out. */
const SANS_RETOUR = /^\/(?:connexion|deconnexion|invitation)(?:[/?#]|$)/u;

/** A reference origin, to read a path the way a browser would (it is never navigated to). */
const ICI = 'https://quartier-vivant.invalid';

/**
 * Where a person may be sent after signing in (`?retour=`, docs/produit.md « Comptes »): a path of this
 * site only, as it was given, else null. Refused: anything that is not a single « / » then a path
 * (`//host`, `/\host`, `https:`, `javascript:`), control characters and spaces a browser would drop or
 * turn into a slash, the sign-in and sign-out screens, more than 2,000 characters. Nothing else is ever
 * navigated to: a link someone else wrote must not send a resident to another site (an open redirect).
 */
export function destinationSure(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return null;
  if (value[0] !== '/' || value[1] === '/' || value[1] === '\\') return null;
  // Browsers drop tabs and newlines inside a URL (`/\t/host` is `//host`) and read « \ » as « / ».
  if (/[\s\\\p{Cc}]/u.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, ICI);
  } catch {
    return null;
  }
  // A second guard, on the browser's own reading: the checks above already refuse every other host.
  if (url.origin !== ICI) return null;
  if (SANS_RETOUR.test(url.pathname)) return null;
  return value;
}

/**
 * The sign-in screen that brings the person back to `destination` once signed in (plain /connexion when
 * there is nowhere safe to come back to, or it is the home page).
 */
export function connexionPour(destination: string | null | undefined): string {
  const retour = destinationSure(destination);
  if (!retour || retour === '/') return CONNEXION;
  // Slashes may stay as they are in a query: /connexion?retour=/profile reads better than %2F.
  return `${CONNEXION}?retour=${encodeURIComponent(retour).replace(/%2F/gu, '/')}`;
}
