import type { AsyncLocalStorage } from 'node:async_hooks';
import {
  getCurrentAuthContextAsyncLocalStorage,
  getCurrentDBAdapterAsyncLocalStorage,
  getCurrentRequestState,
  getRequestStateAsyncLocalStorage,
  runWithRequestState,
} from '@better-auth/core/context';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, inscrire, type TestContext } from './helpers.js';

/**
 * better-auth runs its work inside AsyncLocalStorages; on Node 20 an enabled one keeps promise hooks on for the whole
 * process, which cost every later request ~40 % more CPU (issue 11 point 3). The app turns them off when no call of
 * better-auth is under way (auth/a-la-demande.ts `avec`), and calls that overlap keep their context to the end.
 */

let ctx: TestContext;
const ORIGIN = 'http://quartier.test';

beforeAll(async () => {
  // Seven sign-ups from one address: past the default five per ten minutes.
  ctx = await createTestApp({ RATE_LIMIT_MULTIPLIER: '10' });
});
afterAll(async () => {
  await ctx.close();
});

async function contextes(): Promise<(AsyncLocalStorage<unknown> & { enabled?: boolean })[]> {
  return Promise.all([getRequestStateAsyncLocalStorage(), getCurrentDBAdapterAsyncLocalStorage(), getCurrentAuthContextAsyncLocalStorage()]);
}

describe("better-auth's contexts", () => {
  it('are turned off once its calls end, and calls that overlap all succeed', async () => {
    // Two sign-ins on each of four accounts: each attempt counts toward its account's lock (auth/throttle.ts, five
    // before a success forgets them), so four at once on one account could be refused with 429.
    const comptes = await Promise.all(Array.from({ length: 4 }, () => inscrire(ctx)));
    const connexions = Array.from({ length: 8 }, (_, n) =>
      ctx.app.inject({
        method: 'POST',
        url: '/app/api/auth/sign-in/email',
        headers: { origin: ORIGIN },
        payload: { email: comptes[n % 4]!.email, password: 'un jardin sous la pluie' },
      }),
    );
    const nouveaux = Array.from({ length: 3 }, () => inscrire(ctx));
    const reponses = await Promise.all(connexions);
    expect(reponses.map((r) => r.statusCode)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(reponses.every((r) => String(r.headers['set-cookie']).includes('qv.session_token='))).toBe(true);
    expect((await Promise.all(nouveaux)).every((c) => c.cookie.includes('qv.session_token='))).toBe(true);

    // The new sessions are real: the app reads them.
    const moi = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: String(reponses[0]!.headers['set-cookie']).split(';')[0] } });
    expect(moi.statusCode).toBe(200);
    expect(moi.json().data.email).toBe(comptes[0]!.email);

    // Node 20's storages (async hooks) say whether they are on; Node 24's (the context frame) cost nothing and have no flag.
    expect((await contextes()).filter((c) => c.enabled === true)).toHaveLength(0);
  });

  it('keep the context of a call under way when another call starts and ends meanwhile', async () => {
    const auth = ctx.app.deps.auth;
    const etat = new WeakMap<object, unknown>();
    let relacher!: () => void;
    const attente = new Promise<void>((resolve) => (relacher = resolve));
    let courte!: Promise<undefined>;
    const longue = auth.avec(() =>
      runWithRequestState(etat, async () => {
        // Another call starts and ends while this one runs inside its context.
        courte = auth.avec(async () => undefined);
        await courte;
        await attente;
        return getCurrentRequestState();
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    relacher();
    expect(await longue).toBe(etat);
    await courte;
    expect((await contextes()).filter((c) => c.enabled === true)).toHaveLength(0);
  });
});
