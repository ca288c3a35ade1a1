import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_LIMITS } from '../src/server/auth/sessions.js';
import { ConfigError, loadConfig } from '../src/server/config.js';
import { createTestApp, type TestContext } from './helpers.js';

describe('GET /app/api/informations-legales', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp({ LEGAL_EDITEUR: 'Ville de Test', LEGAL_DPO: 'dpo@ville.test' });
  });
  afterAll(async () => ctx.close());

  it('states the configured publisher and the durations the server applies, the same to everyone', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/informations-legales' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/u);
    const { data } = res.json();
    expect(data.editeur).toBe('Ville de Test');
    expect(data.dpo).toBe('dpo@ville.test');
    // Defaults for what is not configured.
    expect(data.directeurPublication).toBe("Le maire d’Aix-en-Provence");
    // The page's session durations are those the sessions enforce.
    expect(data.durees.sessionHabitantJours * 24 * 3600_000).toBe(SESSION_LIMITS.habitant.idleMs);
    expect(data.durees.sessionHabitantMaxJours * 24 * 3600_000).toBe(SESSION_LIMITS.habitant.absoluteMs);
    expect(data.durees.sessionGestionMinutes * 60_000).toBe(SESSION_LIMITS.gestion.idleMs);
    expect(data.durees.sessionGestionMaxHeures * 3600_000).toBe(SESSION_LIMITS.gestion.absoluteMs);
    expect(data.durees.traceMailJours).toBe(30);
  });
});

describe('the police municipale on GET /app/api/informations-legales (« Sécurité » page)', () => {
  it('gives by default only the main station’s address, the one the Ville publishes (no telephone, no hours)', async () => {
    const ctx = await createTestApp();
    try {
      const { data } = (await ctx.app.inject({ method: 'GET', url: '/app/api/informations-legales' })).json();
      expect(data.policeMunicipale).toEqual({ adresse: 'Poste principal de la police municipale, cours des Minimes, Aix-en-Provence' });
    } finally {
      await ctx.close();
    }
  });

  it('gives the configured telephone, address and hours, trimmed', async () => {
    const ctx = await createTestApp({
      POLICE_MUNICIPALE_TELEPHONE: ' 04 42 00 00 00 ',
      POLICE_MUNICIPALE_ADRESSE: '1 place du Poste, 13090 Testville',
      POLICE_MUNICIPALE_HORAIRES: '24 heures sur 24, 7 jours sur 7',
    });
    try {
      const res = await ctx.app.inject({ method: 'GET', url: '/app/api/informations-legales' });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.policeMunicipale).toEqual({
        telephone: '04 42 00 00 00',
        adresse: '1 place du Poste, 13090 Testville',
        horaires: '24 heures sur 24, 7 jours sur 7',
      });
    } finally {
      await ctx.close();
    }
  });

  it('says nothing of it when every part is switched off with « - » (a town without a police municipale)', async () => {
    const ctx = await createTestApp({ POLICE_MUNICIPALE_ADRESSE: '-', POLICE_MUNICIPALE_TELEPHONE: '-', POLICE_MUNICIPALE_HORAIRES: '' });
    try {
      const { data } = (await ctx.app.inject({ method: 'GET', url: '/app/api/informations-legales' })).json();
      expect(data).not.toHaveProperty('policeMunicipale');
      expect(data.editeur).toBe("Ville d’Aix-en-Provence — mairie annexe du Jas de Bouffan");
    } finally {
      await ctx.close();
    }
  });

  it('refuses to start with a telephone that is not a number, naming the setting in French', () => {
    expect(() => loadConfig({ POLICE_MUNICIPALE_TELEPHONE: 'appelez la mairie' })).toThrow(ConfigError);
    expect(() => loadConfig({ POLICE_MUNICIPALE_TELEPHONE: 'appelez la mairie' })).toThrow(
      'Configuration invalide : POLICE_MUNICIPALE_TELEPHONE doit être un numéro de téléphone : chiffres, espaces, points ou tirets (par exemple : 04 42 00 00 00) (valeur reçue : « appelez la mairie »).',
    );
    expect(loadConfig({ POLICE_MUNICIPALE_TELEPHONE: '+33 4 42-00.00.00', POLICE_MUNICIPALE_ADRESSE: '-' }).policeMunicipale).toEqual({ telephone: '+33 4 42-00.00.00' });
  });
});
