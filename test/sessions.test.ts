import { createHash, createHmac } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authSecret, creerSecret } from '../src/server/auth/secret.js';
import type { Config } from '../src/server/config.js';
import { withHashedSessionTokens } from '../src/server/auth/sessions-tokens.js';
import { migrator, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from './db.js';
import { createTestApp, lienRecu, type TestContext } from './helpers.js';

/**
 * Sessions (issue 9 point 8, docs/decisions/0011-session-tokens.md): idle and absolute limits by role,
 * applied by the app's guards and by better-auth's own endpoints alike; a password change or reset ends
 * the other sessions; `__Host-` cookie behind HTTPS; tokens stored hashed. Time is moved by backdating
 * the session rows, never by waiting.
 */

let ctx: TestContext;
const ORIGIN = 'http://quartier.test';
const PASSWORD = 'une phrase de passe assez longue';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

type Res = { headers: Record<string, unknown> };

function setCookies(res: Res): string[] {
  const raw = res.headers['set-cookie'];
  return Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
}

/** The session cookie a response sets (name=value), or '' when it sets none or expires it. */
function sessionCookie(res: Res): string {
  return (
    setCookies(res)
      .map((c) => c.split(';')[0] ?? '')
      .find((c) => c.includes('session_token=') && !c.endsWith('=')) ?? ''
  );
}

/** The clear token inside a session cookie (`name=token.signature`, URL-encoded). */
function tokenOf(cookie: string): string {
  const value = decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1));
  return value.slice(0, value.lastIndexOf('.'));
}

let counter = 0;
async function signUp(app = ctx.app) {
  counter += 1;
  const email = `session${counter}.${Date.now()}@example.org`;
  const res = await app.inject({
    method: 'POST',
    url: '/app/api/user/inscription',
    payload: { nom: 'Durand', prenom: `Camille${counter}`, birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email, password: PASSWORD },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { email, uid: res.json().data.uid as string, cookie: sessionCookie(res), res };
}

async function signIn(email: string, password = PASSWORD) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', headers: { origin: ORIGIN }, payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  return sessionCookie(res);
}

async function setRole(uid: string, role: string) {
  await ctx.app.deps.db.updateTable('user').set({ userType: role }).where('id', '=', uid).execute();
}

/** An account with one session, given the role after the sign-up (as the admin page does). */
async function account(role: 'habitant' | 'manager' | 'admin') {
  const a = await signUp();
  await setRole(a.uid, role);
  return a;
}

const me = (cookie: string) => ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
const getSession = (cookie: string) => ctx.app.inject({ method: 'GET', url: '/app/api/auth/get-session', headers: { cookie } });

async function sessionRows(uid: string) {
  return ctx.app.deps.db.selectFrom('session').select(['id', 'token', 'createdAt', 'lastActiveAt']).where('userId', '=', uid).execute();
}

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

/** Moves a session back in time: signed in `createdAgo`, last request `activeAgo` (ms before now). */
async function backdate(uid: string, createdAgo: number, activeAgo: number) {
  await ctx.app.deps.db.updateTable('session').set({ createdAt: iso(createdAgo), lastActiveAt: iso(activeAgo) }).where('userId', '=', uid).execute();
}

describe('managers and admins: 30 minutes idle, 12 hours in all', () => {
  it('signs out a manager idle for 31 minutes (the session row is deleted), not one idle for 29', async () => {
    const idle = await account('manager');
    await backdate(idle.uid, 40 * MINUTE, 31 * MINUTE);
    expect((await me(idle.cookie)).statusCode).toBe(401);
    expect(await sessionRows(idle.uid)).toHaveLength(0);

    const recent = await account('manager');
    await backdate(recent.uid, 40 * MINUTE, 29 * MINUTE);
    expect((await me(recent.cookie)).statusCode).toBe(200);
  });

  it('signs out an admin idle for 31 minutes', async () => {
    const admin = await account('admin');
    await backdate(admin.uid, HOUR, 31 * MINUTE);
    expect((await me(admin.cookie)).statusCode).toBe(401);
  });

  it('signs out a manager active every 10 minutes once 12 hours have passed since the sign-in', async () => {
    const manager = await account('manager');
    // Eleven hours of requests every ten minutes: each keeps the session.
    for (let createdAgo = 11 * HOUR; createdAgo > 10 * HOUR; createdAgo -= 10 * MINUTE) {
      await backdate(manager.uid, createdAgo, 10 * MINUTE);
      expect((await me(manager.cookie)).statusCode).toBe(200);
    }
    await backdate(manager.uid, 12 * HOUR + MINUTE, 5 * MINUTE);
    expect((await me(manager.cookie)).statusCode).toBe(401);
    expect(await sessionRows(manager.uid)).toHaveLength(0);
  });

  it("better-auth's /get-session agrees: an idle manager's session is null, deleted, and its cookie expired", async () => {
    const manager = await account('manager');
    await backdate(manager.uid, HOUR, 31 * MINUTE);
    const res = await getSession(manager.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBeNull();
    expect(setCookies(res).some((c) => /session_token=;/u.test(c) && /Max-Age=0/iu.test(c))).toBe(true);
    expect(await sessionRows(manager.uid)).toHaveLength(0);
  });

  it("better-auth's other endpoints refuse the ended session too (list-sessions, change-password answer 401)", async () => {
    const listSessions = (cookie: string) => ctx.app.inject({ method: 'GET', url: '/app/api/auth/list-sessions', headers: { cookie } });
    const manager = await account('manager');
    await backdate(manager.uid, 11 * HOUR, MINUTE);
    expect((await listSessions(manager.cookie)).statusCode).toBe(200);
    await backdate(manager.uid, 13 * HOUR, MINUTE);
    expect((await listSessions(manager.cookie)).statusCode).toBe(401);
    expect(await sessionRows(manager.uid)).toHaveLength(0);

    // A password change from an ended session is refused too (and changes nothing).
    const other = await account('manager');
    await backdate(other.uid, HOUR, 31 * MINUTE);
    const change = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/change-password',
      headers: { cookie: other.cookie, origin: ORIGIN },
      payload: { currentPassword: PASSWORD, newPassword: 'un autre jardin sous la neige' },
    });
    expect(change.statusCode).toBe(401);
    expect(await sessionRows(other.uid)).toHaveLength(0);
    expect(await signIn(other.email)).not.toBe('');
  });

  it('a resident made manager takes the shorter limits at the next request', async () => {
    const resident = await account('habitant');
    await backdate(resident.uid, 2 * HOUR, HOUR);
    expect((await me(resident.cookie)).statusCode).toBe(200);
    await backdate(resident.uid, 2 * HOUR, HOUR);
    await setRole(resident.uid, 'manager');
    expect((await me(resident.cookie)).statusCode).toBe(401);
  });
});

describe('residents: 30 days idle, 90 days in all', () => {
  it('keeps a resident idle for 29 days, signs out one idle for 31 days', async () => {
    const stays = await account('habitant');
    await backdate(stays.uid, 40 * DAY, 29 * DAY);
    expect((await me(stays.cookie)).statusCode).toBe(200);

    const out = await account('habitant');
    await backdate(out.uid, 40 * DAY, 31 * DAY);
    expect((await me(out.cookie)).statusCode).toBe(401);
    expect(await sessionRows(out.uid)).toHaveLength(0);
  });

  it('signs out a resident 91 days after the sign-in even if active a minute ago', async () => {
    const resident = await account('habitant');
    await backdate(resident.uid, 89 * DAY, MINUTE);
    expect((await me(resident.cookie)).statusCode).toBe(200);
    await backdate(resident.uid, 91 * DAY, MINUTE);
    expect((await me(resident.cookie)).statusCode).toBe(401);
    expect((await getSession(resident.cookie)).json()).toBeNull();
  });
});

describe('activity time', () => {
  it('is written at most once a minute per session, not on every request', async () => {
    const manager = await account('manager');
    await backdate(manager.uid, HOUR, 5 * MINUTE);
    expect((await me(manager.cookie)).statusCode).toBe(200);
    const [written] = await sessionRows(manager.uid);
    expect(Date.now() - new Date(written!.lastActiveAt!).getTime()).toBeLessThan(MINUTE);

    // Thirty seconds later: no write (the stored time stays what it was).
    const thirtySecondsAgo = iso(30_000);
    await ctx.app.deps.db.updateTable('session').set({ lastActiveAt: thirtySecondsAgo }).where('userId', '=', manager.uid).execute();
    expect((await me(manager.cookie)).statusCode).toBe(200);
    const [kept] = await sessionRows(manager.uid);
    expect(new Date(kept!.lastActiveAt!).toISOString()).toBe(thirtySecondsAgo);
  });
});

describe('password change and reset', () => {
  it('a password change ends the other sessions even with revokeOtherSessions: false, and keeps the browser that made it signed in', async () => {
    const a = await signUp();
    const other = await signIn(a.email);
    expect((await me(other)).statusCode).toBe(200);

    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/change-password',
      headers: { cookie: a.cookie, origin: ORIGIN },
      payload: { currentPassword: PASSWORD, newPassword: 'un autre jardin sous la neige', revokeOtherSessions: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await me(other)).statusCode).toBe(401);
    const current = sessionCookie(res);
    expect(current).not.toBe('');
    expect((await me(current)).statusCode).toBe(200);
    expect(await sessionRows(a.uid)).toHaveLength(1);
  });

  it('a password reset ends every session of the account', async () => {
    const a = await signUp();
    const other = await signIn(a.email);
    const ask = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/request-password-reset',
      headers: { origin: ORIGIN },
      payload: { email: a.email, redirectTo: '/connexion/nouveau-mot-de-passe' },
    });
    expect(ask.statusCode).toBe(200);
    const token = new URL(await lastLinkTo(a.email, '/reset-password/')).pathname.split('/').pop()!;
    const reset = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', headers: { origin: ORIGIN }, payload: { token, newPassword: 'un autre jardin au soleil' } });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await me(a.cookie)).statusCode).toBe(401);
    expect((await me(other)).statusCode).toBe(401);
    expect(await sessionRows(a.uid)).toHaveLength(0);
  });
});

describe('session tokens are stored hashed', () => {
  it('the session.token column never holds the cookie token, only its SHA-256', async () => {
    const a = await signUp();
    const second = await signIn(a.email);
    const tokens = [tokenOf(a.cookie), tokenOf(second)];
    const stored = (await sessionRows(a.uid)).map((r) => r.token).sort();
    expect(stored).toHaveLength(2);
    for (const token of tokens) expect(stored).not.toContain(token);
    expect(stored).toEqual(tokens.map((t) => createHash('sha256').update(t).digest('hex')).sort());
  });

  it('a row copied from the database is no cookie, even signed with the secret of DATA_DIR', async () => {
    const a = await signUp();
    const [row] = await sessionRows(a.uid);
    const plain = await me(`qv.session_token=${row!.token}`);
    expect(plain.statusCode).toBe(401);
    // An attacker who copied DATA_DIR has auth-secret too: a correctly signed cookie of the stored value.
    const secret = authSecret(ctx.config);
    const signed = encodeURIComponent(`${row!.token}.${createHmac('sha256', secret).update(row!.token).digest('base64')}`);
    // The signature is right: the same recipe signs the real token into the real cookie.
    const real = tokenOf(a.cookie);
    expect(a.cookie).toBe(`qv.session_token=${encodeURIComponent(`${real}.${createHmac('sha256', secret).update(real).digest('base64')}`)}`);
    expect((await me(`qv.session_token=${signed}`)).statusCode).toBe(401);
    expect((await getSession(`qv.session_token=${signed}`)).json()).toBeNull();
    // The real cookie still works.
    expect((await me(a.cookie)).statusCode).toBe(200);
  });

  it('every better-auth path on sessions still works: sign-out, list, revoke one, revoke others, revoke all', async () => {
    const a = await signUp();
    const b = await signIn(a.email);
    const c = await signIn(a.email);
    const d = await signIn(a.email);
    expect(await sessionRows(a.uid)).toHaveLength(4);

    // get-session answers the clear token better-auth handed out, never the stored hash.
    const got = await getSession(a.cookie);
    expect(got.json().session.token).toBe(tokenOf(a.cookie));

    const listed = await ctx.app.inject({ method: 'GET', url: '/app/api/auth/list-sessions', headers: { cookie: a.cookie } });
    expect(listed.statusCode).toBe(200);
    const list = listed.json() as { token: string }[];
    expect(list).toHaveLength(4);
    const stored = (await sessionRows(a.uid)).map((r) => r.token);
    for (const s of list) expect(stored).not.toContain(s.token);

    // Revoke one listed session (d): the handle of a session this request did not open works.
    const dHash = createHash('sha256').update(tokenOf(d)).digest('hex');
    const dListed = list.find((s) => s.token === tokenOf(d) || s.token.includes(dHash));
    expect(dListed).toBeDefined();
    const revoke = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/revoke-session', headers: { cookie: a.cookie, origin: ORIGIN }, payload: { token: dListed!.token } });
    expect(revoke.statusCode, revoke.body).toBe(200);
    expect((await me(d)).statusCode).toBe(401);
    expect((await me(a.cookie)).statusCode).toBe(200);

    // Sign-out ends that session only.
    const out = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-out', headers: { cookie: c, origin: ORIGIN }, payload: {} });
    expect(out.statusCode).toBe(200);
    expect((await me(c)).statusCode).toBe(401);
    expect(await sessionRows(a.uid)).toHaveLength(2);

    // Revoke the others: b ends, a stays.
    const others = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/revoke-other-sessions', headers: { cookie: a.cookie, origin: ORIGIN }, payload: {} });
    expect(others.statusCode, others.body).toBe(200);
    expect((await me(b)).statusCode).toBe(401);
    expect((await me(a.cookie)).statusCode).toBe(200);

    // Revoke all: a ends.
    const all = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/revoke-sessions', headers: { cookie: a.cookie, origin: ORIGIN }, payload: {} });
    expect(all.statusCode, all.body).toBe(200);
    expect((await me(a.cookie)).statusCode).toBe(401);
    expect(await sessionRows(a.uid)).toHaveLength(0);
  });
  it('a stored token better-auth did not just hand over comes back as a handle of this process, never the hash', async () => {
    const a = await signUp();
    const [row] = await sessionRows(a.uid);
    // A fresh plugin has seen no clear token: what it reads back is a handle, usable by this plugin only.
    const db = withHashedSessionTokens(ctx.app.deps.db);
    const read = await db.selectFrom('session').select(['id', 'token']).where('userId', '=', a.uid).executeTakeFirstOrThrow();
    expect(read.token).not.toBe(row!.token);
    expect(read.token).not.toBe(tokenOf(a.cookie));
    expect(read.token.startsWith(`#${row!.token}.`)).toBe(true);
    expect((await db.selectFrom('session').select('id').where('token', '=', read.token).execute()).map((r) => r.id)).toEqual([row!.id]);
    // A handle made up, or made by another process, finds nothing; the stored hash itself finds nothing.
    const other = withHashedSessionTokens(ctx.app.deps.db);
    expect(await other.selectFrom('session').select('id').where('token', '=', read.token).execute()).toEqual([]);
    expect(await db.selectFrom('session').select('id').where('token', '=', `#${row!.token}.AAAA`).execute()).toEqual([]);
    expect(await db.selectFrom('session').select('id').where('token', '=', row!.token).execute()).toEqual([]);
    // The clear token finds it.
    expect((await db.selectFrom('session').select('id').where('token', '=', tokenOf(a.cookie)).execute()).map((r) => r.id)).toEqual([row!.id]);
  });
});

describe('migration 0008', () => {
  it('hashes the tokens already stored, so that the sessions open at the upgrade stay open', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-sessions-migration-'));
    const database = await freshDatabaseUrl();
    const { db } = openDatabase({ databaseUrl: database.url, dataDir });
    try {
      const names = (await migrator(db).getMigrations()).map((m) => m.name).sort();
      const before = names[names.indexOf('0008_session_hardening') - 1]!;
      expect((await migrator(db).migrateTo(before)).error).toBeUndefined();
      const clear = 'AbCdEfGhIjKlMnOpQrStUvWxYz012345';
      const at = new Date(Date.now() - 3 * DAY).toISOString();
      await db.insertInto('user').values({ id: 'u1', name: 'Ancien', email: 'ancien@example.org' } as never).execute();
      await db.insertInto('session').values({ id: 's1', token: clear, userId: 'u1', expiresAt: new Date(Date.now() + DAY).toISOString(), createdAt: at, updatedAt: at } as never).execute();
      expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
      const row = await db.selectFrom('session').selectAll().where('id', '=', 's1').executeTakeFirstOrThrow();
      expect(row.token).toBe(createHash('sha256').update(clear).digest('hex'));
      expect(new Date(row.lastActiveAt!).toISOString()).toBe(at);
      const found = await withHashedSessionTokens(db).selectFrom('session').select(['id', 'token']).where('token', '=', clear).execute();
      expect(found).toEqual([{ id: 's1', token: clear }]);
    } finally {
      await db.destroy();
      await database.drop();
      await fsp.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('behind HTTPS', () => {
  it('the session cookie is __Host- prefixed: Secure, Path=/, no Domain; and it is read back', async () => {
    const https = await createTestApp({ PUBLIC_URL: 'https://quartier.test' });
    try {
      const a = await signUp(https.app);
      const header = setCookies(a.res).find((c) => c.includes('session_token='));
      expect(header).toBeDefined();
      expect(header!.startsWith('__Host-qv.session_token=')).toBe(true);
      const attributes = header!.split(';').map((p) => p.trim().toLowerCase());
      expect(attributes).toContain('secure');
      expect(attributes).toContain('path=/');
      expect(attributes.some((p) => p.startsWith('domain='))).toBe(false);
      const cookie = header!.split(';')[0]!;
      expect((await https.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } })).statusCode).toBe(200);
      // Every cookie better-auth sets there is Secure.
      const signIn = await https.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', headers: { origin: 'https://quartier.test' }, payload: { email: a.email, password: PASSWORD } });
      expect(signIn.statusCode).toBe(200);
      for (const c of setCookies(signIn)) expect(c.toLowerCase()).toContain('; secure');
    } finally {
      await https.close();
    }
  });

  it('over http (localhost, tests) the name stays qv.session_token', async () => {
    const a = await signUp();
    expect(a.cookie.startsWith('qv.session_token=')).toBe(true);
  });
});

const lastLinkTo = (email: string, pathPart: string) => lienRecu(ctx, email, pathPart);

describe('the generated secret (no AUTH_SECRET)', () => {
  it('is the first instance’s for an instance that finds it written meanwhile, whole, and leaves no temp file', async () => {
    const dataDir = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-secret-'));
    const file = path.join(dataDir, 'auth-secret');
    // Two instances starting at once: both found no file; the first writes it, the second comes next.
    const premier = creerSecret(file);
    const second = creerSecret(file);
    expect(second).toBe(premier);
    expect(premier.length).toBeGreaterThanOrEqual(64);
    expect(authSecret({ dataDir } as Config)).toBe(premier);
    expect(await fsp.readdir(dataDir)).toEqual(['auth-secret']);
    expect((await fsp.stat(file)).mode & 0o777).toBe(0o600);
    await fsp.rm(dataDir, { recursive: true, force: true });
  });
});
