import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  requeteGestionSignalements,
  type ListeGestionSignalements,
  type ListeGestionSignalementsQuery,
  type MiseAJourGestionCorps,
  type Moderation,
  type NoteSignalement,
  type SignalementGestion,
} from '../../../domain/signalements.js';
import { apiFetch, sendJson } from '../../lib/api.js';
import { clesTechnique } from './cles.js';

/** A report's managers' API path. */
const gestionPath = (numero: string) => `/technique/gestion/signalements/${encodeURIComponent(numero)}`;

/** The managers' list's query string, for the API: the address's state, with the page. */
export function requeteListeGestion(q: ListeGestionSignalementsQuery): string {
  const base = requeteGestionSignalements(q);
  return q.page > 1 ? `${base ? `${base}&` : ''}page=${q.page}` : base;
}

export function useListeGestion(q: ListeGestionSignalementsQuery) {
  return useQuery({
    queryKey: clesTechnique.listeGestion(q),
    queryFn: () => apiFetch<ListeGestionSignalements>(`/technique/gestion/signalements?${requeteListeGestion(q)}`),
    placeholderData: keepPreviousData,
  });
}

/** A report seen in full (managers): hidden text and photos, contact, notes, moderation log. */
export function useSignalementGestion(numero: string, enabled = true) {
  return useQuery({
    queryKey: clesTechnique.signalementGestion(numero),
    queryFn: async () => (await apiFetch<{ data: SignalementGestion }>(gestionPath(numero))).data,
    enabled,
  });
}

/** After a change: the full view as the server sends it, and the public view and lists read again. */
function useApresChangement(numero: string) {
  const queryClient = useQueryClient();
  return (vue?: SignalementGestion) => {
    if (vue) queryClient.setQueryData(clesTechnique.signalementGestion(numero), vue);
    else void queryClient.invalidateQueries({ queryKey: clesTechnique.signalementGestion(numero) });
    void queryClient.invalidateQueries({ queryKey: clesTechnique.signalement(numero) });
    void queryClient.invalidateQueries({ queryKey: clesTechnique.listes });
    void queryClient.invalidateQueries({ queryKey: clesTechnique.listesGestion });
  };
}

/** A public update: a new state, a text, or both (« doublon » with its original). */
export function useMiseAJourGestion(numero: string) {
  const apres = useApresChangement(numero);
  return useMutation({
    mutationFn: async (corps: MiseAJourGestionCorps) => (await sendJson<{ data: SignalementGestion }>(`${gestionPath(numero)}/mises-a-jour`, corps)).data,
    onSuccess: (vue) => apres(vue),
  });
}

/** A private note. */
export function useNoteGestion(numero: string) {
  const apres = useApresChangement(numero);
  return useMutation({
    mutationFn: async (texte: string) => (await sendJson<{ data: NoteSignalement }>(`${gestionPath(numero)}/notes`, { texte })).data,
    onSuccess: () => apres(),
  });
}

/** Hide or show again the title, the description, a photo or an update (logged with its reason). */
export function useModeration(numero: string) {
  const apres = useApresChangement(numero);
  return useMutation({
    mutationFn: async (moderation: Moderation) => (await sendJson<{ data: SignalementGestion }>(`${gestionPath(numero)}/moderation`, moderation)).data,
    onSuccess: (vue) => apres(vue),
  });
}
