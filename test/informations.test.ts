import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_LIMITS } from '../src/server/auth/sessions.js';
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
    expect(data.directeurPublication).toBe("Le maire d'Aix-en-Provence");
    // The page's session durations are those the sessions enforce.
    expect(data.durees.sessionHabitantJours * 24 * 3600_000).toBe(SESSION_LIMITS.habitant.idleMs);
    expect(data.durees.sessionHabitantMaxJours * 24 * 3600_000).toBe(SESSION_LIMITS.habitant.absoluteMs);
    expect(data.durees.sessionGestionMinutes * 60_000).toBe(SESSION_LIMITS.gestion.idleMs);
    expect(data.durees.sessionGestionMaxHeures * 3600_000).toBe(SESSION_LIMITS.gestion.absoluteMs);
    expect(data.durees.traceMailJours).toBe(30);
  });
});
