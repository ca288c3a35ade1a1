import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, demande, type TestContext } from './helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({}, { logger: false, rateLimits: { create: { max: 2, timeWindow: '1 minute' }, upload: false, adresses: false, inscription: false, auth: false } });
});
afterAll(async () => {
  await ctx.close();
});

it('limits creations from one address with a French 429, and keeps what was saved', async () => {
  const codes = [];
  for (let i = 0; i < 3; i++) {
    codes.push((await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: `013rate00000${i}` }) })).statusCode);
  }
  expect(codes).toEqual([201, 201, 429]);
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/add', payload: demande() });
  expect(res.statusCode).toBe(429);
  expect(res.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.' });
  const rows = await ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').execute();
  expect(rows.map((r) => r.numeroUnique).sort()).toEqual(['013rate000000', '013rate000001']);
  // Looking a request up is not limited by the creation limit.
  expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013rate000000' })).statusCode).toBe(200);
});

it('limits sign-in attempts and sign-ups with a French 429', async () => {
  const limited = await createTestApp({}, {
    logger: false,
    rateLimits: { create: false, upload: false, adresses: false, inscription: { max: 1, timeWindow: '1 minute' }, auth: { window: 60, max: 2 } },
  });
  try {
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await limited.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email: 'x@example.org', password: 'nimporte quoi du tout' } });
      codes.push(res.statusCode);
      if (res.statusCode === 429) expect(res.json().error.message).toBe('Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.');
    }
    expect(codes).toEqual([401, 401, 429]);
    const body = { nom: 'a', prenom: 'b', birthday: '1990-01-01', residence: 'r', rue: 'Avenue Marcel-Pagnol', email: 'r1@example.org', password: 'une phrase assez longue' };
    expect((await limited.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: body })).statusCode).toBe(201);
    const second = await limited.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: { ...body, email: 'r2@example.org' } });
    expect(second.statusCode).toBe(429);
    expect(second.json().error.code).toBe('RATE_LIMITED');
  } finally {
    await limited.close();
  }
});
