import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Inscription, ProfilPersonnel, ProfilPublic, Role, Visibilite } from '../../../domain/compte.js';
import { apiFetch, sendJson } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { cles } from '../../lib/queryKeys.js';
import { setLocalSignedIn } from '../../lib/session.js';

/** Signs in, then asks the server who is signed in (the answer resolves once that is known). */
export function useConnexion() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ email, password }: { email: string; password: string }) => sendJson('/auth/sign-in/email', { email, password, rememberMe: true }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.moi }),
  });
}

/**
 * Where Google sends the person back: `destination` once signed in, `bienvenue` the first time (the account
 * was just created: the welcome screen), `erreur` when it failed. All paths of this site (destinationSure).
 */
export interface RetoursGoogle {
  destination: string;
  bienvenue: string;
  erreur: string;
}

/** Starts Google sign-in: the browser goes to Google, then comes back signed in. */
export function useConnexionGoogle() {
  return useMutation({
    mutationFn: async ({ inviterUid, retours }: { inviterUid: string | undefined; retours: RetoursGoogle }) => {
      const { url } = await sendJson<{ url: string }>('/auth/sign-in/social', {
        provider: 'google',
        callbackURL: retours.destination,
        newUserCallbackURL: retours.bienvenue,
        errorCallbackURL: retours.erreur,
        ...(inviterUid ? { additionalData: { inviterUid } } : {}),
      });
      window.location.assign(url);
    },
  });
}

/**
 * A new link to confirm the address (better-auth's /send-verification-email; the server decides where it
 * lands). Signed in, the account's own address; signed out, any: the answer is the same whether an
 * unconfirmed account has it or not.
 */
export function useRenvoiConfirmation() {
  return useMutation({ mutationFn: (email: string) => sendJson('/auth/send-verification-email', { email }) });
}

/** Ends the server session; whatever happens, this device forgets the account and its requests. */
export function useDeconnexion() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => sendJson('/auth/sign-out', {}),
    onSettled: () => {
      setLocalSignedIn(null);
      queryClient.setQueryData(cles.moi, null);
      queryClient.removeQueries({ queryKey: cles.demandes });
      queryClient.removeQueries({ queryKey: cles.utilisateurs });
    },
  });
}

export function useInscription() {
  return useMutation({
    mutationFn: async (input: Inscription & { inviterUid?: string }) => (await sendJson<{ data: ProfilPersonnel }>('/user/inscription', input)).data,
  });
}

export function useEnvoiPhoto() {
  return useMutation({
    mutationFn: async (file: File) => {
      const form = new FormData();
      form.append('pic', file, file.name);
      return (await apiFetch<{ data: { pic: string } }>('/user/me/pic', { method: 'POST', body: form })).data.pic;
    },
  });
}

export function usePublicProfile(uid: string | undefined) {
  return useQuery({
    queryKey: cles.profilPublic(uid),
    queryFn: async () => (await apiFetch<{ data: ProfilPublic }>(`/user/public/${encodeURIComponent(uid!)}`)).data,
    enabled: Boolean(uid),
    retry: false,
  });
}

export function useModificationProfil() {
  return useMutation({
    mutationFn: async ({ nom, prenom }: { nom: string; prenom: string }) => (await sendJson<{ data: ProfilPersonnel }>('/user/me', { nom, prenom }, 'PATCH')).data,
  });
}

/** Who sees the name and photo (docs/produit.md « Comptes »). */
export function useChoixVisibilite() {
  return useMutation({
    mutationFn: async (visibilite: Visibilite) => (await sendJson<{ data: ProfilPersonnel }>('/user/me', { visibilite }, 'PATCH')).data,
  });
}

export function useChangementEmail() {
  // The confirmation link lands on /connexion?confirmation=changement: the server sets it (src/server/auth/index.ts).
  return useMutation({ mutationFn: (newEmail: string) => sendJson('/auth/change-email', { newEmail }) });
}

export function useOubliMotDePasse() {
  return useMutation({ mutationFn: (email: string) => sendJson('/auth/request-password-reset', { email, redirectTo: paths.nouveauMotDePasse }) });
}

export function useNouveauMotDePasse() {
  return useMutation({
    mutationFn: ({ token, newPassword }: { token: string; newPassword: string }) => sendJson('/auth/reset-password', { token, newPassword }),
  });
}

export function useUtilisateurs(q: string, page: number, enabled: boolean) {
  return useQuery({
    queryKey: cles.rechercheUtilisateurs(q, page),
    queryFn: () => apiFetch<{ data: ProfilPersonnel[]; total: number }>(`/admin/users?q=${encodeURIComponent(q)}&page=${page}`),
    enabled,
    // The page shown stays while the next one loads.
    placeholderData: keepPreviousData,
  });
}

export function useChangementRole() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ uid, role }: { uid: string; role: Role; nom: string }) =>
      (await sendJson<{ data: ProfilPersonnel }>(`/admin/users/${encodeURIComponent(uid)}/role`, { role })).data,
    onSettled: () => queryClient.invalidateQueries({ queryKey: cles.utilisateurs }),
  });
}
