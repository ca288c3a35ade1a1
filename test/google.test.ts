import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestContext } from './helpers.js';
import { startOidcProvider } from './oidc.js';

// A real OpenID provider (panva's oidc-provider) on loopback stands in for Google: the whole
// authorization-code flow with PKCE runs, nothing of the auth code is stubbed.
const ORIGIN = 'http://quartier.test';
let provider: Awaited<ReturnType<typeof startOidcProvider>>;
let issuer: string;
let ctx: TestContext;

beforeAll(async () => {
  provider = await startOidcProvider({
    clientId: 'quartier-vivant',
    clientSecret: 'un-secret-de-test',
    redirectUri: `${ORIGIN}/app/api/auth/callback/google`,
    name: 'Dupont Marie Claire',
    givenName: 'Marie',
    familyName: 'Dupont',
  });
  issuer = provider.issuer;
  ctx = await createTestApp({
    GOOGLE_CLIENT_ID: 'quartier-vivant',
    GOOGLE_CLIENT_SECRET: 'un-secret-de-test',
    GOOGLE_DISCOVERY_URL: `${issuer}/.well-known/openid-configuration`,
  });
});

afterAll(async () => {
  await ctx.close();
  await provider.close();
});

/** A tiny cookie jar for the provider's own session cookies. */
class Jar {
  private cookies = new Map<string, string>();
  store(response: Response) {
    for (const c of response.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [name, ...value] = pair!.split('=');
      this.cookies.set(name!, value.join('='));
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** Follows the provider's redirects until one leaves it (towards the app's callback). */
async function followProvider(url: string, jar: Jar, init: RequestInit = {}): Promise<string> {
  let next = url;
  let options = init;
  for (let i = 0; i < 10; i++) {
    const response = await fetch(next, { ...options, redirect: 'manual', headers: { ...(options.headers ?? {}), cookie: jar.header() } });
    jar.store(response);
    const location = response.headers.get('location');
    if (!location) {
      // An interaction page (login, then consent): submit its form as a person would.
      const html = await response.text();
      const action = /action="([^"]+)"/u.exec(html)?.[1];
      if (!action) throw new Error(`provider page without form: ${html.slice(0, 200)}`);
      const prompt = /name="prompt" value="(\w+)"/u.exec(html)?.[1];
      const body = prompt === 'login' ? 'prompt=login&login=google-user-1&password=x' : 'prompt=consent';
      next = new URL(action, issuer).toString();
      options = { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      continue;
    }
    const target = new URL(location, next);
    if (target.origin !== issuer) return target.toString();
    next = target.toString();
    options = {};
  }
  throw new Error('too many redirects at the provider');
}

it('tells the web app that Google sign-in is configured', async () => {
  const res = await ctx.app.inject({ method: 'GET', url: '/app/api/parametres' });
  expect(res.json().data.google).toBe(true);
});

it('signs in with Google through OpenID Connect, creating the account with nom and prenom from the display name', async () => {
  // Arrived through a neighbour's invitation link.
  const inviter = await ctx.app.inject({
    method: 'POST',
    url: '/app/api/user/inscription',
    payload: { nom: 'Voisin', prenom: 'Paul', birthday: '1970-01-01', residence: 'R', rue: 'Avenue Marcel-Pagnol', email: 'paul@example.org', password: 'une phrase de passe longue' },
  });
  const inviterUid = inviter.json().data.uid as string;
  const start = await ctx.app.inject({
    method: 'POST',
    url: '/app/api/auth/sign-in/social',
    headers: { origin: ORIGIN },
    payload: { provider: 'google', callbackURL: '/logement', errorCallbackURL: '/connexion', additionalData: { inviterUid } },
  });
  expect(start.statusCode).toBe(200);
  const authorize = new URL(start.json().url);
  expect(authorize.origin).toBe(issuer);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  const stateCookie = String(start.headers['set-cookie'])
    .split(/,(?=\s*\w)/u)
    .map((c) => c.split(';')[0]!.trim())
    .join('; ');

  const callback = new URL(await followProvider(authorize.toString(), new Jar()));
  expect(callback.pathname).toBe('/app/api/auth/callback/google');
  expect(callback.searchParams.get('code')).toBeTruthy();

  const done = await ctx.app.inject({ method: 'GET', url: callback.pathname + callback.search, headers: { cookie: stateCookie } });
  expect(done.statusCode).toBe(302);
  expect(done.headers.location).toBe('/logement');
  const session = ([] as string[])
    .concat(done.headers['set-cookie'] as string[] | string)
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith('qv.session_token='));
  expect(session).toBeDefined();

  const me = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: session! } });
  expect(me.statusCode).toBe(200);
  // docs/produit.md « Comptes »: the display name's first word goes to nom, the second to prenom.
  expect(me.json().data).toMatchObject({
    email: 'google-user-1@example.org',
    nom: 'Dupont',
    prenom: 'Marie',
    userType: 'habitant',
    quartier: 'Jas de Bouffan',
    ville: 'Aix-en-Provence',
  });
  expect(me.json().data.followers.map((p: { uid: string }) => p.uid)).toEqual([inviterUid]);
  expect(me.json().data.following.map((p: { uid: string }) => p.uid)).toEqual([inviterUid]);
  const accounts = await ctx.app.deps.db.selectFrom('account').select('providerId').where('userId', '=', me.json().data.uid).execute();
  expect(accounts.map((a) => a.providerId)).toEqual(['google']);
});
