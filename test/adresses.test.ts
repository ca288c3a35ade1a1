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
    // A local stand-in for the Géoplateforme's /geocodage/search, answering in its GeoJSON shape (the properties
    // it sends for an address: label, score, housenumber, id, banId, name, postcode, citycode, x, y, city,
    // context, type, importance, street, _type).
    ban = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      // As the Géoplateforme: a query under 3 characters, or not starting with a letter or a digit, is refused (and
      // here any with « refusee »).
      const q = new URL(req.url ?? '', 'http://x').searchParams.get('q') ?? '';
      if (q.length < 3 || !/^[\p{L}\p{N}]/u.test(q) || q.includes('refusee')) {
        res.statusCode = 400;
        return res.end(JSON.stringify({ code: 400, message: 'Failed parsing query', detail: ['q: must contain between 3 and 200 chars and start with a number or a letter'] }));
      }
      res.end(
        JSON.stringify({
          type: 'FeatureCollection',
          features: [
            {
              type: 'Feature',
              geometry: { type: 'Point', coordinates: [5.4203, 43.5262] },
              properties: {
                label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence',
                score: 0.97,
                housenumber: '8',
                id: '13001_5770_00008',
                banId: '0b1c6f1e-7d0a-4b7e-9c45-5d0a1d2b8f11',
                name: '8 Avenue Marcel Pagnol',
                postcode: '13090',
                citycode: '13001',
                x: 891234.5,
                y: 6269876.1,
                city: 'Aix-en-Provence',
                context: "13, Bouches-du-Rhône, Provence-Alpes-Côte d'Azur",
                type: 'housenumber',
                importance: 0.71,
                street: 'Avenue Marcel Pagnol',
                _type: 'address',
              },
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
      // The point (GeoJSON: longitude first) places a technical report.
      data: [{ label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence', adresse: '8 Avenue Marcel Pagnol', codePostal: '13090', ville: 'Aix-en-Provence', lat: 43.5262, lon: 5.4203 }],
    });
    const asked = new URL(seen.at(-1)!, 'http://x');
    expect(asked.searchParams.get('q')).toBe('8 avenue marcel pagnol');
    expect(asked.searchParams.get('autocomplete')).toBe('1');
    // Addresses of Aix-en-Provence only: the district's forms are for its residents.
    expect(asked.searchParams.get('citycode')).toBe('13001');
    expect(asked.searchParams.get('index')).toBe('address');
  });

  it('keeps what was typed about the building apart as the complement, and searches the street alone', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/adresses?q=${encodeURIComponent('Bât. C, 8 av marcel pagnol')}` });
    expect(res.json().data).toEqual([
      { label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence', adresse: '8 Avenue Marcel Pagnol', codePostal: '13090', ville: 'Aix-en-Provence', complement: 'Bât. C', lat: 43.5262, lon: 5.4203 },
    ]);
    expect(new URL(seen.at(-1)!, 'http://x').searchParams.get('q')).toBe('8 av marcel pagnol');
  });

  it('asks the national API only what it can answer, and a query it refuses does not stop it for the others', async () => {
    // « Bât C, 8 »: the street part is « 8 », too short for the national search: the street list answers, nothing is asked.
    const avant = seen.length;
    const court = await ctx.app.inject({ method: 'GET', url: `/app/api/adresses?q=${encodeURIComponent('Bât C, 8')}` });
    expect(court.json().source).toBe('territoire');
    expect(seen).toHaveLength(avant);
    // A query it refuses (400) falls back for that query alone.
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=rue%20refusee' })).json().source).toBe('territoire');
    expect(seen).toHaveLength(avant + 1);
    const suivante = await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=8%20avenue%20marcel%20pagnol' });
    expect(suivante.json().source).toBe('ban');
  });

  it('refuses too short or missing queries in French', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=ab' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('Saisissez au moins 3 caractères.');
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/adresses' })).statusCode).toBe(400);
  });
});

describe('GET /adresses — a national answer without a usable point', () => {
  let ctx: TestContext;
  let ban: http.Server;
  beforeAll(async () => {
    const feature = (label: string, geometry: unknown) => ({ type: 'Feature', ...(geometry === undefined ? {} : { geometry }), properties: { label, name: label, postcode: '13090', city: 'Aix-en-Provence' } });
    ban = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          type: 'FeatureCollection',
          features: [
            feature('1 Rue Sans Point', undefined),
            feature('2 Rue Hors Limites', { type: 'Point', coordinates: [543.2, 43.5] }),
            feature('3 Rue Juste', { type: 'Point', coordinates: [5.41, 43.52] }),
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => ban.listen(0, '127.0.0.1', resolve));
    ctx = await createTestApp({ ADRESSE_API_URL: `http://127.0.0.1:${(ban.address() as AddressInfo).port}/search/` });
  });
  afterAll(async () => {
    await ctx.close();
    ban.close();
  });

  it('keeps the suggestions, with a position only where the point is a valid one', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/adresses?q=rue' });
    expect(res.json().source).toBe('ban');
    expect(res.json().data.map((s: { adresse: string; lat?: number; lon?: number }) => [s.adresse, s.lat, s.lon])).toEqual([
      ['1 Rue Sans Point', undefined, undefined],
      ['2 Rue Hors Limites', undefined, undefined],
      ['3 Rue Juste', 43.52, 5.41],
    ]);
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

  it('keeps the complement typed after the street', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/adresses?q=${encodeURIComponent('12 bd chateau double, résidence Les Lauriers, esc 2')}` });
    expect(res.json().data).toEqual([
      {
        label: '12 Boulevard du Château-Double 13090 Aix-en-Provence',
        adresse: '12 Boulevard du Château-Double',
        codePostal: '13090',
        ville: 'Aix-en-Provence',
        complement: 'Résidence Les Lauriers, esc 2',
      },
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
