import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../src/domain/erreurs.js';
import { createAccount, createTestApp, type TestContext } from './helpers.js';

/**
 * Signing in from another site (login CSRF): another site's page must not sign a visitor's browser in to an
 * account of its choosing. No session cookie is sent, so the app's own origin hook (securite/origine.ts)
 * does not look: better-auth's check does, on in tests as in production (`advanced.disableOriginCheck: false`
 * in src/server/auth/index.ts), its refusal in French (traduction.ts).
 */

let ctx: TestContext;
const ORIGIN = 'http://quartier.test';
const PASSWORD = 'une phrase de passe assez longue';
const REFUS = 'Requête refusée : origine inconnue.';

beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
}

async function sessionCount(uid: string): Promise<number> {
  const rows = await ctx.app.deps.db.selectFrom('session').select('id').where('userId', '=', uid).execute();
  return rows.length;
}

describe('a sign-in sent from another site', () => {
  it('is refused with 403 in French, whatever the other origin says, and opens no session', async () => {
    const { email, uid } = await createAccount(ctx, 'habitant');
    const before = await sessionCount(uid);
    const foreign: [string, Record<string, string | undefined>, string][] = [
      ['Origin of another site', { origin: 'http://evil.example' }, 'INVALID_ORIGIN'],
      ['Origin of a look-alike host', { origin: 'http://quartier.test.evil.example' }, 'INVALID_ORIGIN'],
      ['Origin of another port', { origin: 'http://quartier.test:8080' }, 'INVALID_ORIGIN'],
      ['Origin: null', { origin: 'null' }, 'MISSING_OR_NULL_ORIGIN'],
      ['no Origin and a Referer of another site', { origin: undefined, referer: 'http://evil.example/page' }, 'INVALID_ORIGIN'],
    ];
    for (const [what, headers, code] of foreign) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', headers, payload: { email, password: PASSWORD } });
      expect(res.statusCode, what).toBe(403);
      expect(res.json(), what).toEqual({ error: { code, message: REFUS } });
      expect(setCookies(res).some((c) => /session_token=[^;]/u.test(c)), what).toBe(false);
    }
    expect(await sessionCount(uid)).toBe(before);
  });

  it('is refused as a form posted from another site (a cross-site navigation), in French', async () => {
    const { email, uid } = await createAccount(ctx, 'habitant');
    const before = await sessionCount(uid);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/sign-in/email',
      headers: {
        origin: undefined,
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
      },
      payload: new URLSearchParams({ email, password: PASSWORD }).toString(),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ error: { code: 'CROSS_SITE_NAVIGATION_LOGIN_BLOCKED', message: REFUS } });
    expect(await sessionCount(uid)).toBe(before);
  });

  it('goes through from the site’s own pages (Origin, or Referer when Origin is absent)', async () => {
    const { email, uid } = await createAccount(ctx, 'habitant');
    const before = await sessionCount(uid);
    for (const headers of [{ origin: ORIGIN }, { origin: undefined, referer: `${ORIGIN}/connexion` }]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', headers, payload: { email, password: PASSWORD } });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(await sessionCount(uid)).toBe(before + 2);
  });

  it('refuses an address to come back to on another site (no open redirect), in French', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/request-password-reset',
      headers: { origin: ORIGIN },
      payload: { email: 'personne@example.org', redirectTo: 'https://evil.example/nouveau-mot-de-passe' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: { code: 'INVALID_REDIRECT_URL', message: 'Requête refusée : l’adresse de retour n’appartient pas au site Quartier Vivant.' },
    });
  });
});

/**
 * Sign-up is the app's own route (/user/inscription; better-auth's /sign-up/email is closed): it applies the
 * same rule itself (features/compte/routes.ts), with the app's refusal.
 */
describe('a sign-up sent from another site', () => {
  it('is refused with 403 ORIGIN_REFUSED in French and creates no account', async () => {
    const email = `inscription.${Date.now()}@example.org`;
    const payload = { nom: 'Durand', prenom: 'Camille', birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email, password: PASSWORD };
    for (const headers of [{ origin: 'http://evil.example' }, { origin: 'null' }, { origin: undefined, referer: 'http://evil.example/page' }]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', headers, payload });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(res.json(), JSON.stringify(headers)).toEqual({ error: { code: 'ORIGIN_REFUSED', message: MESSAGES.origineRefusee } });
      expect(setCookies(res).some((c) => /session_token=[^;]/u.test(c))).toBe(false);
    }
    expect(await ctx.app.deps.db.selectFrom('user').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();
    // From the site itself (Origin, or Referer when Origin is absent), or from a client that sends neither, it goes through.
    const depuisLeSite = [{ origin: ORIGIN }, { origin: undefined, referer: `${ORIGIN}/connexion` }, { origin: undefined }];
    for (const [i, headers] of depuisLeSite.entries()) {
      const ok = await ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', headers, payload: { ...payload, email: `${i}.${email}` } });
      expect(ok.statusCode, ok.body).toBe(201);
    }
  });
});
