import { useQuery } from '@tanstack/react-query';
import type { Moi } from '../../domain/compte.js';
import { ApiError, apiFetch } from './api.js';
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
