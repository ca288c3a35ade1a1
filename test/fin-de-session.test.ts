import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echeancesSessionSchema } from '../src/domain/compte.js';
import { MESSAGES } from '../src/domain/erreurs.js';
import { createAccount, createTestApp, type TestContext } from './helpers.js';

/**
 * GET /user/session (docs/api.md « Accounts »): when the signed-in session ends, for the warning of the web
 * app (src/web/features/compte/FinDeSession.tsx), and « Rester connecté »: the call itself is activity. Time is
 * moved by backdating the session rows (as test/sessions.test.ts does), never by waiting.
 */

let ctx: TestContext;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
const ms = (value: string | Date | null | undefined) => new Date(value ?? Number.NaN).getTime();

/** Moves a session back in time: signed in `createdAgo`, activity recorded `activeAgo` (ms before now). */
async function backdate(uid: string, createdAgo: number, activeAgo: number) {
  await ctx.app.deps.db.updateTable('session').set({ createdAt: iso(createdAgo), lastActiveAt: iso(activeAgo) }).where('userId', '=', uid).execute();
}

async function row(uid: string) {
  return ctx.app.deps.db.selectFrom('session').select(['createdAt', 'lastActiveAt']).where('userId', '=', uid).executeTakeFirst();
}

const echeances = (cookie: string) => ctx.app.inject({ method: 'GET', url: '/app/api/user/session', headers: { cookie } });
const me = (cookie: string) => ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });

describe('GET /user/session', () => {
  it('gives a manager the ends of the session: 30 minutes after the activity it records, 12 hours after the sign-in', async () => {
    const manager = await createAccount(ctx, 'manager');
    await backdate(manager.uid, 2 * HOUR, 10 * MINUTE);
    const avant = Date.now();
    const res = await echeances(manager.cookie);
    const apres = Date.now();
    expect(res.statusCode, res.body).toBe(200);
    const data = echeancesSessionSchema.parse(res.json().data);
    const stored = (await row(manager.uid))!;
    // The call is activity: ten minutes after the last one, the time is written, and it is the one answered.
    expect(ms(data.derniereActivite)).toBe(ms(stored.lastActiveAt));
    expect(ms(data.derniereActivite)).toBeGreaterThanOrEqual(avant);
    expect(ms(data.derniereActivite)).toBeLessThanOrEqual(apres);
    expect(ms(data.finInactivite) - ms(data.derniereActivite)).toBe(30 * MINUTE);
    expect(ms(data.finAbsolue)).toBe(ms(stored.createdAt) + 12 * HOUR);
    expect(ms(data.maintenant)).toBeGreaterThanOrEqual(avant);
    expect(ms(data.maintenant)).toBeLessThanOrEqual(apres);
    expect(data.inactiviteMs).toBe(30 * MINUTE);
    expect(data.activiteEcriteToutesLesMs).toBe(MINUTE);
  });

  it('gives an admin the same limits, and a resident 30 days idle and 90 days in all', async () => {
    const admin = await createAccount(ctx, 'admin');
    const adminData = (await echeances(admin.cookie)).json().data;
    expect(ms(adminData.finInactivite) - ms(adminData.derniereActivite)).toBe(30 * MINUTE);
    expect(ms(adminData.finAbsolue)).toBe(ms((await row(admin.uid))!.createdAt) + 12 * HOUR);

    const resident = await createAccount(ctx, 'habitant');
    await backdate(resident.uid, 3 * DAY, 2 * DAY);
    const res = await echeances(resident.cookie);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(ms(data.finInactivite) - ms(data.derniereActivite)).toBe(30 * DAY);
    expect(ms(data.finAbsolue)).toBe(ms((await row(resident.uid))!.createdAt) + 90 * DAY);
    expect(data.inactiviteMs).toBe(30 * DAY);
  });

  it('« Rester connecté »: called 28 minutes after the last activity, it moves the idle end 30 minutes on, and the session outlives the old end', async () => {
    const stays = await createAccount(ctx, 'manager');
    const leaves = await createAccount(ctx, 'manager');
    for (const who of [stays, leaves]) await backdate(who.uid, HOUR, 28 * MINUTE);
    const ancienneFin = Date.now() + 2 * MINUTE;

    const res = await echeances(stays.cookie);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(ms(data.finInactivite)).toBeGreaterThanOrEqual(ancienneFin + 28 * MINUTE - 1000);
    expect(ms((await row(stays.uid))!.lastActiveAt)).toBe(ms(data.derniereActivite));
    // The absolute end does not move: an hour ago plus 12 hours.
    expect(ms(data.finAbsolue)).toBe(ms((await row(stays.uid))!.createdAt) + 12 * HOUR);

    // Three minutes later: 31 minutes after the activity before « Rester connecté », 3 after it.
    const stored = (await row(stays.uid))!;
    await ctx.app.deps.db
      .updateTable('session')
      .set({ createdAt: new Date(ms(stored.createdAt) - 3 * MINUTE).toISOString(), lastActiveAt: new Date(ms(stored.lastActiveAt) - 3 * MINUTE).toISOString() })
      .where('userId', '=', stays.uid)
      .execute();
    await backdate(leaves.uid, HOUR + 3 * MINUTE, 31 * MINUTE);
    expect((await me(stays.cookie)).statusCode).toBe(200);
    expect((await me(leaves.cookie)).statusCode).toBe(401);
  });

  it('within the minute after the recorded activity, answers that activity (not written again) and its end', async () => {
    const manager = await createAccount(ctx, 'manager');
    await backdate(manager.uid, HOUR, 30_000);
    const trenteSecondes = new Date((await row(manager.uid))!.lastActiveAt!).toISOString();
    const data = (await echeances(manager.cookie)).json().data;
    expect(data.derniereActivite).toBe(trenteSecondes);
    expect(ms(data.finInactivite)).toBe(ms(trenteSecondes) + 30 * MINUTE);
    expect(new Date((await row(manager.uid))!.lastActiveAt!).toISOString()).toBe(trenteSecondes);
  });

  it('answers 401 in French once the session has ended (and extends nothing), and to anyone signed out', async () => {
    const manager = await createAccount(ctx, 'manager');
    await backdate(manager.uid, HOUR, 31 * MINUTE);
    const ended = await echeances(manager.cookie);
    expect(ended.statusCode).toBe(401);
    expect(ended.json().error.code).toBe('UNAUTHENTICATED');
    expect(ended.json().error.message).toBe(MESSAGES.connexionRequise);
    expect(await row(manager.uid)).toBeUndefined();
    expect((await me(manager.cookie)).statusCode).toBe(401);

    const longue = await createAccount(ctx, 'manager');
    await backdate(longue.uid, 12 * HOUR + MINUTE, MINUTE);
    expect((await echeances(longue.cookie)).statusCode).toBe(401);

    const anonymous = await ctx.app.inject({ method: 'GET', url: '/app/api/user/session' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error).toEqual({ code: 'UNAUTHENTICATED', message: 'Connectez-vous pour continuer.' });
  });
});
