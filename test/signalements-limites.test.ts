import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dansPolygone } from '../src/domain/geometrie.js';
import { buildApp } from '../src/server/app.js';
import { loadTerritory } from '../src/server/territory.js';
import { apiRoutes, BAD_BODIES, BAD_PARAMS, BAD_QUERIES, fill, generateCases, paramNames, problemWith, send } from './generated-inputs.js';
import { createTestApp, multipart, SAMPLES, surUnPort, type TestContext } from './helpers.js';

/**
 * Technical reports at their limits: rate limits per address (429 in French), the photo size (413), the
 * district's boundary data, and the sweep of photo uploads cut short.
 */
let ctx: TestContext;
const CENTRE = { lat: 43.529444, lon: 5.413889 };
const limite = { max: 2, timeWindow: '1 minute' };

beforeAll(async () => {
  ctx = await createTestApp(
    { UPLOAD_MAX_MB: '1' },
    {
      rateLimits: {
        create: false,
        upload: false,
        adresses: false,
        inscription: false,
        auth: false,
        signalement: limite,
        photosSignalement: { max: 3, timeWindow: '1 minute' },
        suiviSignalement: limite,
        alerteSignalement: limite,
      },
    },
  );
});
afterAll(async () => {
  await ctx.close();
});

const api = (url: string) => `/app/api/technique${url}`;
const saisie = (n: number) => ({ categorie: 'voirie', titre: `Trou ${n}`, ...CENTRE, email: `limite${n}@example.org` });
const TROP = { code: 'RATE_LIMITED', message: 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.' };

describe('rate limits per address', () => {
  let numero: string;
  let cle: string;

  it('limits new reports with a French 429, keeping those saved; reading is not limited', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie(i) });
      codes.push(res.statusCode);
      if (res.statusCode === 201) ({ numero, cle } = res.json().data);
      else expect(res.json().error).toEqual(TROP);
    }
    expect(codes).toEqual([201, 201, 429]);
    const stored = await ctx.app.deps.db.selectFrom('signalements').select('numero').execute();
    expect(stored).toHaveLength(2);
    for (let i = 0; i < 5; i++) expect((await ctx.app.inject({ method: 'GET', url: api(`/signalements/${numero}`) })).statusCode).toBe(200);
  });

  it('limits following, unsubscribing and alerts the same way', async () => {
    const suivre = () => ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/suivre`), payload: { email: 'voisin@example.org' } });
    expect([(await suivre()).statusCode, (await suivre()).statusCode, (await suivre()).statusCode]).toEqual([200, 200, 429]);
    // Each route counts on its own (@fastify/rate-limit's per-route limits): the unsubscribe links have their 2.
    const desabonner = () => ctx.app.inject({ method: 'POST', url: api('/desabonnement'), payload: { jeton: 'x'.repeat(43) } });
    expect([(await desabonner()).statusCode, (await desabonner()).statusCode, (await desabonner()).statusCode]).toEqual([404, 404, 429]);
    const alerte = (email: string) => ctx.app.inject({ method: 'POST', url: api('/alertes'), payload: { email } });
    expect([(await alerte('a@example.org')).statusCode, (await alerte('b@example.org')).statusCode]).toEqual([202, 202]);
    const refus = await alerte('c@example.org');
    expect(refus.statusCode).toBe(429);
    expect(refus.json().error).toEqual(TROP);
  });

  it('refuses a photo over UPLOAD_MAX_MB with 413 in French, and limits photo uploads', async () => {
    // 1,400 × 1,400 pixels of noise: about 2 MB as a JPEG of quality 100.
    const bruit = Buffer.alloc(1400 * 1400 * 3);
    for (let i = 0; i < bruit.length; i++) bruit[i] = (i * 2654435761) >>> 24;
    const lourde = await sharp(bruit, { raw: { width: 1400, height: 1400, channels: 3 } }).jpeg({ quality: 100 }).toBuffer();
    expect(lourde.length).toBeGreaterThan(1024 * 1024);
    const form = await multipart([{ field: 'photo', name: 'lourde.jpg', content: lourde, type: 'image/jpeg' }]);
    const res = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toEqual({ code: 'FILE_TOO_LARGE', message: 'Le fichier « lourde.jpg » dépasse la taille maximale de 1 Mo.' });
    expect(res.headers.connection).toBe('close');
    const petite = await multipart([{ field: 'photo', name: 'p.png', content: SAMPLES.png, type: 'image/png' }]);
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push((await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...petite.headers, 'x-access-key': cle }, payload: petite.payload })).statusCode);
    }
    expect(codes).toEqual([201, 201, 429]);
  });
});

describe('the district’s boundary (data/territory/aix-en-provence.json)', () => {
  const { perimetre, centre, perimetreApproximatif, sources } = loadTerritory();
  const ring = perimetre.coordinates[0]!;

  it('is a closed ring, counter-clockwise (RFC 7946), around Wikipédia’s centre, marked approximate with its source', () => {
    expect(centre).toEqual(CENTRE);
    expect(dansPolygone(centre, perimetre)).toBe(true);
    expect(ring[0]).toEqual(ring.at(-1));
    let aire = 0;
    for (let i = 0; i < ring.length - 1; i++) aire += ring[i]![0] * ring[i + 1]![1] - ring[i + 1]![0] * ring[i]![1];
    expect(aire).toBeGreaterThan(0);
    expect(perimetreApproximatif).toBe(true);
    expect(sources.find((s) => s.title.startsWith('Périmètre du quartier'))?.note).toMatch(/APPROXIMATIF.*remplacer par son périmètre officiel/su);
  });

  it('stays within the roads that bound the district, and leaves out the town centre and south of the A8', () => {
    for (const [lon, lat] of ring) {
      expect(lat).toBeGreaterThanOrEqual(43.521);
      expect(lat).toBeLessThanOrEqual(43.5355);
      expect(lon).toBeGreaterThanOrEqual(5.3985);
      expect(lon).toBeLessThanOrEqual(5.4265);
    }
    for (const dehors of [
      { lat: 43.5263, lon: 5.4474 }, // Cours Mirabeau
      { lat: 43.515, lon: 5.412 }, // south of the A8
      { lat: 43.54, lon: 5.41 }, // north of the avenue Jean-Monnet
      { lat: 43.528, lon: 5.39 }, // west of the boulevard de la Grande-Thumine
    ]) {
      expect(dansPolygone(dehors, perimetre), JSON.stringify(dehors)).toBe(false);
    }
  });
});

describe('leftovers of photo uploads', () => {
  it('are swept at start once older than an hour: temp files and photos no row references; a recorded photo stays', async () => {
    const racine = path.join(ctx.dataDir, 'photos-signalements');
    const recorded = await ctx.app.deps.db.selectFrom('signalementPhotos').select('storageKey').executeTakeFirstOrThrow();
    const orpheline = path.join(racine, 'abc', 'orpheline.jpg');
    const recente = path.join(racine, 'abc', 'recente.jpg');
    const temp = path.join(racine, '.tmp', 'envoi-coupe');
    fs.mkdirSync(path.dirname(orpheline), { recursive: true });
    for (const f of [orpheline, recente, temp]) fs.writeFileSync(f, 'x');
    const vieux = new Date(Date.now() - 2 * 3600_000);
    for (const f of [orpheline, temp, path.join(racine, recorded.storageKey)]) fs.utimesSync(f, vieux, vieux);
    // A second instance on the same data sweeps at its start.
    const autre = await buildApp(ctx.config, { logger: false });
    try {
      await vi.waitFor(() => expect(fs.existsSync(orpheline) || fs.existsSync(temp)).toBe(false), { timeout: 5000, interval: 50 });
      expect(fs.existsSync(recente)).toBe(true);
      expect(fs.existsSync(path.join(racine, recorded.storageKey))).toBe(true);
    } finally {
      await autre.close();
    }
  });
});

describe('hostile inputs on the routes of technical reports, with a real number, photo and key', () => {
  it('are answered with a documented 4xx, never a 5xx, whoever sends them', { timeout: 120_000 }, async () => {
    // Limits apart: an app of its own, so that the walk reaches the routes rather than the rate limiter.
    const libre = await createTestApp({}, { rateLimits: { create: false, upload: false, adresses: false, inscription: false, auth: false, signalement: false, photosSignalement: false, suiviSignalement: false, alerteSignalement: false } });
    try {
      const cree = await libre.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie(99) });
      const { numero, cle } = cree.json().data as { numero: string; cle: string };
      const form = await multipart([{ field: 'photo', name: 'p.png', content: SAMPLES.png, type: 'image/png' }]);
      const photo = await libre.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
      const good = { numero: () => numero, id: () => photo.json().data.id as string };
      const base = (await surUnPort(libre.app)).base;
      const routes = apiRoutes(libre.app).filter((r) => r.url.startsWith('/app/api/technique/'));
      expect(routes.length).toBeGreaterThanOrEqual(12);
      const problemes: string[] = [];
      const verifier = async (method: string, url: string, init: { headers?: Record<string, string>; body?: string }, label: string) => {
        const probleme = problemWith(await send(base, method, url, init));
        if (probleme) problemes.push(`${label}: ${probleme}`);
      };
      const appelants: Record<string, string>[] = [{}, { 'x-access-key': cle }];
      for (const route of routes) {
        for (const headers of appelants) {
          for (const name of paramNames(route.url)) for (const bad of BAD_PARAMS) await verifier(route.method, fill(route.url, good, [name, bad]), { headers }, `${route.method} ${route.url} ${name}=${bad}`);
          for (const query of BAD_QUERIES) await verifier(route.method, `${fill(route.url, good)}?${query}`, { headers }, `${route.method} ${route.url}?${query}`);
          if (route.method === 'GET') continue;
          for (const bad of BAD_BODIES) {
            await verifier(route.method, fill(route.url, good), { headers: { ...headers, ...(bad.type ? { 'content-type': bad.type } : {}) }, body: bad.body }, `${route.method} ${route.url} ${bad.name}`);
          }
        }
      }
      for (const c of generateCases({ routes, callers: [{ label: 'anonymous', headers: {} }, { label: 'reporter', headers: { 'x-access-key': cle } }], good, seed: 14, count: 300 })) {
        await verifier(c.method, c.url, { headers: c.headers, body: c.body }, c.label);
      }
      expect(problemes).toEqual([]);
    } finally {
      await libre.close();
    }
  });
});

describe('live events across server instances (PostgreSQL)', () => {
  it.skipIf(!process.env.DATABASE_URL)('reach the report streams of another instance (LISTEN/NOTIFY), never its housing topic', async () => {
    const second = await buildApp(ctx.config, { logger: false, rateLimits: { signalement: false } });
    const logement: unknown[] = [];
    const stop = second.deps.bus.subscribe((e) => logement.push(e));
    try {
      const port = (await surUnPort(second)).port;
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${port}/app/api/technique/evenements`, { signal: controller.signal });
      const reader = res.body!.getReader();
      let texte = '';
      const lire = async (jusqua: (t: string) => boolean) => {
        while (!jusqua(texte)) {
          const { value, done } = await reader.read();
          if (done) break;
          texte += new TextDecoder().decode(value);
        }
      };
      await lire((t) => t.includes('retry:'));
      // Made through the first instance (its creation limit is spent: the bus is what is under test).
      await ctx.app.deps.bus.publishSignalement({ numero: '2026-00777', etat: 'nouveau', de: null, date: new Date().toISOString() });
      await lire((t) => t.includes('2026-00777'));
      controller.abort();
      expect(texte).toContain('event: signalement\ndata: {"numero":"2026-00777","etat":"nouveau","de":null');
      expect(logement).toEqual([]);
    } finally {
      stop();
      await second.close();
    }
  });
});
