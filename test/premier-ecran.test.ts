import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/config.js';
import { freshDatabaseUrl } from './db.js';

/**
 * The server sends a page prerendered at build (dist/web/pages/…, scripts/prerender.ts) for its address,
 * so the content is there at first byte; every other address of the web app gets the shell (index.html).
 */
describe('prerendered pages', () => {
  let app: FastifyInstance;
  let dir: string;
  let drop: () => Promise<void>;
  const SCRIPT = "(function(){document.title='amorce'})()";
  const LANDING = `<!doctype html><html><body><div id="root" data-route="/"><h1>Bienvenue sur Quartier Vivant</h1></div><script>${SCRIPT}</script><script type="module" src="/assets/x.js"></script></body></html>`;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-premier-ecran-'));
    const web = path.join(dir, 'web');
    fs.mkdirSync(path.join(web, 'pages', 'logement'), { recursive: true });
    fs.writeFileSync(path.join(web, 'index.html'), '<!doctype html><div id="root"><header>Coquille</header></div>');
    fs.writeFileSync(path.join(web, 'pages', 'index.html'), LANDING);
    fs.writeFileSync(path.join(web, 'pages', 'index.html.br'), brotliCompressSync(LANDING));
    fs.writeFileSync(path.join(web, 'pages', 'logement.html'), `<div id="root" data-route="/logement">Soumettre ma demande</div><script>${SCRIPT}</script>`);
    fs.writeFileSync(path.join(web, 'pages', 'logement', 'nouveau.html'), '<div id="root" data-route="/logement/nouveau">Enregistrer ma demande</div>');
    const database = await freshDatabaseUrl();
    drop = database.drop;
    const config = loadConfig(
      { DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', PUBLIC_URL: 'http://quartier.test', ADRESSE_API_URL: 'http://127.0.0.1:9/search/' },
      { databaseUrl: database.url, webDir: web },
    );
    app = await buildApp(config, { logger: false });
  });

  afterAll(async () => {
    await app.close();
    await drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('/ is the prerendered landing page, content at first byte, revalidated on each visit', async () => {
    const res = await app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/u);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="root" data-route="/"><h1>Bienvenue sur Quartier Vivant</h1>');
    expect((await app.inject({ method: 'GET', url: '/?source=affiche' })).body).toContain('Bienvenue sur Quartier Vivant');
  });

  it('sends a page’s form posted before the script ran back to the page (303), never an API error', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/logement/nouveau',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://quartier.test' },
      payload: 'numeroUnique=013abc12345&prenom=H%C3%A9l%C3%A8ne',
    });
    expect([res.statusCode, res.headers.location]).toEqual([303, '/logement/nouveau']);
  });

  it('sends the brotli file written at build to browsers that accept it', async () => {
    const res = await app.inject({ method: 'GET', url: '/', headers: { 'accept-encoding': 'br' } });
    expect(res.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(LANDING);
  });

  it('allows the inline script of the pages by its hash in the CSP, and no other inline script', async () => {
    const csp = String((await app.inject({ method: 'GET', url: '/' })).headers['content-security-policy']);
    const scriptSrc = /script-src ([^;]*)/u.exec(csp)?.[1];
    const hash = createHash('sha256').update(SCRIPT).digest('base64');
    // The same script in two pages: one source; the module script's file needs none.
    expect(scriptSrc).toBe(`'self' 'sha256-${hash}'`);
  });

  it('the housing pages get theirs; other addresses the shell', async () => {
    expect((await app.inject({ method: 'GET', url: '/logement' })).body).toContain('Soumettre ma demande');
    expect((await app.inject({ method: 'GET', url: '/logement/nouveau' })).body).toContain('Enregistrer ma demande');
    for (const url of ['/connexion', '/logement/013000000001', '/logement/', '/pages']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('Coquille');
    }
  });
});
