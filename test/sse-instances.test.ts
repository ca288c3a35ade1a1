import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { createAccount, createTestApp, demande, surUnPort, type TestContext } from './helpers.js';

// Two server instances on one PostgreSQL, without Redis: a change made through one reaches the SSE clients of the
// other (LISTEN/NOTIFY), and a rate limit is counted across both (the `limites_frequence` table). With SQLite one
// process serves everything, so this runs in CI's PostgreSQL pass. With Redis: deux-instances.test.ts.
const onPostgres = Boolean(process.env.DATABASE_URL);
let first: TestContext;
let second: Awaited<ReturnType<typeof buildApp>>;
let port: number;

beforeAll(async () => {
  if (!onPostgres) return;
  const rateLimits = { create: false, upload: false, adresses: { max: 2, timeWindow: '1 minute' }, inscription: false, auth: false } as const;
  first = await createTestApp({}, { logger: false, rateLimits });
  second = await buildApp(first.config, { logger: false, rateLimits });
  port = (await surUnPort(second)).port;
});
afterAll(async () => {
  if (!onPostgres) return;
  await second.close();
  await first.close();
});

it.skipIf(!onPostgres)('sends a status change made on one instance to an SSE client of the other', async () => {
  const manager = await createAccount(first, 'manager');
  await first.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013instance01' }) });
  const controller = new AbortController();
  const res = await fetch(`http://127.0.0.1:${port}/app/api/evenements`, { headers: { cookie: manager.cookie }, signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('retry:')) text += new TextDecoder().decode((await reader.read()).value);

  const change = await first.app.inject({
    method: 'POST',
    url: '/app/api/logement/update/status',
    headers: { cookie: manager.cookie },
    payload: { logementId: '013instance01', newStatus: 'Passage CAL' },
  });
  expect(change.statusCode).toBe(200);
  while (!text.includes('event: statut')) text += new TextDecoder().decode((await reader.read()).value);
  expect(JSON.parse(/data: (.*)\n/u.exec(text)![1]!)).toMatchObject({ numeroUnique: '013instance01', statutDeLaDemande: 'Passage CAL' });
  controller.abort();
});

it.skipIf(!onPostgres)('counts a rate limit across both through the database, with the French 429', async () => {
  expect(first.config.redis).toBeUndefined();
  const adresses = (app: Awaited<ReturnType<typeof buildApp>>) => app.inject({ method: 'GET', url: '/app/api/adresses?q=avenue', remoteAddress: '192.0.2.50' });
  const codes = [];
  for (const app of [first.app, second, first.app, second]) codes.push((await adresses(app)).statusCode);
  expect(codes).toEqual([200, 200, 429, 429]);
  expect((await adresses(second)).json().error).toEqual({ code: 'RATE_LIMITED', message: 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.' });
  expect(await first.app.deps.db.selectFrom('limitesFrequence').select('compte').execute()).toEqual([{ compte: 5 }]);
});
