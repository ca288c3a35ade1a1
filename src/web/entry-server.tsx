// The prerender's entry (built by `vite build --ssr`, run by scripts/prerender.ts at build time): the
// first screens as HTML, so that a slow connection shows the page before any script has arrived. What
// depends on the visitor (signed in, requests kept on this device) is not in it: the browser adds it once
// it has taken the page over (hydration, src/web/main.tsx).
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, StaticRouterProvider, type RouteObject } from 'react-router';
import { App, newQueryClient } from './app/App.js';
import { Layout } from './app/Layout.js';
import { routes } from './app/router.js';

async function renderRoutes(table: RouteObject[], pathname: string): Promise<string> {
  const handler = createStaticHandler(table);
  const context = await handler.query(new Request(`http://localhost${pathname}`));
  if (context instanceof Response) throw new Error(`prerender of ${pathname}: the router answered with a redirect`);
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToString(
    <StrictMode>
      <App queryClient={newQueryClient()}>
        <StaticRouterProvider router={router} context={context} hydrate={false} />
      </App>
    </StrictMode>,
  );
}

/** The HTML of one page of the app (a route without parameters), header and footer included. */
export function renderPage(pathname: string): Promise<string> {
  return renderRoutes(routes, pathname);
}

/**
 * The shell alone (header, menu, footer) with an empty page: what every other address shows until its
 * page is drawn in the browser.
 */
export function renderShell(): Promise<string> {
  return renderRoutes([{ path: '/', Component: Layout, children: [{ path: '*', Component: () => null }] }], '/__coquille');
}
