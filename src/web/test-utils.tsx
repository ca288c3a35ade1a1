import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, vi } from 'vitest';
import type { CorpsErreur } from '../domain/erreurs.js';
import { theme } from './app/theme.js';

/**
 * Renders a component inside the app's providers, the router at `url` (for pages that read their address). Mantine
 * is in its test environment: no transitions, no portals, and a combobox's list box opens without the layout jsdom
 * lacks (Mantine hides a dropdown whose field it cannot place). With `path`, `ui` is the element of a route of that
 * pattern (for pages that read its parameters, e.g. `/logement/:numeroUnique`). With `queryClient`, the cache is the
 * test's own (to fill or read it); otherwise a new one that does not retry.
 */
export function renderWithProviders(
  ui: ReactElement,
  {
    url = '/',
    path,
    queryClient: client = new QueryClient({ defaultOptions: { queries: { retry: false } } }),
  }: { url?: string; path?: string; queryClient?: QueryClient } = {},
) {
  return render(
    <MantineProvider theme={theme} env="test">
      <QueryClientProvider client={client}>
        <MemoryRouter initialEntries={[url]}>
          {path === undefined ? (
            ui
          ) : (
            <Routes>
              <Route path={path} element={ui} />
            </Routes>
          )}
        </MemoryRouter>
      </QueryClientProvider>
    </MantineProvider>,
  );
}

/** A request the page made: a JSON body parsed, any other (FormData, Blob) kept as sent. */
export interface FetchCall {
  url: string;
  method: string;
  body?: unknown;
}

/** A JSON answer. */
export interface FetchAnswer {
  status: number;
  body: unknown;
}

/** What a "METHOD url" answers: a JSON answer, or a function of the call (for a server that changes, or a Response that is not JSON). */
export type FetchReply = FetchAnswer | ((call: FetchCall) => FetchAnswer | Response | Promise<FetchAnswer | Response>);

/** What the server says of any other request: the app's error shape. */
const NOT_FOUND: FetchAnswer = { status: 404, body: { error: { code: 'NOT_FOUND', message: 'absent' } } satisfies CorpsErreur };

function readBody(body: RequestInit['body']): unknown {
  if (typeof body !== 'string') return body ?? undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/**
 * The browser's fetch, recorded. Call it once at the top of a test file, before the file's own beforeEach (which
 * may then fill `answers`): before each test it empties `calls` and `answers` and stubs fetch; after each, it
 * undoes every stubbed global (vi.unstubAllGlobals, so the file's own stubs too). `answers` is keyed
 * "METHOD url"; a key ending in `?` answers that path with any query. Anything else answers 404 NOT_FOUND.
 */
export function recordFetch() {
  const calls: FetchCall[] = [];
  const answers: Record<string, FetchReply> = {};
  beforeEach(() => {
    calls.length = 0;
    for (const key of Object.keys(answers)) delete answers[key];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
      const call: FetchCall = { url, method: init.method ?? 'GET', body: readBody(init.body) };
      calls.push(call);
      const path = url.includes('?') ? `${url.slice(0, url.indexOf('?'))}?` : undefined;
      const reply = answers[`${call.method} ${url}`] ?? (path === undefined ? undefined : answers[`${call.method} ${path}`]) ?? NOT_FOUND;
      const answer = typeof reply === 'function' ? await reply(call) : reply;
      return answer instanceof Response
        ? answer
        : new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
    });
  });
  afterEach(() => vi.unstubAllGlobals());
  return { calls, answers };
}

/** A window as wide as `largeur` px, for Mantine's useMediaQuery (its `max-width: …em` queries, 16 px to the em). */
export function largeurDeFenetre(largeur: number): void {
  vi.stubGlobal('matchMedia', (query: string) => {
    const max = /max-width:\s*([\d.]+)em/u.exec(query);
    return {
      matches: max ? largeur <= Number(max[1]) * 16 : false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    };
  });
}
