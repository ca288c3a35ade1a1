import { createEmailVerificationToken } from 'better-auth/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETOUR_CONFIRMATION_ADRESSE } from '../src/server/auth/index.js';
import { cookieOf, createTestApp, inscrire, lienRecu, mailsTo, type TestContext } from './helpers.js';

/**
 * The e-mailed link that confirms an address (issue 13 point 2): it lands on the sign-in screen's « Votre
 * adresse e-mail est confirmée » (/connexion?confirmation=adresse), signed in; a link that no longer works
 * lands there too, with better-auth's `&error=…`; a new link can be asked for, and always lands there.
 */
let ctx: TestContext;
const ORIGIN = 'http://quartier.test';
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** The last confirmation link mailed to `email`, as a path and query to inject. */
async function lien(email: string): Promise<URL> {
  return new URL(await lienRecu(ctx, email, '/verify-email'));
}

const ouvrir = (url: string, cookie?: string) => ctx.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

async function confirmee(email: string): Promise<boolean> {
  const row = await ctx.app.deps.db.selectFrom('user').select('emailVerified').where('email', '=', email).executeTakeFirstOrThrow();
  return Boolean(row.emailVerified);
}

const renvoi = (payload: Record<string, unknown>, cookie?: string) =>
  ctx.app.inject({ method: 'POST', url: '/app/api/auth/send-verification-email', headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) }, payload });

describe('the link mailed at sign-up', () => {
  it('lands on « adresse confirmée » and signs nobody in: a browser signed in to another account keeps it (no login CSRF)', async () => {
    const { email, cookie } = await inscrire(ctx);
    const link = await lien(email);
    expect(link.searchParams.get('callbackURL')).toBe(RETOUR_CONFIRMATION_ADRESSE);
    expect(RETOUR_CONFIRMATION_ADRESSE).toBe('/connexion?confirmation=adresse');

    // Opened in a browser signed in to someone else (a link another site gave): confirmed, and that session stays theirs.
    const autre = await inscrire(ctx);
    const opened = await ouvrir(link.pathname + link.search, autre.cookie);
    expect(opened.statusCode).toBe(302);
    expect(opened.headers.location).toBe('/connexion?confirmation=adresse');
    expect(await confirmee(email)).toBe(true);
    expect(cookieOf(opened)).toBe('');
    const lui = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: autre.cookie } });
    expect(lui.json().data.email).toBe(autre.email);
    // The browser that signed up sees its address confirmed.
    const me = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
    expect(me.json().data).toMatchObject({ email, emailVerified: true });

    // Opened again, signed out: the address stays confirmed, the page says so (no error), and no session is made.
    const again = await ouvrir(link.pathname + link.search);
    expect([again.statusCode, again.headers.location]).toEqual([302, '/connexion?confirmation=adresse']);
    expect(cookieOf(again)).toBe('');
  });

  it('lands there with error=TOKEN_EXPIRED once expired, INVALID_TOKEN when cut or made up, the address left unconfirmed', async () => {
    const { email } = await inscrire(ctx);
    const { secret } = await (await ctx.app.deps.auth.get()).$context;
    const user = await ctx.app.deps.db.selectFrom('user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    // The link as better-auth writes it, 24 hours and a minute later.
    const expire = await createEmailVerificationToken(secret, email, undefined, -60, { userId: user.id });
    const callback = encodeURIComponent(RETOUR_CONFIRMATION_ADRESSE);
    const expired = await ouvrir(`/app/api/auth/verify-email?token=${expire}&callbackURL=${callback}`);
    expect([expired.statusCode, expired.headers.location]).toEqual([302, '/connexion?confirmation=adresse&error=TOKEN_EXPIRED']);

    const link = await lien(email);
    const token = link.searchParams.get('token')!;
    const cut = await ouvrir(`/app/api/auth/verify-email?token=${token.slice(0, -5)}&callbackURL=${callback}`);
    expect([cut.statusCode, cut.headers.location]).toEqual([302, '/connexion?confirmation=adresse&error=INVALID_TOKEN']);
    expect(cookieOf(cut)).toBe('');
    expect(await confirmee(email)).toBe(false);
  });
});

describe('a new confirmation link', () => {
  it('goes to the signed-in account’s unconfirmed address, and lands on « adresse confirmée » whatever landing was asked for', async () => {
    const { email, cookie } = await inscrire(ctx, { prenom: 'Lucas' });
    const before = (await mailsTo(ctx, email)).length;
    const res = await renvoi({ email, callbackURL: 'https://evil.example/phishing' }, cookie);
    expect(res.statusCode).toBe(200);
    expect((await mailsTo(ctx, email)).length).toBe(before + 1);
    const link = await lien(email);
    expect(link.origin).toBe(ORIGIN);
    expect(link.searchParams.get('callbackURL')).toBe(RETOUR_CONFIRMATION_ADRESSE);
    expect((await mailsTo(ctx, email)).at(-1)).toContain('Bonjour Lucas,');
    const opened = await ouvrir(link.pathname + link.search);
    expect([opened.statusCode, opened.headers.location]).toEqual([302, '/connexion?confirmation=adresse']);
    expect(await confirmee(email)).toBe(true);

    // Confirmed: nothing more to send, said in French.
    const encore = await renvoi({ email }, cookie);
    expect(encore.statusCode).toBe(400);
    expect(encore.json().error).toEqual({ code: 'EMAIL_ALREADY_VERIFIED', message: 'Votre adresse e-mail est déjà confirmée : rien à faire de plus.' });
  });

  it('refuses, signed in, another address than the account’s, in French', async () => {
    const { cookie } = await inscrire(ctx);
    const res = await renvoi({ email: 'quelquun.dautre@example.org' }, cookie);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('EMAIL_MISMATCH');
    expect(res.json().error.message).toMatch(/^Cette adresse n’est pas celle de votre compte/u);
    expect(await mailsTo(ctx, 'quelquun.dautre@example.org')).toEqual([]);
  });

  it('answers the same signed out whether an unconfirmed account has the address or not, and mails only the account', async () => {
    const { email } = await inscrire(ctx);
    const before = (await mailsTo(ctx, email)).length;
    for (const address of [email, 'personne.ici@example.org']) {
      const res = await renvoi({ email: address });
      expect([res.statusCode, res.json()]).toEqual([200, { status: true }]);
    }
    expect((await mailsTo(ctx, email)).length).toBe(before + 1);
    expect((await lien(email)).searchParams.get('callbackURL')).toBe(RETOUR_CONFIRMATION_ADRESSE);
    expect(await mailsTo(ctx, 'personne.ici@example.org')).toEqual([]);

    const mauvaise = await renvoi({ email: 'pas-une-adresse' });
    expect(mauvaise.statusCode).toBe(400);
    expect(mauvaise.json().error).toEqual({ code: 'VALIDATION_ERROR', message: 'L’adresse e-mail n’est pas valide.', fields: { email: 'L’adresse e-mail n’est pas valide.' } });
  });

  it('is limited per address: three, then a wait, said in French (no mail flood on one address)', async () => {
    const { email } = await inscrire(ctx);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await renvoi({ email })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await renvoi({ email });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.message).toMatch(/^Trop de demandes de lien pour cette adresse\. Réessayez dans \d+ minutes?\.$/u);
  });
});
