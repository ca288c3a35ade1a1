// State shared by several instances (src/server/partage, docs/operations.md « Plusieurs instances »): the
// configuration of Redis, where the rate-limit counters live, and what happens while Redis is away or comes back.
// The two-instance journeys are in deux-instances.test.ts (PostgreSQL and Redis).
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvenementDirect } from '../src/domain/demande.js';
import { buildApp } from '../src/server/app.js';
import { ConfigError, loadConfig, type Config } from '../src/server/config.js';
import { LocalBus, PostgresBus, RedisBus } from '../src/server/events/index.js';
import { MagasinPostgres, optionsDesLimites } from '../src/server/partage/limites.js';
import { freshDatabaseUrl } from './db.js';
import { createTestApp, demande } from './helpers.js';
import { REDIS_URL, redisRepond } from './redis.js';
import { relais } from './relais.js';
import { portLibre } from '../scripts/ports.js';

const surPostgres = Boolean(process.env.DATABASE_URL);
const MESSAGE_429 = 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.';

const avecRedis = await redisRepond(REDIS_URL);

/** A test's own configuration (a fresh database and folder), with `env` on top; `nettoyer` drops them. */
async function configDeTest(env: Record<string, string>): Promise<{ config: Config; nettoyer(): Promise<void> }> {
  const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-partage-'));
  const database = await freshDatabaseUrl();
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PUBLIC_URL: 'http://quartier.test', ADRESSE_API_URL: 'http://127.0.0.1:9/search/', ...env }, { databaseUrl: database.url });
  return {
    config,
    nettoyer: async () => {
      await database.drop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The app's log lines (JSON), at level info. */
function journal() {
  const lignes: { level: number; msg?: string; [k: string]: unknown }[] = [];
  const brut: string[] = [];
  return {
    lignes,
    brut,
    logger: {
      level: 'info',
      stream: {
        write: (ligne: string) => {
          brut.push(ligne);
          lignes.push(JSON.parse(ligne) as { level: number; msg?: string });
        },
      },
    },
  };
}

describe('REDIS_URL and REDIS_PREFIX', () => {
  it('are optional; a redis:// or rediss:// URL is taken, with its password kept out of any copy of the configuration', () => {
    expect(loadConfig({}).redis).toBeUndefined();
    const config = loadConfig({ REDIS_URL: 'redis://:motdepasse-secret@cache.interne:6380/2' });
    expect(config.redis).toMatchObject({ prefixe: 'qv:' });
    expect(config.redis!.url).toBe('redis://:motdepasse-secret@cache.interne:6380/2');
    expect(JSON.stringify(config)).not.toContain('motdepasse-secret');
    expect(loadConfig({ REDIS_URL: 'rediss://utilisateur:mdp@cache.exemple.fr', REDIS_PREFIX: 'quartier-prod:' }).redis).toMatchObject({ prefixe: 'quartier-prod:' });
  });

  it('refuse a malformed URL with a French message naming the variable, and never echo its password', () => {
    for (const mauvaise of ['cache.interne:6379', 'http://cache.interne', 'redis://', 'redis://:s3cret-de-prod@cache.interne:6379/base', 'redis://:s3cret-de-prod@cache interne']) {
      let erreur: unknown;
      try {
        loadConfig({ REDIS_URL: mauvaise });
      } catch (error) {
        erreur = error;
      }
      expect(erreur, mauvaise).toBeInstanceOf(ConfigError);
      expect((erreur as ConfigError).variable).toBe('REDIS_URL');
      expect((erreur as Error).message).toMatch(/^Configuration invalide : REDIS_URL doit être une URL redis:\/\/\[utilisateur:motdepasse@\]hôte\[:port\]\[\/base\] ou rediss:\/\/… \(TLS\)/u);
      expect((erreur as Error).message).not.toContain('s3cret-de-prod');
    }
    expect(() => loadConfig({ REDIS_URL: 'redis://:x@cache/1', REDIS_PREFIX: 'avec espace' })).toThrow(/^Configuration invalide : REDIS_PREFIX doit faire 1 à 64 lettres/u);
    // The other URLs that may carry a password are masked the same way.
    expect(() => loadConfig({ SMTP_URL: 'smtp://moi:mdp-smtp@mail .exemple.fr' })).toThrow(/valeur reçue : « smtp:\/\/moi:\*\*\*@mail \.exemple\.fr »/u);
  });
});

describe('where the counters and the events go', () => {
  it('without Redis: in memory and an in-process bus on SQLite, the database and NOTIFY on PostgreSQL', async () => {
    const ctx = await createTestApp();
    try {
      expect(ctx.app.deps.redis).toBeUndefined();
      const options = optionsDesLimites({ redis: undefined, db: ctx.app.deps.db, postgres: surPostgres, secret: 'x'.repeat(32), log: ctx.app.log });
      if (surPostgres) {
        expect(ctx.app.deps.bus).toBeInstanceOf(PostgresBus);
        expect(options).toMatchObject({ skipOnError: true });
        expect(options.store).toBeTypeOf('function');
      } else {
        expect(ctx.app.deps.bus).toBeInstanceOf(LocalBus);
        expect(ctx.app.deps.bus).not.toBeInstanceOf(PostgresBus);
        expect(options).toEqual({});
      }
    } finally {
      await ctx.close();
    }
  });

  it('PostgreSQL’s counter: one row per route and key, counted whichever caller, started again when its window ends; keys unreadable', async () => {
    const ctx = await createTestApp();
    try {
      const { db } = ctx.app.deps;
      const magasin = new MagasinPostgres(db, 'un secret de trente-deux caractères', '', { dernier: Date.now() });
      const route = magasin.child({ routeInfo: { method: 'POST', url: '/app/api/logement' } }) as MagasinPostgres;
      const autre = magasin.child({ routeInfo: { method: 'GET', url: '/app/api/adresses' } }) as MagasinPostgres;
      const t = Date.now() - 10 * 60_000;
      expect(await route.compter('203.0.113.5', 60_000, t)).toEqual({ current: 1, ttl: 60_000 });
      const ensemble = await Promise.all([route.compter('203.0.113.5', 60_000, t + 1000), route.compter('203.0.113.5', 60_000, t + 1000)]);
      expect(ensemble.map((r) => r.current).sort()).toEqual([2, 3]);
      expect(ensemble.map((r) => r.ttl)).toEqual([59_000, 59_000]);
      expect(await route.compter('203.0.113.5', 60_000, t + 2000)).toEqual({ current: 4, ttl: 58_000 });
      // Another route, another address: counted apart.
      expect(await autre.compter('203.0.113.5', 60_000, t + 2000)).toEqual({ current: 1, ttl: 60_000 });
      expect(await route.compter('203.0.113.6', 60_000, t + 2000)).toEqual({ current: 1, ttl: 60_000 });
      // The window ends: counting starts again.
      expect(await route.compter('203.0.113.5', 60_000, t + 60_000)).toEqual({ current: 1, ttl: 60_000 });
      const rows = await db.selectFrom('limitesFrequence').selectAll().execute();
      expect(rows).toHaveLength(3);
      expect(JSON.stringify(rows)).not.toContain('203.0.113');
      // Ended windows are deleted, at most once a minute.
      await route.compter('203.0.113.7', 60_000, Date.now() + 61_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(await db.selectFrom('limitesFrequence').select('cle').execute()).toHaveLength(1);
    } finally {
      await ctx.close();
    }
  });
});

describe('Redis away', () => {
  let app: FastifyInstance;
  let nettoyer: () => Promise<void>;
  const logs = journal();

  beforeAll(async () => {
    const port = await portLibre();
    const test = await configDeTest({ REDIS_URL: `redis://:mot-de-passe-redis@127.0.0.1:${port}`, REDIS_PREFIX: `qv-absent-${randomBytes(3).toString('hex')}:` });
    nettoyer = test.nettoyer;
    app = await buildApp(test.config, { logger: logs.logger, rateLimits: { create: { max: 1, timeWindow: '1 minute' }, upload: false, adresses: false, inscription: false, auth: false } });
  }, 30_000);
  afterAll(async () => {
    await app.close();
    await nettoyer();
  });

  it('starts anyway and says why, without the password', () => {
    expect(app.deps.redis?.estPrete()).toBe(false);
    expect(logs.lignes.some((l) => l.level === 40 && /Redis \(REDIS_URL\) ne répond pas/u.test(l.msg ?? ''))).toBe(true);
    expect(logs.brut.join('')).not.toContain('mot-de-passe-redis');
  });

  it('lets rate-limited requests through uncounted (never a 500), with one warning', async () => {
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() })).statusCode);
    expect(codes).toEqual([201, 201, 201]);
    expect(logs.lignes.filter((l) => l.msg === 'limites de fréquence : Redis ne répond pas, les requêtes passent sans être comptées')).toHaveLength(1);
  });

  it('still brings an event to this instance’s own streams, and the caller hears of the failure', async () => {
    const recus: EvenementDirect[] = [];
    const fin = app.deps.bus.subscribe((e) => recus.push(e));
    const evenement: EvenementDirect = { numeroUnique: '013absent0001', statutDeLaDemande: 'Passage CAL', de: 'En attente', date: new Date().toISOString() };
    await expect(app.deps.bus.publish(evenement)).rejects.toThrow();
    fin();
    expect(recus).toEqual([evenement]);
  });

  it('is reported by /readyz, which stays 200: every instance shares Redis and serves without it', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json().verifications).toMatchObject({ redis: 'échec', base: 'ok' });
  });
});

describe.skipIf(!avecRedis)('Redis going away and coming back', () => {
  let coupure: Awaited<ReturnType<typeof relais>>;
  const prefixe = `qv-retour-${randomBytes(3).toString('hex')}:`;
  const logs = journal();
  let app: FastifyInstance;
  let nettoyer: () => Promise<void>;

  beforeAll(async () => {
    coupure = await relais(new URL(REDIS_URL));
    const test = await configDeTest({ REDIS_URL: coupure.url(), REDIS_PREFIX: prefixe });
    nettoyer = test.nettoyer;
    app = await buildApp(test.config, { logger: logs.logger, rateLimits: { create: { max: 2, timeWindow: '1 minute' }, upload: false, adresses: false, inscription: false, auth: false } });
  });
  afterAll(async () => {
    await app.close();
    await nettoyer();
    const redis = new Redis(REDIS_URL);
    const cles = await redis.keys(`${prefixe}*`);
    if (cles.length > 0) await redis.del(...cles);
    redis.disconnect();
    await coupure.couper().catch(() => undefined);
  });

  it('counts in Redis, lets requests through while it is away, then counts again and hears events again once it is back', async () => {
    expect(app.deps.bus).toBeInstanceOf(RedisBus);
    const creer = async () => (await app.inject({ method: 'POST', url: '/app/api/logement', remoteAddress: '198.51.100.4', payload: demande() })).statusCode;
    expect([await creer(), await creer(), await creer()]).toEqual([201, 201, 429]);
    const recus: EvenementDirect[] = [];
    const fin = app.deps.bus.subscribe((e) => recus.push(e));
    // What another instance publishes reaches this one.
    const autre = new Redis(REDIS_URL);
    const evenement = (n: string): EvenementDirect => ({ numeroUnique: n, statutDeLaDemande: 'Passage CAL', de: 'En attente', date: new Date().toISOString() });
    try {
      await autre.publish(`${prefixe}statut`, JSON.stringify(evenement('013retour0001')));
      await expect.poll(() => recus.map((e) => e.numeroUnique)).toEqual(['013retour0001']);

      await coupure.couper();
      await expect.poll(() => app.deps.redis!.estPrete()).toBe(false);
      expect([await creer(), await creer()]).toEqual([201, 201]);
      expect((await app.inject({ method: 'GET', url: '/readyz' })).json().verifications.redis).toBe('échec');
      await expect.poll(() => logs.lignes.some((l) => l.level === 40 && /^Redis \(REDIS_URL\) ne répond pas/u.test(l.msg ?? ''))).toBe(true);

      await coupure.retablir();
      await expect.poll(() => app.deps.redis!.estPrete(), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => logs.lignes.some((l) => l.level === 30 && /^Redis répond de nouveau/u.test(l.msg ?? ''))).toBe(true);
      await expect.poll(async () => (await app.inject({ method: 'GET', url: '/readyz' })).json().verifications.redis).toBe('ok');
      // The subscription was made again: another instance's event arrives.
      await expect
        .poll(
          async () => {
            await autre.publish(`${prefixe}statut`, JSON.stringify(evenement('013retour0002')));
            return recus.map((e) => e.numeroUnique);
          },
          { timeout: 10_000 },
        )
        .toContain('013retour0002');
      // The window's count went on in Redis: this address is still over its limit.
      const refus = await app.inject({ method: 'POST', url: '/app/api/logement', remoteAddress: '198.51.100.4', payload: demande() });
      expect(refus.statusCode).toBe(429);
      expect(refus.json().error.message).toBe(MESSAGE_429);
    } finally {
      fin();
      autre.disconnect();
    }
  });
});
