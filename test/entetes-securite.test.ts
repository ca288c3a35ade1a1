import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, entetesFixes } from '../src/server/app.js';
import { loadConfig } from '../src/server/config.js';
import { freshDatabaseUrl } from './db.js';
import { createTestApp, demande, surUnPort, type TestContext } from './helpers.js';

// helmet's headers are computed once at start (app.ts « entetesFixes ») and copied onto every answer:
// these tests hold every one of them to its value on the answers that bypass the usual path too. Images: the
// site's own, and the map's tiles (CARTE_TUILES_URL's origin, the Géoplateforme by default; test/carte.test.ts).
const CSP = ["default-src 'self'", "img-src 'self' data: blob: https://data.geopf.fr", "frame-ancestors 'self'", "object-src 'self' blob:", "script-src 'self'"];
const ATTENDUS: Record<string, string> = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

function attendTout(headers: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(ATTENDUS)) {
    expect(headers[name], name).toBe(value);
  }
  const csp = String(headers['content-security-policy']).split(';');
  for (const directive of CSP) expect(csp).toContain(directive);
  expect(headers['x-powered-by']).toBeUndefined();
}

let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await createTestApp();
  port = (await surUnPort(ctx.app)).port;
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013entete001' }) });
  expect(res.statusCode).toBe(201);
});
afterAll(async () => ctx.close());

describe('security headers', () => {
  it('are on an API answer, an API error and a validation error', async () => {
    for (const url of ['/app/api/logement/013entete001', '/app/api/logement/013absent0001', '/app/api/logement/x']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      attendTout(res.headers);
    }
  });

  it('are on an HTML page and a static asset', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-entetes-'));
    fs.mkdirSync(path.join(dir, 'web', 'assets'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'web', 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(dir, 'web', 'assets', 'app-1234abcd.js'), 'console.log(1)');
    const database = await freshDatabaseUrl();
    const config = loadConfig(
      { DATA_DIR: path.join(dir, 'data'), LOG_LEVEL: 'silent', PUBLIC_URL: 'http://quartier.test', ADRESSE_API_URL: 'http://127.0.0.1:9/search/' },
      { databaseUrl: database.url, webDir: path.join(dir, 'web') },
    );
    const app = await buildApp(config, { logger: false });
    try {
      for (const [url, type] of [['/logement/013entete001', /^text\/html/u], ['/assets/app-1234abcd.js', /javascript/u]] as const) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toMatch(type);
        attendTout(res.headers);
      }
    } finally {
      await app.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are on the live-event stream, which Fastify does not write itself', async () => {
    const headers = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/app/api/evenements?numero=013entete001' }, (res) => {
        expect(res.statusCode).toBe(200);
        resolve(res.headers);
        req.destroy();
      });
      req.on('error', reject);
    });
    expect(headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(headers['cache-control']).toBe('private, no-store, no-transform');
    attendTout(headers);
  });

  it('add HSTS and upgrade-insecure-requests only when the site is served over HTTPS', async () => {
    const https = await createTestApp({ PUBLIC_URL: 'https://quartier.test' });
    try {
      const res = await https.app.inject({ method: 'GET', url: '/app/api/logement/013absent0001', headers: { origin: 'https://quartier.test' } });
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers['content-security-policy']).toContain('upgrade-insecure-requests');
    } finally {
      await https.close();
    }
    const plain = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013absent0001' });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
  });

  it('refuse to start on a middleware that does not finish at once, or fails', () => {
    expect(entetesFixes(helmet())['x-frame-options']).toBe('SAMEORIGIN');
    expect(() => entetesFixes((_req, _res, next) => setImmediate(next))).toThrow("les en-têtes de sécurité n’ont pas pu être calculés au démarrage");
    expect(() => entetesFixes((_req, _res, next) => next(new Error('directive invalide')))).toThrow('directive invalide');
  });
});
