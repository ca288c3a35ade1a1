import { describe, expect, it, vi } from 'vitest';
import { amorce, entreeApresAffichage, fillTemplate } from '../../scripts/prerender.js';
import { renderPage, renderShell } from './entry-server.js';

/**
 * The prerender (scripts/prerender.ts runs these at build): the first screens are real HTML, so that a slow
 * connection shows them before any script. Rendered here as at build, in Node without a DOM.
 */
describe('prerendered first screens', () => {
  it('the landing page holds its text, the header and the footer', async () => {
    const html = await renderPage('/');
    expect(html).toContain('Bienvenue sur Quartier Vivant');
    expect(html).toContain('Le service en ligne des habitants du Jas de Bouffan');
    expect(html).toContain('Signalements techniques');
    expect(html).toContain('Aller au contenu');
    expect(html).toContain('Mentions légales');
    // Signed out until the browser knows better: the session comes after hydration.
    expect(html).toContain('Connexion');
  });

  it('the housing pages hold their static content', async () => {
    const logement = await renderPage('/logement');
    expect(logement).toContain('Soumettre ma demande');
    expect(logement).toContain('Numéro unique de la demande');
    const nouvelle = await renderPage('/logement/nouveau');
    expect(nouvelle).toContain('Nouvelle demande de logement social');
    expect(nouvelle).toContain('Enregistrer ma demande');
    expect(nouvelle).toContain('Données personnelles');
  });

  it('the shell has the header and footer and no page', async () => {
    const html = await renderShell();
    expect(html).toContain('Quartier Vivant');
    expect(html).toContain('Mentions légales');
    expect(html).not.toContain('Bienvenue sur Quartier Vivant');
  });

  it('a page goes into the root of the template with its address, title and head', () => {
    const template = '<html><head><title>T</title></head><body><div id="root"></div></body></html>';
    const out = fillTemplate(template, { html: '<h1>Bienvenue</h1>', route: '/', title: 'Accueil — Quartier Vivant', head: ['<style>a{}</style>'] });
    expect(out).toContain('<div id="root" data-route="/"><h1>Bienvenue</h1></div>');
    expect(out).toContain('<title>Accueil — Quartier Vivant</title>');
    expect(out).toContain('<style>a{}</style>\n  </head>');
    expect(() => fillTemplate('<body></body>', { html: 'x', route: null })).toThrow(/root/u);
  });

  it('a prerendered page fetches the app only once it has painted: its entry script becomes one inline script at the end', () => {
    const template = '<html><head>\n    <script type="module" crossorigin src="/assets/index-abc.js"></script>\n  </head><body><div id="root"></div>\n  </body></html>';
    const out = entreeApresAffichage(template);
    expect(out).not.toContain('<script type="module"');
    expect(out).toContain(`<script>${amorce('/assets/index-abc.js')}</script>\n  </body>`);
    expect(() => entreeApresAffichage('<html><body></body></html>')).toThrow(/entry/u);
  });

  it('the inline script adds the entry once, after the first contentful paint, or after a second without one', () => {
    vi.useFakeTimers();
    try {
      const run = (observer: unknown) => {
        const added: { type: string; src: string }[] = [];
        const callbacks: ((list: { getEntries: () => { name: string }[] }, o: { disconnect: () => void }) => void)[] = [];
        const document = { createElement: () => ({ type: '', src: '' }), head: { appendChild: (s: { type: string; src: string }) => added.push(s) } };
        const PerformanceObserver = observer === 'absent' ? undefined : function (cb: (typeof callbacks)[number]) { callbacks.push(cb); return { observe: () => {} }; };
        new Function('document', 'PerformanceObserver', 'requestAnimationFrame', amorce('/assets/index-abc.js'))(document, PerformanceObserver, (f: () => void) => setTimeout(f, 16));
        return { added, paint: (name: string) => callbacks[0]!({ getEntries: () => [{ name }] }, { disconnect: () => {} }) };
      };
      const page = run('present');
      page.paint('first-paint');
      vi.advanceTimersByTime(100);
      expect(page.added).toEqual([]);
      page.paint('first-contentful-paint');
      vi.advanceTimersByTime(100);
      expect(page.added).toEqual([{ type: 'module', src: '/assets/index-abc.js' }]);
      vi.advanceTimersByTime(2000);
      expect(page.added).toHaveLength(1);
      // No paint (a tab in the background): after a second all the same.
      const cachee = run('present');
      vi.advanceTimersByTime(999);
      expect(cachee.added).toEqual([]);
      vi.advanceTimersByTime(1);
      expect(cachee.added).toHaveLength(1);
      // A browser without PerformanceObserver: at the next frame.
      const ancien = run('absent');
      vi.advanceTimersByTime(20);
      expect(ancien.added).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });
});
