import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMON_PASSWORD_COUNT } from '../src/server/auth/index.js';
import { createTestApp, type TestContext } from './helpers.js';

let ctx: TestContext;
const ORIGIN = 'http://quartier.test';
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

let counter = 0;
function inscription(overrides: Record<string, unknown> = {}) {
  counter += 1;
  return {
    nom: 'martin',
    prenom: 'jean-pierre',
    gender: 'H',
    birthday: '1980-04-12',
    pays: 'France',
    ville: 'Aix-en-Provence',
    quartier: 'Jas de Bouffan',
    residence: 'Les Lauriers, bât. B',
    rue: 'Avenue Marcel-Pagnol',
    email: `habitant${counter}@example.org`,
    password: 'un jardin sous la pluie',
    ...overrides,
  };
}

function cookieOf(res: { headers: Record<string, unknown> }): string {
  const raw = res.headers['set-cookie'];
  const list: string[] = Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
  return list
    .map((c) => c.split(';')[0] ?? '')
    .filter((c) => !c.endsWith('='))
    .join('; ');
}

async function signUp(overrides: Record<string, unknown> = {}) {
  const body = inscription(overrides);
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: body });
  return { res, body, cookie: cookieOf(res) };
}

async function signIn(email: string, password: string) {
  return ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', headers: { origin: ORIGIN }, payload: { email, password } });
}

async function setRole(email: string, role: string) {
  await ctx.app.deps.db.updateTable('user').set({ userType: role }).where('email', '=', email).execute();
}

describe('sign-up', () => {
  it('creates the account with its profile, signs the user in, and e-mails a verification link', async () => {
    const { res, body, cookie } = await signUp();
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toMatchObject({
      nom: 'Martin',
      prenom: 'Jean-Pierre',
      gender: 'H',
      birthday: '1980-04-12',
      pays: 'France',
      ville: 'Aix-en-Provence',
      quartier: 'Jas de Bouffan',
      residence: 'Les Lauriers, bât. B',
      rue: 'Avenue Marcel-Pagnol',
      email: body.email,
      userType: 'habitant',
      emailVerified: false,
      pic: '/avatar-defaut.svg',
    });
    expect(cookie).toContain('qv.session_token=');
    const setCookie = String(res.headers['set-cookie']);
    expect(setCookie).toMatch(/HttpOnly/iu);
    expect(setCookie).toMatch(/SameSite=Lax/iu);

    const me = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.invitationLink).toBe(`${ORIGIN}/invitation/${data.uid}`);

    const account = await ctx.app.deps.db.selectFrom('user').selectAll().where('email', '=', String(body.email)).executeTakeFirstOrThrow();
    expect(account.quartierSlug).toBe('jas-de-bouffan');
    expect(account.villeSlug).toBe('aix-en-provence');

    await ctx.app.deps.mailer.idle();
    const mails = fs.readdirSync(path.join(ctx.dataDir, 'mail')).map((f) => fs.readFileSync(path.join(ctx.dataDir, 'mail', f), 'utf8'));
    expect(mails.some((m) => m.includes(`To: ${String(body.email)}`) && m.includes('confirmez votre adresse'))).toBe(true);
  });

  it('counts the user among the inhabitants of their quartier and ville', async () => {
    const { res } = await signUp();
    const uid = res.json().data.uid;
    const q = await ctx.app.inject({ method: 'GET', url: '/app/api/quartiers/jas-de-bouffan/habitants' });
    expect(q.json().data.habitants).toContain(uid);
    const v = await ctx.app.inject({ method: 'GET', url: '/app/api/villes/aix-en-provence/habitants' });
    expect(v.json().data.habitants).toContain(uid);
  });

  it('makes the new user and the inviter follow each other', async () => {
    const inviter = await signUp();
    const inviterUid = inviter.res.json().data.uid;
    const invited = await signUp({ inviterUid });
    const invitedUid = invited.res.json().data.uid;

    const mine = (await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: invited.cookie } })).json().data;
    expect(mine.followers.map((p: { uid: string }) => p.uid)).toEqual([inviterUid]);
    expect(mine.following.map((p: { uid: string }) => p.uid)).toEqual([inviterUid]);
    const theirs = (await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: inviter.cookie } })).json().data;
    expect(theirs.followers.map((p: { uid: string }) => p.uid)).toEqual([invitedUid]);
    expect(theirs.following.map((p: { uid: string }) => p.uid)).toEqual([invitedUid]);
    const rows = await ctx.app.deps.db.selectFrom('follows').selectAll().where('followerId', 'in', [inviterUid, invitedUid]).execute();
    expect(rows).toHaveLength(2);
  });

  it('ignores an unknown inviter', async () => {
    const { res, cookie } = await signUp({ inviterUid: 'personne' });
    expect(res.statusCode).toBe(201);
    const me = (await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } })).json().data;
    expect(me.followers).toEqual([]);
  });

  it('refuses an e-mail already used, with a clear message on the field', async () => {
    const first = await signUp();
    const again = await signUp({ email: String(first.body.email).toUpperCase() });
    expect(again.res.statusCode).toBe(409);
    expect(again.res.json().error.fields.email).toMatch(/^Un compte existe déjà avec cette adresse e-mail/u);
  });

  it('applies the password policy: 12 to 128 characters, not a common password, no composition rule', async () => {
    const short = await signUp({ password: 'court123' });
    expect(short.res.statusCode).toBe(400);
    expect(short.res.json().error.fields.password).toBe('Le mot de passe doit contenir au moins 12 caractères.');
    const long = await signUp({ password: 'x'.repeat(129) });
    expect(long.res.json().error.fields.password).toBe('Le mot de passe doit contenir au plus 128 caractères.');
    const common = await signUp({ password: 'password1234' });
    expect(common.res.statusCode).toBe(400);
    expect(common.res.json().error.fields.password).toMatch(/fait partie des plus utilisés/u);
    // Only lowercase letters and spaces: accepted (no composition rule).
    expect((await signUp({ password: 'les cigales chantent fort' })).res.statusCode).toBe(201);
    expect(COMMON_PASSWORD_COUNT).toBeGreaterThanOrEqual(10_000);
  });

  it('refuses a city, quartier or street outside the lists, and missing fields, in French', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/user/inscription',
      payload: inscription({ ville: 'Marseille', quartier: 'Panier', nom: '', birthday: '' }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.fields).toMatchObject({
      ville: 'La ville doit être Aix-en-Provence.',
      quartier: 'Le quartier doit être Jas de Bouffan.',
      nom: 'Le nom est obligatoire.',
    });
    const street = await signUp({ rue: 'Rue de Rivoli' });
    expect(street.res.statusCode).toBe(400);
    expect(street.res.json().error.fields.rue).toBe('Choisissez votre rue dans la liste.');
  });
});

describe('sign-in and sign-out', () => {
  it('signs in with a new session, refuses wrong credentials in French, and a cookie stops working after sign-out', async () => {
    const { body, cookie: firstCookie } = await signUp();
    const wrong = await signIn(String(body.email), 'pas le bon mot de passe');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.message).toBe('E-mail ou mot de passe incorrect');
    const unknown = await signIn('personne@example.org', 'pas le bon mot de passe');
    expect(unknown.json().error.message).toBe('E-mail ou mot de passe incorrect');

    const ok = await signIn(String(body.email), String(body.password));
    expect(ok.statusCode).toBe(200);
    const cookie = cookieOf(ok);
    expect(cookie).not.toBe(firstCookie);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } })).statusCode).toBe(200);

    const out = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-out', headers: { cookie, origin: ORIGIN }, payload: {} });
    expect(out.statusCode).toBe(200);
    const after = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.message).toBe('Connectez-vous pour continuer.');
  });
});

describe('profiles and roles', () => {
  it('gives the public profile to anyone, without e-mail, birthday, street or residence', async () => {
    const { res } = await signUp();
    const uid = res.json().data.uid;
    const pub = await ctx.app.inject({ method: 'GET', url: `/app/api/user/public/${uid}` });
    expect(pub.statusCode).toBe(200);
    expect(Object.keys(pub.json().data).sort()).toEqual(['emailVerified', 'gender', 'nom', 'pays', 'pic', 'prenom', 'quartier', 'uid', 'ville']);
    for (const secret of ['habitant', '1980-04-12', 'Marcel-Pagnol', 'Lauriers']) expect(pub.body).not.toContain(secret);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/user/public/inconnu' })).statusCode).toBe(404);
  });

  it('gives personal data to the user and admins only', async () => {
    const a = await signUp();
    const b = await signUp();
    const uidA = a.res.json().data.uid;
    expect((await ctx.app.inject({ method: 'GET', url: `/app/api/user/data/${uidA}` })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: `/app/api/user/data/${uidA}`, headers: { cookie: b.cookie } })).statusCode).toBe(403);
    const own = await ctx.app.inject({ method: 'GET', url: `/app/api/user/data/${uidA}`, headers: { cookie: a.cookie } });
    expect(own.json().data.email).toBe(a.body.email);
    await setRole(String(b.body.email), 'admin');
    expect((await ctx.app.inject({ method: 'GET', url: `/app/api/user/data/${uidA}`, headers: { cookie: b.cookie } })).statusCode).toBe(200);
  });

  it('saves nom and prenom for real', async () => {
    const { cookie } = await signUp();
    const res = await ctx.app.inject({ method: 'PATCH', url: '/app/api/user/me', headers: { cookie }, payload: { nom: 'de la fontaine', prenom: 'marie' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ nom: 'De La Fontaine', prenom: 'Marie' });
    const again = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
    expect(again.json().data.nom).toBe('De La Fontaine');
    const bad = await ctx.app.inject({ method: 'PATCH', url: '/app/api/user/me', headers: { cookie }, payload: { nom: '', prenom: 'x' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields.nom).toBe('Le nom est obligatoire.');
  });

  it('lets admins list users and change roles; others get 401/403', async () => {
    const admin = await signUp();
    const user = await signUp();
    const uid = user.res.json().data.uid;
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/admin/users' })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/admin/users', headers: { cookie: user.cookie } })).statusCode).toBe(403);
    await setRole(String(admin.body.email), 'admin');
    const list = await ctx.app.inject({ method: 'GET', url: `/app/api/admin/users?q=${encodeURIComponent(String(user.body.email))}`, headers: { cookie: admin.cookie } });
    expect(list.json().data.map((u: { uid: string }) => u.uid)).toEqual([uid]);

    const change = await ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: admin.cookie }, payload: { role: 'manager' } });
    expect(change.statusCode).toBe(200);
    const row = await ctx.app.deps.db.selectFrom('user').select('userType').where('id', '=', uid).executeTakeFirstOrThrow();
    expect(row.userType).toBe('manager');
    const bad = await ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: admin.cookie }, payload: { role: 'roi' } });
    expect(bad.statusCode).toBe(400);
    const byUser = await ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: user.cookie }, payload: { role: 'admin' } });
    expect(byUser.statusCode).toBe(403);
  });
});
