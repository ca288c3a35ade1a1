import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTerritory } from '../src/server/territory.js';
import { createTestApp, type TestContext } from './helpers.js';

describe('GET /adresses — the national API answers', () => {
  let ctx: TestContext;
  let ban: http.Server;
  const seen: string[] = [];
  beforeAll(async () => {
    // A local stand-in for api-adresse.data.gouv.fr, answering in its documented GeoJSON shape.
    ban = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              properties: { label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence', name: '8 Avenue Marcel Pagnol', postcode: '13090', city: 'Aix-en-Provence' },
            },
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => ban.listen(0, '127.0.0.1', resolve));
    const port = (ban.address() as AddressInfo).port;
    ctx = await createTestApp({ ADRESSE_API_URL: `http://127.0.0.1:${port}/search/` });
  });
  afterAll(async () => {
    await ctx.close();
    ban.close();
  });

  it('maps the national answer to adresse, code postal and ville', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=8%20avenue%20marcel%20pagnol' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      source: 'ban',
      data: [{ label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence', adresse: '8 Avenue Marcel Pagnol', codePostal: '13090', ville: 'Aix-en-Provence' }],
    });
    const asked = new URL(seen.at(-1)!, 'http://x');
    expect(asked.searchParams.get('q')).toBe('8 avenue marcel pagnol');
    expect(asked.searchParams.get('autocomplete')).toBe('1');
  });

  it('refuses too short or missing queries in French', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=ab' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('Saisissez au moins 3 caractères.');
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/adresses' })).statusCode).toBe(400);
  });
});

describe('GET /adresses — the national API is unreachable', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp(); // points at a closed loopback port
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('falls back on the territory street list, accents and case ignored, house number kept', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/adresses?q=${encodeURIComponent('12 bd chateau double')}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().source).toBe('territoire');
    expect(res.json().data).toEqual([
      { label: '12 Boulevard du Château-Double 13090 Aix-en-Provence', adresse: '12 Boulevard du Château-Double', codePostal: '13090', ville: 'Aix-en-Provence' },
    ]);
  });

  it('answers an empty list when no street matches', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=rue%20de%20rivoli' });
    expect(res.json()).toEqual({ source: 'territoire', data: [] });
  });
});

describe('territory data', () => {
  it('names its public sources and holds only Aix-en-Provence streets of Jas de Bouffan', () => {
    const t = loadTerritory();
    expect(t.ville).toBe('Aix-en-Provence');
    expect(t.quartier).toBe('Jas de Bouffan');
    expect(t.sources.every((s) => /^https?:\/\//u.test(s.url))).toBe(true);
    expect(new Set(t.rues.map((r) => r.nom)).size).toBe(t.rues.length);
  });
});
