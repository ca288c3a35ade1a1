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
  ])('names %s when it is wrong (%s)', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    try {
      loadConfig({ [variable]: value });
    } catch (error) {
      expect((error as Error).message).toMatch(new RegExp(`^Configuration invalide : ${variable} .*« ${value.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')} »`, 'u'));
    }
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
        google: false,
      });
    } finally {
      await ctx.close();
    }
  });
});
