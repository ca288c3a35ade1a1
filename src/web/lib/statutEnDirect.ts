import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { EvenementDirect } from '../../domain/demande.js';
import { apiUrl } from './api.js';
import { cles } from './queryKeys.js';

/**
 * When the server refuses the stream (429: too many streams, docs/api.md) or drops it for good, the
 * browser's EventSource stops trying: the page opens a new one after this delay (the server's Retry-After).
 */
export const REESSAI_DIRECT_MS = 30_000;
/** The lists are read again this long after the first of a burst of changes, once for the whole burst. */
const LISTES_MS = 400;

/**
 * Live status changes (Server-Sent Events): every change for managers' lists, one request's for its
 * detail page. Each change refreshes what shows it. The browser reconnects by itself after a network
 * loss; after a refusal the page tries again later and refreshes what it may have missed.
 */
export function useStatutEnDirect(numeroUnique?: string): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const url = apiUrl(numeroUnique ? `/evenements?numero=${encodeURIComponent(numeroUnique)}` : '/evenements');
    // A bulk action sends hundreds of events in a few seconds: the lists are read again once per LISTES_MS at most.
    let listes: ReturnType<typeof setTimeout> | undefined;
    const rafraichir = (numero: string | undefined) => {
      listes ??= setTimeout(() => {
        listes = undefined;
        void queryClient.invalidateQueries({ queryKey: cles.listes });
      }, LISTES_MS);
      if (numero) {
        void queryClient.invalidateQueries({ queryKey: cles.demande(numero) });
        void queryClient.invalidateQueries({ queryKey: cles.historique(numero) });
        void queryClient.invalidateQueries({ queryKey: cles.messages(numero) });
        // The managers' part (« Suivie par », journal): who follows it may have changed (`quoi: suivi`).
        void queryClient.invalidateQueries({ queryKey: cles.instruction(numero) });
      }
    };
    const fermer = ecouterFlux(
      url,
      'statut',
      (data) => rafraichir((JSON.parse(data) as EvenementDirect).numeroUnique),
      () => rafraichir(numeroUnique),
    );
    return () => {
      fermer();
      clearTimeout(listes);
    };
  }, [numeroUnique, queryClient]);
}

/**
 * Listens to the `nom` events of the stream at `url`, each one's data to `surMessage`. The browser reconnects by
 * itself after a network loss; after a refusal (429) or a stream ended for good, a new one opens after
 * REESSAI_DIRECT_MS, `surReprise` first (to read again what may have been missed). Answers what closes it all.
 */
export function ecouterFlux(url: string, nom: string, surMessage: (data: string) => void, surReprise: () => void): () => void {
  let source: EventSource | undefined;
  let reessai: ReturnType<typeof setTimeout> | undefined;
  let fini = false;
  const ouvrir = () => {
    const courant = new EventSource(url);
    source = courant;
    courant.addEventListener(nom, (message) => surMessage((message as MessageEvent<string>).data));
    courant.addEventListener('error', () => {
      if (fini || courant.readyState !== EventSource.CLOSED) return;
      reessai = setTimeout(() => {
        surReprise();
        ouvrir();
      }, REESSAI_DIRECT_MS);
    });
  };
  ouvrir();
  return () => {
    fini = true;
    clearTimeout(reessai);
    source?.close();
  };
}
