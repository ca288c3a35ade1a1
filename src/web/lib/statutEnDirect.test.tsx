// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test-utils.js';
import { cles } from './queryKeys.js';
import { REESSAI_DIRECT_MS, useStatutEnDirect } from './statutEnDirect.js';

/** jsdom has no EventSource: a stand-in that records the streams the page opens and lets the test end them. */
class FauxFlux extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static ouverts: FauxFlux[] = [];
  readyState = FauxFlux.OPEN;
  constructor(readonly url: string) {
    super();
    FauxFlux.ouverts.push(this);
  }
  close() {
    this.readyState = FauxFlux.CLOSED;
  }
  /** What the browser does after a 429 or 404: the stream is closed for good and `error` fires. */
  refuse() {
    this.readyState = FauxFlux.CLOSED;
    this.dispatchEvent(new Event('error'));
  }
  /** A network loss: the browser says so and reconnects by itself. */
  coupe() {
    this.readyState = FauxFlux.CONNECTING;
    this.dispatchEvent(new Event('error'));
  }
}

function Suivi({ numero }: { numero?: string }) {
  useStatutEnDirect(numero);
  return null;
}

describe('useStatutEnDirect', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FauxFlux.ouverts = [];
    vi.stubGlobal('EventSource', FauxFlux);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('opens a new stream after a refusal (429), refreshing what it may have missed; leaves network losses to the browser', () => {
    const client = new QueryClient();
    client.setQueryData(cles.demande('013ABC123'), { statutDeLaDemande: 'En attente' });
    const vue = renderWithProviders(<Suivi numero="013ABC123" />, { queryClient: client });
    expect(FauxFlux.ouverts.map((f) => f.url)).toEqual(['/app/api/evenements?numero=013ABC123']);

    FauxFlux.ouverts[0]!.coupe();
    vi.advanceTimersByTime(REESSAI_DIRECT_MS);
    expect(FauxFlux.ouverts).toHaveLength(1);

    FauxFlux.ouverts[0]!.refuse();
    vi.advanceTimersByTime(REESSAI_DIRECT_MS - 1);
    expect(FauxFlux.ouverts).toHaveLength(1);
    expect(client.getQueryState(cles.demande('013ABC123'))?.isInvalidated).toBe(false);
    vi.advanceTimersByTime(1);
    expect(FauxFlux.ouverts).toHaveLength(2);
    expect(FauxFlux.ouverts[1]!.url).toBe('/app/api/evenements?numero=013ABC123');
    expect(client.getQueryState(cles.demande('013ABC123'))?.isInvalidated).toBe(true);

    // A colleague takes the request over: the page's « Suivie par » and journal are read again.
    client.setQueryData(cles.suivi('013ABC123'), { suiviePar: null, moi: false });
    client.setQueryData(cles.journal('013ABC123'), []);
    const message = new MessageEvent('statut', { data: JSON.stringify({ numeroUnique: '013ABC123', statutDeLaDemande: 'En attente', de: 'En attente', date: '', quoi: 'suivi' }) });
    FauxFlux.ouverts[1]!.dispatchEvent(message);
    expect(client.getQueryState(cles.suivi('013ABC123'))?.isInvalidated).toBe(true);
    expect(client.getQueryState(cles.journal('013ABC123'))?.isInvalidated).toBe(true);

    vue.unmount();
    expect(FauxFlux.ouverts[1]!.readyState).toBe(FauxFlux.CLOSED);
    FauxFlux.ouverts[1]!.refuse();
    vi.advanceTimersByTime(REESSAI_DIRECT_MS);
    expect(FauxFlux.ouverts).toHaveLength(2);
  });
});
