import { MantineProvider } from '@mantine/core';
import { Notifications } from '@mantine/notifications';
import '@mantine/notifications/styles.css';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
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

export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <QueryClientProvider client={queryClient}>
        {/* Status-change notices with their « Annuler » (features/demandes): a polite live region, always present. */}
        <Notifications position="bottom-right" aria-live="polite" />
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  );
}
