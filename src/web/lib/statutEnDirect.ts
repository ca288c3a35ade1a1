import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { EvenementDirect } from '../../domain/demande.js';
import { apiUrl } from './api.js';
import { cles } from './queryKeys.js';

/**
 * Live status changes (Server-Sent Events): every change for managers' lists, one request's for its
 * detail page. Each change refreshes what shows it. The browser reconnects by itself.
 */
export function useStatutEnDirect(numeroUnique?: string): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const source = new EventSource(apiUrl(numeroUnique ? `/evenements?numero=${encodeURIComponent(numeroUnique)}` : '/evenements'));
    source.addEventListener('statut', (event) => {
      const change = JSON.parse((event as MessageEvent<string>).data) as EvenementDirect;
      void queryClient.invalidateQueries({ queryKey: cles.listes });
      void queryClient.invalidateQueries({ queryKey: cles.demande(change.numeroUnique) });
      void queryClient.invalidateQueries({ queryKey: cles.historique(change.numeroUnique) });
    });
    return () => source.close();
  }, [numeroUnique, queryClient]);
}
