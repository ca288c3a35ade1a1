import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { ApiError } from '../lib/api.js';
import { abonnerHorloge, lireHorloge } from '../lib/apiActivite.js';
import { sessionCourte, useMoi } from '../lib/session.js';
import { cssVariablesResolver, theme } from './theme.js';

export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not change by asking again; a network failure may.
        retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
}

/** Notices (Mantine notifications): loaded after the first screen. */
const Avis = lazy(() => import('./Avis.js'));

const rien = () => () => {};

/**
 * The notices mount once the page is on screen (after hydration): the prerendered HTML has none, so the
 * first render in the browser matches it. Not rendered by the prerender (effects do not run there).
 */
function AvisApresAffichage() {
  // false while the prerendered HTML is taken over (as on the server), true from then on.
  const affiche = useSyncExternalStore(rien, () => true, () => false);
  useEffect(() => {
    // The page now answers to clicks and keys (hydrated or drawn): a sign for the browser tests (e2e/fixtures.ts).
    document.documentElement.setAttribute('data-app-prete', '');
  }, []);
  return affiche ? (
    <Suspense fallback={null}>
      <Avis />
    </Suspense>
  ) : null;
}

/** The warning before a manager's or an admin's session ends (RGAA 13.1): loaded for them only. */
const FinDeSession = lazy(() => import('../features/compte/FinDeSession.js'));

/**
 * Mounts the warning once the page is on screen, for a signed-in manager or admin; it stays once their
 * session has ended (the account then reads as signed out) so that the end is said.
 */
function AvertissementFinDeSession() {
  const affiche = useSyncExternalStore(rien, () => true, () => false);
  const { data: moi } = useMoi();
  const terminee = useSyncExternalStore(abonnerHorloge, () => lireHorloge()?.terminee === true, () => false);
  return affiche && (sessionCourte(moi) || terminee) ? (
    <Suspense fallback={null}>
      <FinDeSession />
    </Suspense>
  ) : null;
}

/**
 * The app's providers around its router: `RouterProvider` in the browser (main.tsx), `StaticRouterProvider`
 * when the pages are prerendered at build (entry-server.tsx).
 */
export function App({ queryClient, children }: { queryClient: QueryClient; children: ReactNode }) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="light">
      <QueryClientProvider client={queryClient}>
        <AvisApresAffichage />
        <AvertissementFinDeSession />
        {children}
      </QueryClientProvider>
    </MantineProvider>
  );
}
