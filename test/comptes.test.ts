import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMON_PASSWORD_COUNT } from '../src/server/auth/index.js';
import { createTestApp, multipart, SAMPLES, type TestContext } from './helpers.js';

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

describe('ownership of housing requests', () => {
  it('gives the owner, managers and admins the full view without the private link; others the status', async () => {
    const owner = await signUp();
    const other = await signUp();
    const manager = await signUp();
    await setRole(String(manager.body.email), 'manager');
    const created = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/logement',
      headers: { cookie: owner.cookie },
      payload: { numeroUnique: '013owner00001', prenom: 'Jean', email: 'jean@example.org', motivations: 'x', numeroDeTelephone: '0611223344' },
    });
    expect(created.statusCode).toBe(201);
    const row = await ctx.app.deps.db.selectFrom('housingRequests').select('ownerUserId').where('numeroUnique', '=', '013owner00001').executeTakeFirstOrThrow();
    expect(row.ownerUserId).toBe(owner.res.json().data.uid);

    const view = (cookie?: string) => ctx.app.inject({ method: 'GET', url: '/app/api/logement/013owner00001', headers: cookie ? { cookie } : {} });
    expect((await view(owner.cookie)).json().data).toMatchObject({ acces: 'complet', numeroDeTelephone: '0611223344' });
    expect((await view(manager.cookie)).json().data.acces).toBe('complet');
    expect((await view(other.cookie)).json().data.acces).toBe('statut');
    expect((await view()).json().data.acces).toBe('statut');

    const mine = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/mine', headers: { cookie: owner.cookie } });
    expect(mine.json().data.map((d: { numeroUnique: string }) => d.numeroUnique)).toEqual(['013owner00001']);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/mine', headers: { cookie: other.cookie } })).json().data).toEqual([]);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/mine' })).statusCode).toBe(401);
  });

  it('leaves a request submitted while signed out without owner', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: { numeroUnique: '013anon000001', prenom: 'A', email: 'a@example.org', motivations: 'x' } });
    expect(res.statusCode).toBe(201);
    const row = await ctx.app.deps.db.selectFrom('housingRequests').select('ownerUserId').where('numeroUnique', '=', '013anon000001').executeTakeFirstOrThrow();
    expect(row.ownerUserId).toBeNull();
  });
});

describe('npm run user -- role', () => {
  it('sets a role from the command line, and says why when it cannot', async () => {
    const { run } = await import('../src/server/cli/user.js');
    const { body } = await signUp();
    const env = { DATA_DIR: ctx.dataDir, DATABASE_URL: ctx.config.databaseUrl };
    expect(await run(['role', String(body.email).toUpperCase(), 'admin'], env)).toEqual({ code: 0, out: `${String(body.email)} a maintenant le rôle admin.` });
    const row = await ctx.app.deps.db.selectFrom('user').select('userType').where('email', '=', String(body.email)).executeTakeFirstOrThrow();
    expect(row.userType).toBe('admin');
    expect((await run(['role', 'personne@example.org', 'manager'], env)).code).toBe(1);
    expect((await run(['role', String(body.email), 'roi'], env)).out).toMatch(/^Rôle inconnu « roi »/u);
    expect((await run([], env)).code).toBe(2);
  });
});

/** The last link e-mailed to an address whose path contains `pathPart` (quoted-printable unfolded). */
async function lastLinkTo(email: string, pathPart = '/app/api/auth/'): Promise<string> {
  await ctx.app.deps.mailer.idle();
  const dir = path.join(ctx.dataDir, 'mail');
  const links = fs
    .readdirSync(dir)
    .sort()
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/gu, '').replace(/=3D/gu, '='))
    .filter((m) => m.includes(`To: ${email}`))
    .flatMap((m) => m.match(/https?:\/\/\S+/gu) ?? [])
    .filter((l) => l.includes(pathPart));
  const link = links.at(-1);
  if (!link) throw new Error(`no link mailed to ${email}`);
  return link;
}

describe('e-mail verification, password reset, e-mail change', () => {
  it('verifies the address through the e-mailed link', async () => {
    const { body } = await signUp();
    const link = new URL(await lastLinkTo(String(body.email), '/verify-email'));
    expect(link.pathname).toBe('/app/api/auth/verify-email');
    const res = await ctx.app.inject({ method: 'GET', url: link.pathname + link.search });
    expect(res.statusCode).toBe(302);
    const row = await ctx.app.deps.db.selectFrom('user').select('emailVerified').where('email', '=', String(body.email)).executeTakeFirstOrThrow();
    expect(Boolean(row.emailVerified)).toBe(true);
  });

  it('resets a forgotten password by e-mail, with the same policy', async () => {
    const { body } = await signUp();
    const ask = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/request-password-reset',
      headers: { origin: ORIGIN },
      payload: { email: body.email, redirectTo: '/connexion/nouveau-mot-de-passe' },
    });
    expect(ask.statusCode).toBe(200);
    const link = new URL(await lastLinkTo(String(body.email), '/reset-password/'));
    const token = link.pathname.split('/').pop()!;
    const common = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', headers: { origin: ORIGIN }, payload: { token, newPassword: 'password1234' } });
    expect(common.statusCode).toBe(400);
    expect(common.json().error.message).toMatch(/fait partie des plus utilisés/u);
    const ok = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', headers: { origin: ORIGIN }, payload: { token, newPassword: 'un autre jardin au soleil' } });
    expect(ok.statusCode).toBe(200);
    expect((await signIn(String(body.email), String(body.password))).statusCode).toBe(401);
    expect((await signIn(String(body.email), 'un autre jardin au soleil')).statusCode).toBe(200);
  });

  it('changes the e-mail only once the new address is verified', async () => {
    const { body, cookie } = await signUp();
    const newEmail = `nouveau.${String(body.email)}`;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/auth/change-email',
      headers: { cookie, origin: ORIGIN },
      payload: { newEmail, callbackURL: '/profile' },
    });
    expect(res.statusCode).toBe(200);
    const before = await ctx.app.deps.db.selectFrom('user').select('email').where('email', '=', String(body.email)).executeTakeFirst();
    expect(before?.email).toBe(body.email);
    const link = new URL(await lastLinkTo(newEmail, '/verify-email'));
    await ctx.app.inject({ method: 'GET', url: link.pathname + link.search });
    const after = await ctx.app.deps.db.selectFrom('user').select(['email', 'emailVerified']).where('email', '=', newEmail).executeTakeFirst();
    expect(after?.email).toBe(newEmail);
  });
});

describe('profile picture', () => {
  it('checks the picture on content, resizes it to 256 px and serves it', async () => {
    const { cookie, res } = await signUp();
    const uid = res.json().data.uid;
    const { default: sharp } = await import('sharp');
    const photo = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3366cc' } }).jpeg().toBuffer();
    const form = await multipart([{ field: 'pic', name: 'moi.jpg', content: photo }]);
    const up = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...form.headers, cookie }, payload: form.payload });
    expect(up.statusCode).toBe(201);
    const pic = up.json().data.pic as string;
    expect(pic).toMatch(new RegExp(`^/app/api/user/pic/${uid}\\?v=`, 'u'));
    const served = await ctx.app.inject({ method: 'GET', url: pic });
    expect(served.headers['content-type']).toBe('image/webp');
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([256, 256, 'webp']);
    expect((await ctx.app.inject({ method: 'GET', url: `/app/api/user/public/${uid}` })).json().data.pic).toBe(pic);

    const exe = await multipart([{ field: 'pic', name: 'moi.png', content: SAMPLES.exe }]);
    const bad = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...exe.headers, cookie }, payload: exe.payload });
    expect(bad.statusCode).toBe(415);
    const anonymous = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: form.headers, payload: form.payload });
    expect(anonymous.statusCode).toBe(401);
  });

  it('sends users without a picture to the stored default', async () => {
    const { res } = await signUp();
    const served = await ctx.app.inject({ method: 'GET', url: `/app/api/user/pic/${res.json().data.uid}` });
    expect(served.statusCode).toBe(302);
    expect(served.headers.location).toBe('/avatar-defaut.svg');
  });
});
