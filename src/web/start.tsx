// The app itself, loaded by main.tsx once the page is on screen: takes over a prerendered page
// (hydration) or draws the page into the shell.
import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { App, newQueryClient } from './app/App.js';
import { resolveLazyRoutes, routes } from './app/router.js';

const root = document.getElementById('root')!;
// A prerendered page (scripts/prerender.ts) says which address it was drawn for: the browser takes it over
// as it is (hydration). Any other address gets the empty shell, and the browser draws the page.
const prerendered = root.dataset.route !== undefined && root.dataset.route === window.location.pathname && root.hasChildNodes();

export async function start(): Promise<void> {
  // The page's code first: the first render draws the whole page (the one prerendered, or one in the shell).
  // If it cannot be fetched, the router tries again and shows its error page (RouteError).
  const ready = await resolveLazyRoutes(window.location.pathname).then(
    () => true,
    () => false,
  );
  const router = createBrowserRouter(routes);
  const app = (
    <StrictMode>
      <App queryClient={newQueryClient()}>
        <RouterProvider router={router} />
      </App>
    </StrictMode>
  );
  if (prerendered && ready) hydrateRoot(root, app);
  else createRoot(root).render(app);
}

