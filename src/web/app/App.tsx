import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { RouterProvider } from 'react-router';
import { ApiError } from '../lib/api.js';
import { router } from './router.js';
import { cssVariablesResolver, theme } from './theme.js';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network failure may.
      retry: (count, error) => !(error instanceof ApiError && error.status >= 400 && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/** Notices (Mantine notifications): loaded after the first screen. */
const Avis = lazy(() => import('./Avis.js'));

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        <Suspense fallback={null}>
          <Avis />
        </Suspense>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
