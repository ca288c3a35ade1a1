import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/server/config.js';

describe('configuration', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 3000, host: '127.0.0.1', databaseUrl: undefined, publicUrl: 'http://localhost:3000', uploadMaxBytes: 10 * 1024 * 1024 });
    expect(c.dataDir.endsWith('/data')).toBe(true);
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/qv',
      DATABASE_URL: 'postgres://u@db:5432/qv',
      PUBLIC_URL: 'https://logement.example.fr/',
      SMTP_URL: 'smtps://u:p@mail.example.fr:465',
      UPLOAD_MAX_MB: '5',
    });
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/tmp/qv',
      databaseUrl: 'postgres://u@db:5432/qv',
      publicUrl: 'https://logement.example.fr',
      smtpUrl: 'smtps://u:p@mail.example.fr:465',
      uploadMaxBytes: 5 * 1024 * 1024,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['PUBLIC_URL', 'logement.example.fr'],
    ['SMTP_URL', 'http://mail'],
    ['UPLOAD_MAX_MB', '0'],
    ['UPLOAD_MAX_MB', 'dix'],
    ['LOG_LEVEL', 'bavard'],
    ['TRUST_PROXY', 'oui'],
    ['TRUST_PROXY', '11'],
    ['TRUST_PROXY', '-1'],
    ['TRUST_PROXY', '10.0.0.1, serveur'],
    ['TRUST_PROXY', '10.0.0.0/33'],
    ['TRUST_PROXY', '300.1.1.1'],
    ['HTTP_HEADERS_TIMEOUT_S', '0'],
    ['HTTP_REQUEST_TIMEOUT_S', 'une heure'],
    ['HTTP_IDLE_TIMEOUT_S', '10'],
    ['HTTP_BODY_MIN_RATE', '-5'],
    ['HTTP_BODY_RATE_WINDOW_S', '0'],
  ])('names %s when it is wrong (%s)', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      expect((error as Error).message).toMatch(new RegExp(`^Configuration invalide : ${variable} .*« ${value.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')} »`, 'u'));
    }
  });

  it('refuses the example secrets of deploy/*.env: a server never starts with them', () => {
    for (const [nom, valeur] of [
      ['AUTH_SECRET', 'change-me-openssl-rand-base64-48-change-me-change-me'],
      ['METRICS_TOKEN', 'change-me-openssl-rand-hex-32-change-me'],
    ] as const) {
      expect(() => loadConfig({ [nom]: valeur })).toThrow(`${nom} est encore la valeur d’exemple de deploy/`);
    }
    expect(loadConfig({ AUTH_SECRET: 'x'.repeat(40), METRICS_TOKEN: 'y'.repeat(20) }).authSecret).toBe('x'.repeat(40));
  });

  it('reads TRUST_PROXY as no proxy, a hop count or the proxies’ addresses, never “trust everything”', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.1, 192.168.0.0/16 ,::1, fd00::/8, loopback ' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback']);
  });

  it('reads the HTTP timeouts, the slowest body accepted and the turn budget, with working defaults', () => {
    expect(loadConfig({}).http).toEqual({ headersTimeoutMs: 20_000, requestTimeoutMs: 3_600_000, idleTimeoutMs: 60_000, bodyMinRate: 512, bodyRateWindowMs: 15_000, turnBudgetMs: undefined });
    expect(
      loadConfig({ HTTP_HEADERS_TIMEOUT_S: '5', HTTP_REQUEST_TIMEOUT_S: '600', HTTP_IDLE_TIMEOUT_S: '45', HTTP_BODY_MIN_RATE: '0', HTTP_BODY_RATE_WINDOW_S: '30', HTTP_TURN_BUDGET_MS: '0' }).http,
    ).toEqual({ headersTimeoutMs: 5000, requestTimeoutMs: 600_000, idleTimeoutMs: 45_000, bodyMinRate: 0, bodyRateWindowMs: 30_000, turnBudgetMs: 0 });
    expect(loadConfig({ HTTP_TURN_BUDGET_MS: '1000' }).http.turnBudgetMs).toBe(1000);
    expect(() => loadConfig({ HTTP_TURN_BUDGET_MS: '1001' })).toThrow('HTTP_TURN_BUDGET_MS doit être un nombre entier de millisecondes entre 0 et 1000');
    expect(() => loadConfig({ HTTP_TURN_BUDGET_MS: '5 ms' })).toThrow(
      'Configuration invalide : HTTP_TURN_BUDGET_MS doit être un nombre entier de millisecondes entre 0 et 1000 (0 : pas de partage des tours) (valeur reçue : « 5 ms »).',
    );
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_S: '60', HTTP_REQUEST_TIMEOUT_S: '30' })).toThrow(
      'Configuration invalide : HTTP_HEADERS_TIMEOUT_S doit être inférieur ou égal à HTTP_REQUEST_TIMEOUT_S (30).',
    );
  });

  it('reads the life cycle of requests (months, reminders, the job’s hour), refusing what contradicts the rules', () => {
    expect(loadConfig({}).cycleDeVie).toEqual({ validiteMois: 12, radiationMois: 13, reactivationMois: 18, conservationMois: 12, rappelsJours: [30, 7], heure: 3 });
    expect(
      loadConfig({ VALIDITE_MOIS: '6', RADIATION_APRES_MOIS: '7', REACTIVATION_JUSQUA_MOIS: '9', CONSERVATION_MOIS: '24', RAPPELS_JOURS: ' 7, 15,30,7', TACHES_HEURE: '0' }).cycleDeVie,
    ).toEqual({ validiteMois: 6, radiationMois: 7, reactivationMois: 9, conservationMois: 24, rappelsJours: [30, 15, 7], heure: 0 });
    expect(() => loadConfig({ VALIDITE_MOIS: 'un an' })).toThrow('Configuration invalide : VALIDITE_MOIS doit être un nombre entier de mois entre 1 et 120 (valeur reçue : « un an »).');
    expect(() => loadConfig({ RADIATION_APRES_MOIS: '12' })).toThrow('Configuration invalide : RADIATION_APRES_MOIS doit être supérieur à VALIDITE_MOIS (12).');
    expect(() => loadConfig({ REACTIVATION_JUSQUA_MOIS: '12' })).toThrow('Configuration invalide : REACTIVATION_JUSQUA_MOIS doit être supérieur ou égal à RADIATION_APRES_MOIS (13).');
    expect(() => loadConfig({ RAPPELS_JOURS: '30,sept' })).toThrow('RAPPELS_JOURS doit être une liste de nombres de jours');
    expect(() => loadConfig({ RAPPELS_JOURS: '0' })).toThrow('RAPPELS_JOURS doit être une liste de nombres de jours');
    expect(() => loadConfig({ RAPPELS_JOURS: '400' })).toThrow('Configuration invalide : RAPPELS_JOURS doit compter moins de jours que la validité (VALIDITE_MOIS : 12 mois).');
    expect(() => loadConfig({ TACHES_HEURE: '24' })).toThrow('Configuration invalide : TACHES_HEURE doit être une heure entière entre 0 et 23 (heure de Paris) (valeur reçue : « 24 »).');
  });

  it('stops the server with one line naming the variable and exit code 1', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: { PATH: process.env.PATH, PORT: 'trois-mille' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Configuration invalide : PORT doit être un nombre entier entre 0 et 65535 \(valeur reçue : « trois-mille »\)\.$/u);
  });
});

describe('GET /parametres', () => {
  it('tells the web app the upload limits in force', async () => {
    const { createTestApp } = await import('./helpers.js');
    const ctx = await createTestApp({ UPLOAD_MAX_MB: '4' });
    try {
      const res = await ctx.app.inject({ method: 'GET', url: '/app/api/parametres' });
      expect(res.json().data).toEqual({
        uploadMaxBytes: 4 * 1024 * 1024,
        maxFichiersParEnvoi: 20,
        typesAcceptes: { 'application/pdf': ['.pdf'], 'image/jpeg': ['.jpg', '.jpeg'], 'image/png': ['.png'] },
        quotaDocuments: { fichiers: 50, octets: 150 * 1024 * 1024 },
        google: false,
        cycleDeVie: { validiteMois: 12, radiationMois: 13, reactivationMois: 18, conservationMois: 12, rappelsJours: [30, 7] },
      });
    } finally {
      await ctx.close();
    }
  });
});
