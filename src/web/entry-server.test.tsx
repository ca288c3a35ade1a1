import { describe, expect, it } from 'vitest';
import { fillTemplate } from '../../scripts/prerender.js';
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
});
