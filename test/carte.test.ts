import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, origineDesTuiles } from '../src/server/config.js';
import { createTestApp, type TestContext } from './helpers.js';

/** The map's settings (features/carte): the tiles' URL template and attribution, and the images the CSP lets in. */
const imgSrc = (csp: unknown) =>
  String(csp)
    .split(';')
    .find((d) => d.startsWith('img-src'));

describe('the map’s settings', () => {
  it('default to the Géoplateforme’s Plan IGN v2 (WMTS, Web Mercator) and IGN’s attribution', () => {
    const { carte } = loadConfig({});
    expect(carte.tuilesUrl).toBe(
      'https://data.geopf.fr/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=GEOGRAPHICALGRIDSYSTEMS.PLANIGNV2&STYLE=normal&TILEMATRIXSET=PM&FORMAT=image/png&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}',
    );
    expect(carte.attribution).toBe('© IGN – Géoplateforme, Plan IGN');
  });

  it('refuse a template that is no http(s) URL or lacks {z}, {x} or {y}, naming the variable', () => {
    for (const bad of ['ftp://tuiles.example/{z}/{x}/{y}.png', 'tuiles/{z}/{x}/{y}.png', 'https://tuiles.example/{z}/{x}.png', 'javascript:alert(1)//{z}{x}{y}']) {
      expect(() => loadConfig({ CARTE_TUILES_URL: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ CARTE_TUILES_URL: bad }), bad).toThrow(/^Configuration invalide : CARTE_TUILES_URL doit être une URL http\(s\):\/\/ de tuiles contenant \{z\}, \{x\} et \{y\}/u);
    }
  });

  it('give the CSP the tiles’ origin only, with a wildcard for Leaflet’s {s} subdomains', () => {
    expect(origineDesTuiles('https://data.geopf.fr/wmts?TILEMATRIX={z}&TILEROW={y}&TILECOL={x}')).toBe('https://data.geopf.fr');
    expect(origineDesTuiles('http://127.0.0.1:3213/tuiles/{z}/{x}/{y}.png')).toBe('http://127.0.0.1:3213');
    expect(origineDesTuiles('https://{s}.tile.example.org/{z}/{x}/{y}.png')).toBe('https://*.tile.example.org');
    expect(origineDesTuiles('file:///etc/{z}/{x}/{y}')).toBeNull();
  });
});

describe('GET /carte', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp({ CARTE_TUILES_URL: 'http://127.0.0.1:9/tuiles/{z}/{x}/{y}.png', CARTE_ATTRIBUTION: 'Tuiles de test' });
  });
  afterAll(async () => ctx.close());

  it('answers the configured tiles and attribution to anyone', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/carte' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { tuilesUrl: 'http://127.0.0.1:9/tuiles/{z}/{x}/{y}.png', attribution: 'Tuiles de test' } });
  });

  it('lets the pages show images from the tiles’ origin, and from no other', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/carte' });
    expect(imgSrc(res.headers['content-security-policy'])).toBe("img-src 'self' data: blob: http://127.0.0.1:9");
  });
});

describe('the CSP with the default tiles', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp();
  });
  afterAll(async () => ctx.close());

  it('allows the Géoplateforme’s origin for images', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/carte' });
    expect(imgSrc(res.headers['content-security-policy'])).toBe("img-src 'self' data: blob: https://data.geopf.fr");
  });
});
