import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Carte } from '../../../domain/carte.js';
import type {
  Categorie,
  Desabonnement,
  ListeSignalements,
  ListeSignalementsQuery,
  NouveauSignalement,
  Perimetre,
  Photo,
  Point,
  SignalementCree,
  SignalementProche,
  SignalementVue,
} from '../../../domain/signalements.js';
import { PAR_PAGE_DEFAUT } from '../../../domain/signalements.js';
import { apiFetch, fetchOk, sendJson } from '../../lib/api.js';
import { enTetesSignalant } from '../../lib/clesSignalements.js';
import { clesTechnique } from './cles.js';

/** A report's API path. */
const signalementPath = (numero: string) => `/technique/signalements/${encodeURIComponent(numero)}`;

/** The map's tiles and attribution (server settings, they change only with a restart). */
export function useCarte() {
  return useQuery({ queryKey: clesTechnique.carte, queryFn: async () => (await apiFetch<{ data: Carte }>('/carte')).data, staleTime: Infinity });
}

/** The district's boundary and centre: where the map opens, and what a point must be inside of. */
export function usePerimetre() {
  return useQuery({ queryKey: clesTechnique.perimetre, queryFn: async () => (await apiFetch<{ data: Perimetre }>('/technique/perimetre')).data, staleTime: Infinity });
}

/** The categories a resident may choose, in the form's order. */
export function useCategories() {
  return useQuery({ queryKey: clesTechnique.categories, queryFn: async () => (await apiFetch<{ data: Categorie[] }>('/technique/categories')).data, staleTime: 10 * 60_000 });
}

/** The public list's query in an address: the page's own address and the API's share it (defaults left out). */
export function listeQueryString(q: Partial<ListeSignalementsQuery>): string {
  const search = new URLSearchParams();
  if (q.categorie) search.set('categorie', q.categorie);
  if (q.etat) search.set('etat', q.etat);
  if (q.depuis) search.set('depuis', String(q.depuis));
  if (q.page && q.page > 1) search.set('page', String(q.page));
  if (q.parPage && q.parPage !== PAR_PAGE_DEFAUT) search.set('parPage', String(q.parPage));
  return search.toString();
}

export function useListeSignalements(q: ListeSignalementsQuery) {
  return useQuery({
    queryKey: clesTechnique.liste(q),
    queryFn: () => apiFetch<ListeSignalements>(`/technique/signalements?${listeQueryString(q)}`),
    placeholderData: keepPreviousData,
  });
}

/** Open reports within 50 m of a point, nearest first (« C’est peut-être le même problème »). */
export function useProches(point: Point | null) {
  return useQuery({
    queryKey: clesTechnique.proches(point?.lat ?? 0, point?.lon ?? 0),
    queryFn: async () => (await apiFetch<{ data: SignalementProche[] }>(`/technique/signalements/proches?lat=${point!.lat}&lon=${point!.lon}`)).data,
    enabled: point !== null,
  });
}

/** A report as its page shows it; with this tab's key for it, what its reporter may do. */
export function useSignalement(numero: string) {
  return useQuery({
    queryKey: clesTechnique.signalement(numero),
    queryFn: async () => (await apiFetch<{ data: SignalementVue }>(signalementPath(numero), { headers: enTetesSignalant(numero) })).data,
  });
}

export async function creerSignalement(signalement: NouveauSignalement): Promise<SignalementCree> {
  return (await sendJson<{ data: SignalementCree }>('/technique/signalements', signalement)).data;
}

/** One photo, one call, with the report's key (the server re-encodes it: a JPEG without metadata). */
export async function envoyerPhoto(numero: string, fichier: File): Promise<Photo> {
  const form = new FormData();
  form.append('photo', fichier, fichier.name);
  const response = await fetchOk(`/app/api${signalementPath(numero)}/photos`, { method: 'POST', headers: enTetesSignalant(numero), body: form });
  return ((await response.json()) as { data: Photo }).data;
}

/** « Suivre ce signalement », « C’est le même problème »: an e-mail at each update. */
export async function suivre(numero: string, email: string): Promise<void> {
  await sendJson(`${signalementPath(numero)}/suivre`, { email });
}

export function useSuivre(numero: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (email: string) => suivre(numero, email),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: clesTechnique.signalement(numero) }),
  });
}

/** « Toujours pas résolu », by the holder of the follow link: the report comes back as the server sends it. */
export function useToujoursPasResolu(numero: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (texte: string) =>
      (
        await apiFetch<{ data: SignalementVue }>(`${signalementPath(numero)}/toujours-pas-resolu`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...enTetesSignalant(numero) },
          body: JSON.stringify({ texte }),
        })
      ).data,
    onSuccess: (vue) => {
      queryClient.setQueryData(clesTechnique.signalement(numero), vue);
      void queryClient.invalidateQueries({ queryKey: clesTechnique.listes });
    },
  });
}

/** « Prévenez-moi des nouveaux signalements »: a confirmation link is e-mailed first (double opt-in). */
export async function demanderAlerte(email: string): Promise<void> {
  await sendJson('/technique/alertes', { email });
}

export async function confirmerAlerte(jeton: string): Promise<void> {
  await sendJson('/technique/alertes/confirmer', { jeton });
}

export async function desabonner(jeton: string): Promise<Desabonnement> {
  return (await sendJson<{ data: Desabonnement }>('/technique/desabonnement', { jeton })).data;
}
