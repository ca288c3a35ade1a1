import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { InscriptionInput, ProfilPersonnel, ProfilPublic, Role } from '../../../domain/compte.js';
import { ApiError, apiFetch, postJson } from '../../lib/api.js';

export interface Moi extends ProfilPersonnel {
  invitationLink: string;
  followers: ProfilPublic[];
  following: ProfilPublic[];
}

/** SPEC §4: a local signed-in flag and uid, kept for the spec's redirects; the server session is the truth. */
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

/** The signed-in user (null when signed out), from the server session. */
export function useMoi() {
  return useQuery({ queryKey: ['moi'], queryFn: fetchMoi, staleTime: 60_000 });
}

export function useRefreshMoi() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: ['moi'] });
}

export async function signIn(email: string, password: string): Promise<void> {
  await postJson('/auth/sign-in/email', { email, password, rememberMe: true });
}

export async function signOut(): Promise<void> {
  await postJson('/auth/sign-out', {});
  setLocalSignedIn(null);
}

export async function signUp(input: InscriptionInput): Promise<ProfilPersonnel> {
  return (await postJson<{ data: ProfilPersonnel }>('/user/inscription', input)).data;
}

export async function uploadPic(file: File): Promise<string> {
  const form = new FormData();
  form.append('pic', file, file.name);
  return (await apiFetch<{ data: { pic: string } }>('/user/me/pic', { method: 'POST', body: form })).data.pic;
}

/** Starts Google sign-in: the browser goes to Google, then comes back signed in. */
export async function startGoogle(inviterUid?: string): Promise<void> {
  const { url } = await postJson<{ url: string }>('/auth/sign-in/social', {
    provider: 'google',
    callbackURL: '/logement',
    errorCallbackURL: '/connexion?erreur=google',
    ...(inviterUid ? { additionalData: { inviterUid } } : {}),
  });
  window.location.assign(url);
}

export function usePublicProfile(uid: string | undefined) {
  return useQuery({
    queryKey: ['public', uid],
    queryFn: async () => (await apiFetch<{ data: ProfilPublic }>(`/user/public/${encodeURIComponent(uid!)}`)).data,
    enabled: Boolean(uid),
    retry: false,
  });
}

export interface Territoire {
  ville: string;
  quartier: string;
  rues: string[];
}

export function useTerritoire() {
  return useQuery({ queryKey: ['territoire'], queryFn: async () => (await apiFetch<{ data: Territoire }>('/territoire')).data, staleTime: Infinity });
}

export async function updateProfil(nom: string, prenom: string): Promise<ProfilPersonnel> {
  return (await apiFetch<{ data: ProfilPersonnel }>('/user/me', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ nom, prenom }) })).data;
}

export async function changeEmail(newEmail: string): Promise<void> {
  await postJson('/auth/change-email', { newEmail, callbackURL: '/profile' });
}

export async function requestPasswordReset(email: string): Promise<void> {
  await postJson('/auth/request-password-reset', { email, redirectTo: '/connexion/nouveau-mot-de-passe' });
}

export async function resetPassword(token: string, newPassword: string): Promise<void> {
  await postJson('/auth/reset-password', { token, newPassword });
}

export async function listUsers(q: string): Promise<{ data: ProfilPersonnel[]; total: number }> {
  return apiFetch(`/admin/users?q=${encodeURIComponent(q)}`);
}

export async function setRole(uid: string, role: Role): Promise<ProfilPersonnel> {
  return (await postJson<{ data: ProfilPersonnel }>(`/admin/users/${encodeURIComponent(uid)}/role`, { role })).data;
}
