import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Message } from '../../../domain/messages.js';
import { apiFetch, apiUrl, fetchOk } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';
import { keyHeaders } from './api.js';

/** A request's thread (docs/api.md « Messages »), read and written with the request's key when this device holds it. */

const chemin = (numeroUnique: string) => `/logement/${encodeURIComponent(numeroUnique)}/messages`;

export function useMessages(numeroUnique: string) {
  return useQuery({
    queryKey: cles.messages(numeroUnique),
    queryFn: async () => (await apiFetch<{ data: Message[] }>(chemin(numeroUnique), { headers: keyHeaders(numeroUnique) })).data,
  });
}

/**
 * The thread was shown: the other side's messages become read (their « lu », the managers' unread count). The thread
 * is not fetched again: what it shows does not change for the reader.
 */
export function useMarquerLus(numeroUnique: string) {
  return useMutation({
    mutationFn: async () => {
      await fetchOk(apiUrl(`${chemin(numeroUnique)}/lus`), { method: 'POST', headers: keyHeaders(numeroUnique) });
    },
  });
}

/** Sends a message: JSON, or multipart (the text first, then the files) when files are joined. */
export function useEnvoiMessage(numeroUnique: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ texte, fichiers = [] }: { texte: string; fichiers?: File[] }) => {
      if (fichiers.length === 0) {
        return (
          await apiFetch<{ data: Message }>(chemin(numeroUnique), {
            method: 'POST',
            headers: { ...keyHeaders(numeroUnique), 'content-type': 'application/json' },
            body: JSON.stringify({ texte }),
          })
        ).data;
      }
      const form = new FormData();
      form.append('texte', texte);
      for (const f of fichiers) form.append('pieces', f, f.name);
      return (await apiFetch<{ data: Message }>(`${chemin(numeroUnique)}/avec-pieces`, { method: 'POST', headers: keyHeaders(numeroUnique), body: form })).data;
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: cles.messages(numeroUnique) }),
  });
}
