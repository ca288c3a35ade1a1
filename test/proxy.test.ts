import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../src/server/app.js';
import { createTestApp, demande, type TestContext } from './helpers.js';

/**
 * TRUST_PROXY (issue 9 point 4): the client's IP is never the left-most X-Forwarded-For value, which the
 * client writes itself. Seen through the rate limits, the real ones (creations 20 / 10 min; sign-in set to 10 / 5 min).
 */
/** The real limits, with the sign-in limit per IP at 10 to keep the tests short (the default is higher). */
const LIMITS = { ...DEFAULT_RATE_LIMITS, auth: { window: 300, max: 10 } };
let attempts = 0;
/** A wrong sign-in, each on another address (so only the per-IP limit counts, not the per-account one). */
const signIn = (ctx: TestContext, headers: Record<string, string>, remoteAddress?: string) =>
  ctx.app.inject({
    method: 'POST',
    url: '/app/api/auth/sign-in/email',
    headers,
    remoteAddress,
    payload: { email: `personne${(attempts += 1)}@example.org`, password: 'pas le bon mot de passe' },
  });

describe('TRUST_PROXY=1 (one proxy in front)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp({ TRUST_PROXY: '1' }, { rateLimits: LIMITS });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('takes the address the proxy saw: a forged left-most value does not get around the sign-in limit', async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 15; i++) codes.push((await signIn(ctx, { 'x-forwarded-for': `6.6.6.${i}, 10.0.0.7` })).statusCode);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes.slice(10)).toEqual(Array(5).fill(429));
    // Another client behind the same proxy is not limited.
    expect((await signIn(ctx, { 'x-forwarded-for': '10.0.0.8' })).statusCode).toBe(401);
  });

  it('does not let forged values get around the creation limit either', async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 25; i++) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', headers: { 'x-forwarded-for': `7.7.${i}.1, 10.0.0.9` }, payload: demande() });
      codes.push(res.statusCode);
    }
    expect(codes.filter((c) => c === 201)).toHaveLength(20);
    expect(codes.slice(20)).toEqual(Array(5).fill(429));
  });
});

describe('TRUST_PROXY as the proxies’ addresses', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp({ TRUST_PROXY: '10.9.9.9, 192.168.50.0/24' }, { rateLimits: LIMITS });
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('keeps the socket address of a client that is not a listed proxy, whatever it forwards', async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 12; i++) codes.push((await signIn(ctx, { 'x-forwarded-for': `6.6.6.${i}` }, '203.0.113.5')).statusCode);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes.slice(10)).toEqual([429, 429]);
  });

  it('takes the forwarded address from a listed proxy, and skips listed proxies in the chain', async () => {
    const codes: number[] = [];
    for (let i = 1; i <= 11; i++) codes.push((await signIn(ctx, { 'x-forwarded-for': `6.6.${i}.6, 198.51.100.7, 192.168.50.3` }, '10.9.9.9')).statusCode);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(codes[10]).toBe(429);
    // 198.51.100.8 is another client, behind the same proxies.
    expect((await signIn(ctx, { 'x-forwarded-for': '198.51.100.8, 192.168.50.3' }, '10.9.9.9')).statusCode).toBe(401);
  });
});
