import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, inscrire, lienRecu, type TestContext } from './helpers.js';

/**
 * better-auth's own profile writers are closed: names and the picture change only through PATCH /user/me
 * and POST /user/me/pic (French validation, the picture's path kept in its owner's folder).
 */
let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

const userRow = (email: string) => ctx.app.deps.db.selectFrom('user').selectAll().where('email', '=', email).executeTakeFirstOrThrow();

describe('/auth/update-user and /auth/update-session', () => {
  it('refuses to set the picture path, the names or the display name, and leaves the row as it was', async () => {
    const victim = await inscrire(ctx);
    const attacker = await inscrire(ctx);
    const before = await userRow(attacker.email);
    const html = `<img src=x onerror=alert(1)>${'<b>x</b>'.repeat(1750)}`;
    expect(html.length).toBeGreaterThanOrEqual(14_000);
    for (const payload of [
      { image: `/x?v=../${victim.uid}/0123456789abcdef` },
      { nom: html },
      { prenom: html, name: html },
      { name: 'Quelqu’un d’autre' },
      { userType: 'admin' },
    ]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/update-user', headers: { cookie: attacker.cookie }, payload });
      expect([Object.keys(payload).join(), res.statusCode >= 400 && res.statusCode < 500]).toEqual([Object.keys(payload).join(), true]);
      expect(res.json().error.message).toMatch(/[a-zé]/u);
    }
    const session = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/update-session', headers: { cookie: attacker.cookie }, payload: { userId: victim.uid } });
    expect(session.statusCode).toBeGreaterThanOrEqual(400);
    expect(session.statusCode).toBeLessThan(500);
    expect(await userRow(attacker.email)).toEqual(before);
  });
});

describe('/auth/change-email', () => {
  it('changes nothing until the link sent to the new address is opened, which confirms it (even for an unconfirmed account)', async () => {
    const { email, cookie } = await inscrire(ctx);
    const newEmail = `autre.${email}`;
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/change-email', headers: { cookie }, payload: { newEmail, callbackURL: '/profile' } });
    expect(res.statusCode).toBe(200);
    const row = await userRow(email);
    expect([row.email, Boolean(row.emailVerified)]).toEqual([email, false]);

    const link = new URL(await lienRecu(ctx, newEmail, 'verify-email'));
    // The link lands on the screen that says the change is made, or why not: the server's choice, not the caller's.
    expect(link.searchParams.get('callbackURL')).toBe('/connexion?confirmation=changement');
    const abime = new URL(link);
    abime.searchParams.set('token', `${link.searchParams.get('token')!.slice(0, -4)}abcd`);
    const refus = await ctx.app.inject({ method: 'GET', url: abime.pathname + abime.search, headers: { cookie } });
    expect([refus.statusCode, refus.headers.location]).toEqual([302, '/connexion?confirmation=changement&error=INVALID_TOKEN']);
    await ctx.app.inject({ method: 'GET', url: link.pathname + link.search, headers: { cookie } });
    const after = await ctx.app.deps.db.selectFrom('user').select(['email', 'emailVerified']).where('id', '=', row.id).executeTakeFirstOrThrow();
    expect([after.email, Boolean(after.emailVerified)]).toEqual([newEmail, true]);
    const me = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
    expect(me.json().data).toMatchObject({ email: newEmail, emailVerified: true });
  });

  it('says the address is taken when another account took it after the link was sent, and changes nothing', async () => {
    const { email, cookie } = await inscrire(ctx);
    const newEmail = `prise.${email}`;
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/auth/change-email', headers: { cookie }, payload: { newEmail, callbackURL: '/profile' } })).statusCode).toBe(200);
    const link = new URL(await lienRecu(ctx, newEmail, 'verify-email'));
    // Someone signs up with that address before the link is opened.
    await inscrire(ctx, { email: newEmail });
    const ouvert = await ctx.app.inject({ method: 'GET', url: link.pathname + link.search, headers: { cookie } });
    expect([ouvert.statusCode, ouvert.headers.location]).toEqual([302, '/connexion?confirmation=changement&error=EMAIL_TAKEN']);
    expect((await userRow(email)).email).toBe(email);
  });

  it('sends at most three links to one new address, then answers 429 in French (no mail flood on someone else’s address)', async () => {
    const { cookie } = await inscrire(ctx);
    const cible = `cible.${Date.now()}@example.org`;
    const statuts = [];
    for (let i = 0; i < 4; i++) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/change-email', headers: { cookie }, payload: { newEmail: cible, callbackURL: '/profile' } });
      statuts.push(res.statusCode);
      if (res.statusCode === 429) expect(res.json().error.message).toMatch(/^Trop de demandes de lien pour cette adresse/u);
    }
    expect(statuts).toEqual([200, 200, 200, 429]);
    const envois = await ctx.app.deps.db.selectFrom('mailOutbox').select('id').where('recipient', '=', cible).execute();
    expect(envois).toHaveLength(3);
  });
});
