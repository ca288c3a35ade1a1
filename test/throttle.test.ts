import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AccountThrottle, ThrottleRepository } from '../src/server/auth/throttle.js';
import { createTestApp, lienRecu, mailsTo, type TestContext } from './helpers.js';

/**
 * Per-account progressive throttling (src/server/auth/throttle.ts, ASVS 2.2.1): on top of the per-IP
 * limit (on here, as in production: 10 per 5 minutes and per address), whatever addresses the attempts
 * come from. Time is moved with a fake clock (Date only).
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp({}, { rateLimits: { create: false, upload: false, adresses: false, inscription: false, auth: { window: 300, max: 10 } } });
});
afterAll(async () => {
  await ctx.close();
});

let now = Date.parse('2030-03-01T09:00:00Z');
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  now += 24 * 3600 * 1000; // every test starts a day later: nothing carries over
  vi.setSystemTime(now);
});
afterEach(() => {
  vi.useRealTimers();
});
const wait = (seconds: number) => {
  now += seconds * 1000;
  vi.setSystemTime(now);
};

const PASSWORD = 'un jardin sous la pluie';
let accounts = 0;
let ip = 0;
/** A different client address for each request, as an attacker with many addresses would use. */
const nextIp = () => {
  ip += 1;
  return `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;
};

async function newAccount(): Promise<string> {
  accounts += 1;
  const email = `cible${accounts}@example.org`;
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/app/api/user/inscription',
    remoteAddress: nextIp(),
    payload: { nom: 'Cible', prenom: 'Compte', birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email, password: PASSWORD },
  });
  expect(res.statusCode).toBe(201);
  return email;
}

async function signIn(email: string, password: string, remoteAddress = nextIp()) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', remoteAddress, payload: { email, password } });
  return { status: res.statusCode, body: res.json() as { error?: { code: string; message: string } }, retryAfter: res.headers['retry-after'] };
}

const locked = (minutes: number) => ({
  code: 'RATE_LIMITED',
  message: `Trop de tentatives pour ce compte. Réessayez dans ${minutes} minute${minutes > 1 ? 's' : ''}.`,
});

describe('per-account throttling of sign-in', () => {
  it('stops 100 wrong passwords from 100 addresses, and refuses even the right password while locked', async () => {
    const email = await newAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await signIn(email, `mauvais essai numero ${i}`)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));

    const right = await signIn(email, PASSWORD);
    expect(right.status).toBe(429);
    expect(right.body.error).toEqual(locked(1));
    expect(right.retryAfter).toBe('60');
    // The address is an HMAC: the table does not tell whom the attempts aimed at.
    const rows = await ctx.app.deps.db.selectFrom('authThrottle').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('cible');
  });

  it('counts concurrent attempts one by one: five get through, never more', async () => {
    const email = await newAccount();
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(email, `essai en parallele ${i}`)));
    const statuses = all.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('answers an unknown e-mail exactly as a known one', async () => {
    const known = await newAccount();
    const unknown = `personne${accounts}@example.org`;
    const answers = async (email: string) => {
      const seen = [];
      for (let i = 0; i < 7; i++) seen.push(await signIn(email, `mauvais essai ${i}`));
      return seen;
    };
    const a = await answers(known);
    const b = await answers(unknown);
    expect(a).toEqual(b);
    expect(a.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect((await signIn(known, PASSWORD)).body).toEqual((await signIn(unknown, PASSWORD)).body);
  });

  it('locks for longer at each further failure, up to 30 minutes; after the lock the right password works and starts the count again', async () => {
    const email = await newAccount();
    for (let i = 0; i < 5; i++) expect((await signIn(email, `faux ${i}`)).status).toBe(401);
    expect((await signIn(email, 'faux encore')).body.error).toEqual(locked(1));
    wait(61);
    expect((await signIn(email, 'faux 6')).status).toBe(401);
    const second = await signIn(email, PASSWORD);
    expect([second.status, second.body.error, second.retryAfter]).toEqual([429, locked(2), '120']);
    for (const minutes of [2, 4, 8, 16, 30, 30]) {
      wait(minutes * 60 + 1);
      expect((await signIn(email, 'toujours faux')).status).toBe(401);
      expect((await signIn(email, PASSWORD)).body.error).toEqual(locked(Math.min(minutes * 2, 30)));
    }

    wait(30 * 60 + 1);
    expect((await signIn(email, PASSWORD)).status).toBe(200);
    // The success forgot the failures: the right password again, then five fresh tries before a lock.
    expect((await signIn(email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await signIn(email, `faux ${i}`)).status).toBe(401);
    expect((await signIn(email, PASSWORD)).status).toBe(429);
  });

  it('forgets failures after a quiet day', async () => {
    const email = await newAccount();
    for (let i = 0; i < 4; i++) expect((await signIn(email, `faux ${i}`)).status).toBe(401);
    wait(24 * 3600 + 1);
    for (let i = 0; i < 5; i++) expect((await signIn(email, `faux ${i}`)).status).toBe(401);
    expect((await signIn(email, PASSWORD)).status).toBe(429);
  });

  it('never refuses an attempt because a success forgot the count meanwhile', async () => {
    // An attempt that starts as a concurrent sign-in on the same account succeeds and forgets the count: the
    // attempt must still be counted and let through (it once found no row and answered a lock).
    const throttle = new AccountThrottle({ repository: new ThrottleRepository(ctx.app.deps.db), secret: 'secret de test' });
    const email = `concurrente${accounts}@example.org`;
    for (let round = 0; round < 20; round++) {
      const [verdict] = await Promise.all([throttle.attempt('sign-in', email), throttle.forget('sign-in', email)]);
      expect(verdict).toEqual({ allowed: true });
    }
    // Right sign-ins at once on one account, a few rounds: none is refused.
    const comptes = [await newAccount(), await newAccount()];
    for (let round = 0; round < 5; round++) {
      const all = await Promise.all(Array.from({ length: 8 }, (_, i) => signIn(comptes[i % 2]!, PASSWORD)));
      expect(all.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200));
    }
  });

  it('locks the account, not the address: a neighbour behind the same town-hall counter still signs in', async () => {
    const counter = nextIp();
    const [a, b] = [await newAccount(), await newAccount()];
    for (let i = 0; i < 4; i++) expect((await signIn(a, `faux ${i}`, counter)).status).toBe(401);
    expect((await signIn(b, PASSWORD, counter)).status).toBe(200);
    // The account attacked from elsewhere is locked; the neighbour signs in from the same counter.
    for (let i = 0; i < 5; i++) await signIn(a, `faux ${i}`);
    expect((await signIn(a, PASSWORD, counter)).status).toBe(429);
    expect((await signIn(b, PASSWORD, counter)).status).toBe(200);
  });
});

const mailCount = async (email: string) => (await mailsTo(ctx, email)).length;

describe('per-account throttling of password-reset e-mails', () => {
  const ask = (email: string) =>
    ctx.app.inject({ method: 'POST', url: '/app/api/auth/request-password-reset', remoteAddress: nextIp(), payload: { email, redirectTo: '/connexion/nouveau-mot-de-passe' } });

  it('sends three links to one address, then spaces them out, the same for an unknown address', async () => {
    const email = await newAccount();
    const before = await mailCount(email);
    const known = [];
    const unknown = [];
    for (let i = 0; i < 6; i++) known.push(await ask(email));
    for (let i = 0; i < 6; i++) unknown.push(await ask(`inconnu${accounts}@example.org`));
    expect(known.map((r) => r.statusCode)).toEqual([200, 200, 200, 429, 429, 429]);
    expect(unknown.map((r) => [r.statusCode, r.body])).toEqual(known.map((r) => [r.statusCode, r.body]));
    expect(known[3]!.json().error).toEqual({ code: 'RATE_LIMITED', message: 'Trop de demandes de lien pour cette adresse. Réessayez dans 1 minute.' });
    expect(known[3]!.headers['retry-after']).toBe('60');
    expect((await mailCount(email)) - before).toBe(3);
    wait(61);
    expect((await ask(email)).statusCode).toBe(200);
    expect((await ask(email)).statusCode).toBe(429);
  });

  it('a new password chosen through the e-mailed link ends a sign-in lock', async () => {
    const email = await newAccount();
    for (let i = 0; i < 6; i++) await signIn(email, `faux ${i}`);
    expect((await signIn(email, PASSWORD)).status).toBe(429);
    expect((await ask(email)).statusCode).toBe(200);
    const token = /\/reset-password\/([\w-]+)/u.exec(await lienRecu(ctx, email, '/reset-password/'))![1]!;
    const reset = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', payload: { token, newPassword: 'une autre phrase bien a moi' } });
    expect(reset.statusCode).toBe(200);
    expect((await signIn(email, 'une autre phrase bien a moi')).status).toBe(200);
  });
});
