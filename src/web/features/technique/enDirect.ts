import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { EvenementSignalement } from '../../../domain/signalements.js';
import { apiUrl } from '../../lib/api.js';
import { ecouterFlux } from '../../lib/statutEnDirect.js';
import { clesTechnique } from './cles.js';

/** The list and map are read again this long after the first of a burst of events, once for the whole burst. */
const LISTES_MS = 400;

/** What a stream refreshes: the lists that show reports, and one report's views by its number. */
interface Cibles {
  listes: readonly unknown[];
  signalement: (numero: string) => readonly (readonly unknown[])[];
}

/**
 * Listens to a stream of technical reports (Server-Sent Events, `event: signalement`) at `chemin` (none while
 * null): each event
 * refreshes the lists (once for a burst) and the view of the report it names, and `surEvenement` hears it. The
 * browser reconnects by itself after a network loss; after a refusal (429) the page tries again later and refreshes
 * what it may have missed (the lists, and `numero`'s view when the stream is one report's).
 */
function useFluxSignalements(chemin: string | null, cibles: Cibles, numero: string | undefined, surEvenement?: (event: EvenementSignalement) => void): void {
  const queryClient = useQueryClient();
  const ecouteur = useRef(surEvenement);
  useEffect(() => {
    ecouteur.current = surEvenement;
  });
  const { listes: clesListes, signalement: cleSignalement } = cibles;
  useEffect(() => {
    if (chemin === null || typeof EventSource === 'undefined') return;
    const url = apiUrl(chemin);
    let listes: ReturnType<typeof setTimeout> | undefined;
    const rafraichir = (de?: string) => {
      listes ??= setTimeout(() => {
        listes = undefined;
        void queryClient.invalidateQueries({ queryKey: clesListes });
      }, LISTES_MS);
      if (de) for (const queryKey of cleSignalement(de)) void queryClient.invalidateQueries({ queryKey });
    };
    const fermer = ecouterFlux(
      url,
      'signalement',
      (data) => {
        const event = JSON.parse(data) as EvenementSignalement;
        rafraichir(event.numero);
        ecouteur.current?.(event);
      },
      () => rafraichir(numero),
    );
    return () => {
      fermer();
      clearTimeout(listes);
    };
  }, [chemin, clesListes, cleSignalement, numero, queryClient]);
}

const PUBLIC: Cibles = { listes: clesTechnique.listes, signalement: (numero) => [clesTechnique.signalement(numero)] };
/** The managers' stream carries every change: their list and full view, and the public view they also read. */
const GESTION: Cibles = {
  listes: clesTechnique.listesGestion,
  signalement: (numero) => [clesTechnique.signalementGestion(numero), clesTechnique.signalement(numero)],
};

/**
 * Live technical reports for everyone: every new report and public change, for the map and list; `surEvenement`
 * hears each (to say « 1 nouveau signalement »).
 */
export function useSignalementsEnDirect(surEvenement?: (event: EvenementSignalement) => void): void {
  useFluxSignalements('/technique/evenements', PUBLIC, undefined, surEvenement);
}

/**
 * One report's page, live: for a manager the managers' stream of that report (another manager's note, a hidden
 * photo, a change of state all show in « Traitement » as in the public view), for anyone else the public one.
 * No stream until `gestion` is known (undefined), so that a manager's page does not open both.
 */
export function useSignalementEnDirect(numero: string, gestion: boolean | undefined): void {
  const chemin = gestion === undefined ? null : `/technique/${gestion ? 'gestion/' : ''}evenements?numero=${encodeURIComponent(numero)}`;
  useFluxSignalements(chemin, gestion ? GESTION : PUBLIC, numero);
}

/**
 * The managers' live stream (GET /technique/gestion/evenements, notes included): every arrival or change refreshes
 * the managers' list and the report's views; `surEvenement` hears it (« 1 nouveau signalement »).
 */
export function useGestionEnDirect(surEvenement?: (event: EvenementSignalement) => void): void {
  useFluxSignalements('/technique/gestion/evenements', GESTION, undefined, surEvenement);
}
