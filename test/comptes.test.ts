import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMON_PASSWORD_COUNT } from '../src/server/auth/motsDePasse.js';
import { CompteRepository } from '../src/server/features/compte/repository.js';
import { cookieOf, createTestApp, demande, lienRecu, mailsTo, multipart, SAMPLES, type TestContext } from './helpers.js';

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

/** Confirms the address the way its owner does: by opening the link e-mailed at sign-up. */
async function verify(email: string) {
  const link = new URL(await lastLinkTo(email, '/verify-email'));
  expect((await ctx.app.inject({ method: 'GET', url: link.pathname + link.search })).statusCode).toBe(302);
}

async function roleOf(email: string): Promise<string> {
  return (await ctx.app.deps.db.selectFrom('user').select('userType').where('email', '=', email).executeTakeFirstOrThrow()).userType;
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
    // It greets the person by the first name they gave (capitalised as the account keeps it).
    expect(await premiereLigneDuMail(String(body.email), '/verify-email')).toBe('Bonjour Jean-Pierre,');
  });

  it('counts the user among the inhabitants of their quartier and ville once they choose to be listed', async () => {
    const { res, cookie } = await signUp();
    const uid = res.json().data.uid;
    expect(res.json().data.visibilite).toBe('voisins');
    const list = async (url: string) => (await ctx.app.inject({ method: 'GET', url, headers: { cookie } })).json().data.habitants as string[];
    expect(await list('/app/api/quartiers/jas-de-bouffan/habitants')).not.toContain(uid);
    await ctx.app.inject({ method: 'PATCH', url: '/app/api/user/me', headers: { cookie }, payload: { visibilite: 'quartier' } });
    expect(await list('/app/api/quartiers/jas-de-bouffan/habitants')).toContain(uid);
    expect(await list('/app/api/villes/aix-en-provence/habitants')).toContain(uid);
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

  it('signed up twice at once with one address (a double click): one account, the other told the address is taken', async () => {
    const corps = inscription();
    const reponses = await Promise.all([1, 2].map(() => ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: corps })));
    expect(reponses.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(reponses.find((r) => r.statusCode === 409)!.json().error.code).toBe('EMAIL_TAKEN');
    expect(await ctx.app.deps.db.selectFrom('user').select('id').where('email', '=', corps.email).execute()).toHaveLength(1);
  });

  it('applies the password policy: 12 to 128 characters, not a common password, no composition rule', async () => {
    const short = await signUp({ password: 'court123' });
    expect(short.res.statusCode).toBe(400);
    expect(short.res.json().error.fields.password).toBe('Le mot de passe doit contenir au moins 12 caractères.');
    const long = await signUp({ password: 'x'.repeat(129) });
    expect(long.res.json().error.fields.password).toBe('Le mot de passe doit contenir au plus 128 caractères.');
    const common = await signUp({ password: 'password1234' });
    expect(common.res.statusCode).toBe(400);
    expect(common.res.json().error.fields.password).toMatch(/trop facile à deviner/u);
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
  it('gives the public profile to anyone, without e-mail, birthday, street, residence or gender', async () => {
    const { res, cookie } = await signUp();
    const uid = res.json().data.uid;
    await ctx.app.inject({ method: 'PATCH', url: '/app/api/user/me', headers: { cookie }, payload: { visibilite: 'tous' } });
    const pub = await ctx.app.inject({ method: 'GET', url: `/app/api/user/public/${uid}` });
    expect(pub.statusCode).toBe(200);
    expect(Object.keys(pub.json().data).sort()).toEqual(['emailVerified', 'nom', 'pays', 'pic', 'prenom', 'quartier', 'uid', 'ville']);
    for (const secret of ['habitant', '1980-04-12', 'Marcel-Pagnol', 'Lauriers', '"H"', 'gender']) expect(pub.body).not.toContain(secret);
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
    // Particles stay lower-case inside a name typed all lower-case (capitaliser, src/domain/compte.ts).
    expect(res.json().data).toMatchObject({ nom: 'De la Fontaine', prenom: 'Marie' });
    const again = await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie } });
    expect(again.json().data.nom).toBe('De la Fontaine');
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

    await verify(String(user.body.email));
    const change = await ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: admin.cookie }, payload: { role: 'manager' } });
    expect(change.statusCode).toBe(200);
    const row = await ctx.app.deps.db.selectFrom('user').select('userType').where('id', '=', uid).executeTakeFirstOrThrow();
    expect(row.userType).toBe('manager');
    // Searched by the role's name as the page shows it.
    const gestionnaires = await ctx.app.inject({ method: 'GET', url: '/app/api/admin/users?q=gestionnaire', headers: { cookie: admin.cookie } });
    expect(gestionnaires.json().data.map((u: { uid: string }) => u.uid)).toContain(uid);
    expect(gestionnaires.json().data.every((u: { userType: string }) => u.userType === 'manager')).toBe(true);
    const bad = await ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: admin.cookie }, payload: { role: 'roi' } });
    expect(bad.statusCode).toBe(400);
    const byUser = await ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: user.cookie }, payload: { role: 'admin' } });
    expect(byUser.statusCode).toBe(403);
  });

  it('takes the requests a manager followed away from them when they are no longer a manager', async () => {
    const admin = await signUp();
    await setRole(String(admin.body.email), 'admin');
    const agent = await signUp();
    await verify(String(agent.body.email));
    const uid = agent.res.json().data.uid as string;
    const role = (r: string) => ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: admin.cookie }, payload: { role: r } });
    expect((await role('manager')).statusCode).toBe(200);
    const numero = '013suivi0001';
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: numero }) })).statusCode).toBe(201);
    expect((await ctx.app.inject({ method: 'PUT', url: `/app/api/logement/${numero}/suivi`, headers: { cookie: agent.cookie }, payload: { suivre: true } })).statusCode).toBe(200);
    const suivi = async () => (await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', numero).executeTakeFirstOrThrow()).suiviePar;
    expect(await suivi()).toBe(uid);
    expect((await role('habitant')).statusCode).toBe(200);
    expect(await suivi()).toBeNull();
  });

  /** Two new accounts, the only admins. */
  const lesDeuxSeulsAdmins = async () => {
    await ctx.app.deps.db.updateTable('user').set({ userType: 'habitant' }).where('userType', '=', 'admin').execute();
    const a = await signUp();
    const b = await signUp();
    await setRole(String(a.body.email), 'admin');
    await setRole(String(b.body.email), 'admin');
    return [a, b] as const;
  };

  it('keeps one admin when the last two take each other’s role at the same moment', async () => {
    const [a, b] = await lesDeuxSeulsAdmins();
    const retirer = (par: typeof a, cible: typeof b) =>
      ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${cible.res.json().data.uid}/role`, headers: { cookie: par.cookie }, payload: { role: 'habitant' } });
    const reponses = await Promise.all([retirer(a, b), retirer(b, a)]);
    // The loser is refused by the transaction's guard (409) when both passed the admin check before either changed
    // anything, or by the admin check itself (403) when the winner's change came first: both keep one admin.
    const [gagnant, perdant] = [...reponses].sort((x, y) => x.statusCode - y.statusCode);
    expect(gagnant!.statusCode).toBe(200);
    if (perdant!.statusCode === 409) expect(perdant!.json().error).toMatchObject({ code: 'LAST_ADMIN', message: expect.stringMatching(/^Il doit rester au moins un administrateur/u) });
    else expect(perdant!.statusCode).toBe(403);
    expect(await ctx.app.deps.db.selectFrom('user').select('id').where('userType', '=', 'admin').execute()).toHaveLength(1);
  });

  it('keeps one admin when two role changes reach the database together, whatever the order of the admin checks', async () => {
    const [a, b] = await lesDeuxSeulsAdmins();
    // Both requests are past the admin check: only the transaction stands between them and no admin at all.
    const comptes = new CompteRepository(ctx.app.deps.db);
    const resultats = await Promise.all([a, b].map((x) => comptes.setRole({ id: x.res.json().data.uid as string }, 'habitant', { garderUnAdmin: true })));
    expect(resultats.filter((r) => r.ok)).toHaveLength(1);
    expect(resultats.filter((r) => !r.ok && r.raison === 'dernier-admin')).toHaveLength(1);
    expect(await ctx.app.deps.db.selectFrom('user').select('id').where('userType', '=', 'admin').execute()).toHaveLength(1);
  });

  it('gives manager and admin only to a confirmed e-mail address, saying why in French; back to habitant always', async () => {
    const admin = await signUp();
    await setRole(String(admin.body.email), 'admin');
    // Anyone can sign up with a town-hall-looking address they do not own.
    const intruder = await signUp({ email: `agent${counter}@mairie-aix.example` });
    const email = String(intruder.body.email);
    const uid = intruder.res.json().data.uid;
    const give = (role: string) => ctx.app.inject({ method: 'POST', url: `/app/api/admin/users/${uid}/role`, headers: { cookie: admin.cookie }, payload: { role } });

    for (const role of ['manager', 'admin']) {
      const refused = await give(role);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error.code).toBe('EMAIL_NON_CONFIRME');
      expect(refused.json().error.message).toMatch(new RegExp(`^L’adresse ${email.replace(/\./gu, '\\.')} n’est pas confirmée : la personne doit d’abord cliquer le lien reçu par e-mail`, 'u'));
      expect(await roleOf(email)).toBe('habitant');
    }
    // The admin page shows which addresses are confirmed.
    const listed = await ctx.app.inject({ method: 'GET', url: `/app/api/admin/users?q=${encodeURIComponent(email)}`, headers: { cookie: admin.cookie } });
    expect(listed.json().data[0]).toMatchObject({ uid, emailVerified: false });

    // An account made manager before this rule can always be taken back to habitant.
    await setRole(email, 'manager');
    expect((await give('habitant')).statusCode).toBe(200);
    expect(await roleOf(email)).toBe('habitant');

    await verify(email);
    const granted = await give('manager');
    expect(granted.statusCode).toBe(200);
    expect(granted.json().data).toMatchObject({ userType: 'manager', emailVerified: true });
    expect(await roleOf(email)).toBe('manager');
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
    await verify(String(body.email));
    const env = { DATA_DIR: ctx.dataDir, DATABASE_URL: ctx.config.databaseUrl };
    expect(await run(['role', String(body.email).toUpperCase(), 'admin'], env)).toEqual({ code: 0, out: `${String(body.email)} a maintenant le rôle admin.` });
    const row = await ctx.app.deps.db.selectFrom('user').select('userType').where('email', '=', String(body.email)).executeTakeFirstOrThrow();
    expect(row.userType).toBe('admin');
    expect((await run(['role', 'personne@example.org', 'manager'], env)).code).toBe(1);
    expect(await run(['role', String(body.email), 'habitant'], env)).toEqual({ code: 0, out: `${String(body.email)} a maintenant le rôle habitant.` });
    expect((await run(['role', String(body.email), 'roi'], env)).out).toMatch(/^Rôle inconnu « roi »/u);
    expect((await run([], env)).code).toBe(2);
  });

  it('refuses manager and admin to an unconfirmed address, exits non-zero and says what to do', async () => {
    const { run } = await import('../src/server/cli/user.js');
    const { body } = await signUp({ email: `agent${counter}@mairie-aix.example` });
    const email = String(body.email);
    const env = { DATA_DIR: ctx.dataDir, DATABASE_URL: ctx.config.databaseUrl };
    for (const role of ['manager', 'admin']) {
      const refused = await run(['role', email, role], env);
      expect(refused.code).toBe(1);
      expect(refused.out).toContain(`L’adresse ${email} n’est pas confirmée : la personne doit d’abord cliquer le lien reçu par e-mail`);
      expect(await roleOf(email)).toBe('habitant');
    }
    await verify(email);
    expect(await run(['role', email, 'manager'], env)).toEqual({ code: 0, out: `${email} a maintenant le rôle manager.` });
    expect(await roleOf(email)).toBe('manager');
  });
});

const lastLinkTo = (email: string, pathPart?: string) => lienRecu(ctx, email, pathPart);

/** The first line of the text of the last mail to an address holding a link with `pathPart` (« Bonjour …, »). */
async function premiereLigneDuMail(email: string, pathPart: string): Promise<string | undefined> {
  const mail = (await mailsTo(ctx, email)).filter((m) => m.includes(pathPart)).at(-1);
  // The headers end at the first empty line; the text follows (plain ASCII here: the names tested are).
  return mail?.split(/\r?\n\r?\n/u)[1]?.split(/\r?\n/u)[0];
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
    expect(await premiereLigneDuMail(String(body.email), '/reset-password/')).toBe('Bonjour Jean-Pierre,');
    const token = link.pathname.split('/').pop()!;
    const common = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', headers: { origin: ORIGIN }, payload: { token, newPassword: 'password1234' } });
    expect(common.statusCode).toBe(400);
    expect(common.json().error.message).toMatch(/trop facile à deviner/u);
    const ok = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', headers: { origin: ORIGIN }, payload: { token, newPassword: 'un autre jardin au soleil' } });
    expect(ok.statusCode).toBe(200);
    expect((await signIn(String(body.email), String(body.password))).statusCode).toBe(401);
    expect((await signIn(String(body.email), 'un autre jardin au soleil')).statusCode).toBe(200);
  });

  it('answers every step of the reset flow in French, and a used, expired or made-up link with 400 and what to do next', async () => {
    const PERIME = 'Ce lien n’est plus valable : il a déjà servi ou a expiré. Demandez-en un nouveau depuis «\u00a0Mot de passe oublié\u00a0».';
    const reset = (payload: Record<string, unknown>, url = '/app/api/auth/reset-password') => ctx.app.inject({ method: 'POST', url, headers: { origin: ORIGIN }, payload });
    const oubli = (payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: '/app/api/auth/request-password-reset', headers: { origin: ORIGIN }, payload });
    const perime = (res: { statusCode: number; json: () => unknown }) => {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: { code: 'INVALID_TOKEN', message: PERIME } });
    };
    const { body } = await signUp();
    const email = String(body.email);

    // « Mot de passe oublié » answers the same French sentence whether an account has the address or not.
    const ENVOYE = 'Si un compte existe avec cette adresse, un e-mail vient de lui être envoyé, avec un lien valable une heure pour choisir un nouveau mot de passe.';
    for (const address of [email, 'personne@example.org']) {
      const ask = await oubli({ email: address, redirectTo: '/connexion/nouveau-mot-de-passe' });
      expect(ask.statusCode).toBe(200);
      expect(ask.json()).toEqual({ status: true, message: ENVOYE });
    }
    const mauvaise = await oubli({ email: 'pas-une-adresse', redirectTo: '/connexion/nouveau-mot-de-passe' });
    expect(mauvaise.statusCode).toBe(400);
    expect(mauvaise.json()).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'L’adresse e-mail n’est pas valide.', fields: { email: 'L’adresse e-mail n’est pas valide.' } } });

    // A made-up link, with a good password or a common one: the link is what is wrong.
    perime(await reset({ token: 'invente-de-toutes-pieces', newPassword: 'un autre jardin au soleil' }));
    perime(await reset({ token: 'invente-de-toutes-pieces', newPassword: 'password1234' }));
    perime(await reset({ newPassword: 'un autre jardin au soleil' }));
    perime(await reset({ newPassword: 'un autre jardin au soleil' }, '/app/api/auth/reset-password?token=invente'));

    // The e-mailed link, opened: on to the page with its token; a made-up one says so to the page.
    const link = new URL(await lastLinkTo(email, '/reset-password/'));
    const token = link.pathname.split('/').pop()!;
    const opened = await ctx.app.inject({ method: 'GET', url: link.pathname + link.search });
    expect([opened.statusCode, opened.headers.location]).toEqual([302, `${ORIGIN}/connexion/nouveau-mot-de-passe?token=${token}`]);
    const invente = await ctx.app.inject({ method: 'GET', url: `/app/api/auth/reset-password/invente?callbackURL=${encodeURIComponent('/connexion/nouveau-mot-de-passe')}` });
    expect([invente.statusCode, invente.headers.location]).toEqual([302, `${ORIGIN}/connexion/nouveau-mot-de-passe?error=INVALID_TOKEN`]);
    const tronque = await ctx.app.inject({ method: 'GET', url: link.pathname });
    expect(tronque.statusCode).toBe(400);
    expect(tronque.json().error.message).toBe('Ce lien est incomplet : ouvrez en entier celui reçu par e-mail, ou demandez-en un nouveau depuis «\u00a0Mot de passe oublié\u00a0».');
    const sansMotDePasse = await reset({ token });
    expect(sansMotDePasse.statusCode).toBe(400);
    expect(sansMotDePasse.json().error).toEqual({ code: 'VALIDATION_ERROR', message: 'Saisissez votre nouveau mot de passe.', fields: { newPassword: 'Saisissez votre nouveau mot de passe.' } });

    // Used once, the link no longer works: the same answer, whatever the password.
    expect((await reset({ token, newPassword: 'un autre jardin au soleil' })).statusCode).toBe(200);
    perime(await reset({ token, newPassword: 'un autre jardin au soleil' }));
    perime(await reset({ token, newPassword: 'password1234' }));

    // Expired (an hour later): the same.
    await oubli({ email, redirectTo: '/connexion/nouveau-mot-de-passe' });
    const expire = new URL(await lastLinkTo(email, '/reset-password/')).pathname.split('/').pop()!;
    expect(expire).not.toBe(token);
    const { internalAdapter } = await (await ctx.app.deps.auth.get()).$context;
    await internalAdapter.updateVerificationByIdentifier(`reset-password:${expire}`, { expiresAt: new Date(Date.now() - 1000) });
    perime(await reset({ token: expire, newPassword: 'encore un autre jardin' }));
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
    expect(await premiereLigneDuMail(newEmail, '/verify-email')).toBe('Bonjour Jean-Pierre,');
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
    const served = await ctx.app.inject({ method: 'GET', url: pic, headers: { cookie } });
    expect(served.headers['content-type']).toBe('image/webp');
    // A user file is never run as a page of the site nor sniffed as another type, nor kept by a shared cache.
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(String(served.headers['content-security-policy'])).toMatch(/(^|;\s*)sandbox(;|$)/u);
    expect(String(served.headers['cache-control'])).toMatch(/^private/u);
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([256, 256, 'webp']);
    expect((await ctx.app.inject({ method: 'GET', url: `/app/api/user/public/${uid}`, headers: { cookie } })).json().data.pic).toBe(pic);

    const exe = await multipart([{ field: 'pic', name: 'moi.png', content: SAMPLES.exe }]);
    const bad = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...exe.headers, cookie }, payload: exe.payload });
    expect(bad.statusCode).toBe(415);
    const anonymous = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: form.headers, payload: form.payload });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses a picture that claims more than 64 megapixels before decoding it (a small file may claim a huge image)', async () => {
    const { cookie } = await signUp();
    // A real PNG of 12,000 × 12,000 black-and-white pixels (144 megapixels) in 18 KB.
    const cote = 12_000;
    const ligne = 1 + cote / 8;
    const crc = (octets: Buffer) => {
      let c = ~0;
      for (const o of octets) {
        c ^= o;
        for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
      }
      return ~c >>> 0;
    };
    const bloc = (type: string, data: Buffer) => {
      const corps = Buffer.concat([Buffer.from(type, 'latin1'), data]);
      const taille = Buffer.alloc(4);
      taille.writeUInt32BE(data.length);
      const somme = Buffer.alloc(4);
      somme.writeUInt32BE(crc(corps));
      return Buffer.concat([taille, corps, somme]);
    };
    const entete = Buffer.alloc(13);
    entete.writeUInt32BE(cote, 0);
    entete.writeUInt32BE(cote, 4);
    entete.set([1, 0, 0, 0, 0], 8);
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      bloc('IHDR', entete),
      bloc('IDAT', zlib.deflateSync(Buffer.alloc(ligne * cote))),
      bloc('IEND', Buffer.alloc(0)),
    ]);
    const form = await multipart([{ field: 'pic', name: 'immense.png', content: png }]);
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...form.headers, cookie }, payload: form.payload });
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatchObject({ code: 'UNREADABLE_IMAGE', message: expect.stringMatching(/image trop grande/u) });
  });

  it('limits pictures as documents are: past the limit, 429 in French and nothing stored', async () => {
    const limitee = await createTestApp({}, { rateLimits: { upload: { max: 1, timeWindow: '1 minute' } } });
    try {
      const inscrit = await limitee.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: inscription() });
      const cookie = cookieOf(inscrit);
      const { default: sharp } = await import('sharp');
      const photo = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#33cc66' } }).jpeg().toBuffer();
      const envoi = async () => {
        const form = await multipart([{ field: 'pic', name: 'moi.jpg', content: photo }]);
        return limitee.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...form.headers, cookie }, payload: form.payload });
      };
      expect((await envoi()).statusCode).toBe(201);
      const trop = await envoi();
      expect(trop.statusCode).toBe(429);
      expect(trop.json().error.message).toMatch(/Trop de/u);
      expect(fs.readdirSync(path.join(limitee.dataDir, 'uploads', 'avatars', inscrit.json().data.uid))).toHaveLength(1);
    } finally {
      await limitee.close();
    }
  });

  it('sends users without a picture to the stored default', async () => {
    const { res } = await signUp();
    const served = await ctx.app.inject({ method: 'GET', url: `/app/api/user/pic/${res.json().data.uid}` });
    expect(served.statusCode).toBe(302);
    expect(served.headers.location).toBe('/avatar-defaut.svg');
  });
});

describe('a picture path never leaves its owner\'s folder', () => {
  it('ignores a hostile image value: the other user\'s file stays, nothing outside the owner\'s folder is served', async () => {
    const { default: sharp } = await import('sharp');
    const photo = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#cc3366' } }).png().toBuffer();
    const upload = async (cookie: string) => {
      const form = await multipart([{ field: 'pic', name: 'moi.png', content: photo }]);
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...form.headers, cookie }, payload: form.payload });
      expect(res.statusCode).toBe(201);
      return res.json().data.pic as string;
    };
    const victim = await signUp();
    const victimUid = victim.res.json().data.uid as string;
    const victimPic = await upload(victim.cookie);
    const victimVersion = new URL(victimPic, ORIGIN).searchParams.get('v')!;
    const victimFile = path.join(ctx.dataDir, 'uploads', 'avatars', victimUid, `${victimVersion}.webp`);
    expect(fs.existsSync(victimFile)).toBe(true);

    const attacker = await signUp();
    const attackerUid = attacker.res.json().data.uid as string;
    await upload(attacker.cookie);
    const hostile = [
      `/x?v=../${victimUid}/${victimVersion}`,
      `/app/api/user/pic/${attackerUid}?v=../${victimUid}/${victimVersion}`,
      `/app/api/user/pic/${attackerUid}?v=${victimVersion}/../../${victimUid}/${victimVersion}`,
      victimPic,
      'https://evil.example/pixel.png',
    ];
    for (const image of hostile) {
      // Written straight into the row, as a route that forgot a check would.
      await ctx.app.deps.db.updateTable('user').set({ image }).where('id', '=', attackerUid).execute();
      const pub = await ctx.app.inject({ method: 'GET', url: `/app/api/user/public/${attackerUid}`, headers: { cookie: attacker.cookie } });
      expect(pub.json().data.pic, image).toBe('/avatar-defaut.svg');
      const served = await ctx.app.inject({ method: 'GET', url: `/app/api/user/pic/${attackerUid}`, headers: { cookie: attacker.cookie } });
      expect(served.statusCode, image).toBe(302);
      expect(served.headers.location).toBe('/avatar-defaut.svg');

      await ctx.app.deps.db.updateTable('user').set({ image }).where('id', '=', attackerUid).execute();
      await upload(attacker.cookie);
      expect(fs.existsSync(victimFile), image).toBe(true);
    }
    const still = await ctx.app.inject({ method: 'GET', url: victimPic, headers: { cookie: victim.cookie } });
    expect(still.statusCode).toBe(200);
    expect(still.headers['content-type']).toBe('image/webp');
  });
});

describe('who sees inhabitants lists and public profiles', () => {
  async function moveTo(email: string, quartierSlug: string, villeSlug: string) {
    await ctx.app.deps.db.updateTable('user').set({ quartierSlug, villeSlug }).where('email', '=', email).execute();
  }
  const choose = (cookie: string, visibilite: string) => ctx.app.inject({ method: 'PATCH', url: '/app/api/user/me', headers: { cookie }, payload: { visibilite } });

  it('lists the inhabitants of a place only to its signed-in residents, and only those who chose to be listed', async () => {
    for (const url of ['/app/api/quartiers/jas-de-bouffan/habitants', '/app/api/villes/aix-en-provence/habitants']) {
      const anonymous = await ctx.app.inject({ method: 'GET', url });
      expect(anonymous.statusCode, url).toBe(401);
      expect(anonymous.json().error.message).toBe('Connectez-vous pour continuer.');
    }
    const resident = await signUp();
    const quartier = await signUp();
    const tous = await signUp();
    const hidden = await signUp();
    expect((await choose(quartier.cookie, 'quartier')).statusCode).toBe(200);
    expect((await choose(tous.cookie, 'tous')).statusCode).toBe(200);
    const uid = (x: { res: { json(): { data: { uid: string } } } }) => x.res.json().data.uid;

    for (const url of ['/app/api/quartiers/jas-de-bouffan/habitants', '/app/api/villes/aix-en-provence/habitants']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { cookie: resident.cookie } });
      expect(res.statusCode, url).toBe(200);
      const habitants = res.json().data.habitants as string[];
      expect(habitants).toEqual(expect.arrayContaining([uid(quartier), uid(tous)]));
      expect(habitants).not.toContain(uid(hidden));
      expect(habitants).not.toContain(uid(resident));
    }

    // A resident of another quartier of the same city: not this quartier's list; the city's, yes.
    const encagnane = await signUp();
    await moveTo(String(encagnane.body.email), 'encagnane', 'aix-en-provence');
    const otherQuartier = await ctx.app.inject({ method: 'GET', url: '/app/api/quartiers/jas-de-bouffan/habitants', headers: { cookie: encagnane.cookie } });
    expect(otherQuartier.statusCode).toBe(403);
    expect(otherQuartier.json().error.message).toBe('Cette liste est réservée aux habitants de ce quartier.');
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/villes/aix-en-provence/habitants', headers: { cookie: encagnane.cookie } })).statusCode).toBe(200);
    // A resident of another city: neither.
    const marseille = await signUp();
    await moveTo(String(marseille.body.email), 'le-panier', 'marseille');
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/villes/aix-en-provence/habitants', headers: { cookie: marseille.cookie } })).statusCode).toBe(403);
    // Nor another place's list for a resident of this one.
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/quartiers/encagnane/habitants', headers: { cookie: resident.cookie } })).statusCode).toBe(403);
  });

  it('shows the name and picture only to the viewers the person chose, the first name to others, the gender to no one', async () => {
    const { default: sharp } = await import('sharp');
    const person = await signUp({ prenom: 'amina', nom: 'roux', gender: 'F' });
    const uid = person.res.json().data.uid as string;
    const form = await multipart([{ field: 'pic', name: 'moi.jpg', content: await sharp({ create: { width: 64, height: 64, channels: 3, background: '#112233' } }).jpeg().toBuffer() }]);
    const pic = (await ctx.app.inject({ method: 'POST', url: '/app/api/user/me/pic', headers: { ...form.headers, cookie: person.cookie }, payload: form.payload })).json().data.pic as string;

    const neighbour = await signUp({ inviterUid: uid });
    const resident = await signUp();
    const manager = await signUp();
    await setRole(String(manager.body.email), 'manager');
    const admin = await signUp();
    await setRole(String(admin.body.email), 'admin');
    const outsider = await signUp();
    await moveTo(String(outsider.body.email), 'encagnane', 'aix-en-provence');

    const viewers: [string, string | undefined][] = [
      ['anonymous', undefined],
      ['self', person.cookie],
      ['neighbour', neighbour.cookie],
      ['resident', resident.cookie],
      ['manager', manager.cookie],
      ['admin', admin.cookie],
      ['outsider', outsider.cookie],
    ];
    const full: Record<string, string[]> = {
      voisins: ['self', 'neighbour', 'admin'],
      quartier: ['self', 'neighbour', 'resident', 'manager', 'admin'],
      tous: viewers.map(([name]) => name),
    };
    for (const visibilite of ['voisins', 'quartier', 'tous']) {
      expect((await choose(person.cookie, visibilite)).json().data.visibilite).toBe(visibilite);
      for (const [name, cookie] of viewers) {
        const headers = cookie ? { cookie } : {};
        const res = await ctx.app.inject({ method: 'GET', url: `/app/api/user/public/${uid}`, headers });
        const what = `${visibilite} seen by ${name}`;
        expect(res.statusCode, what).toBe(200);
        expect(res.body, what).not.toContain('gender');
        const served = await ctx.app.inject({ method: 'GET', url: pic, headers });
        if (full[visibilite]!.includes(name)) {
          expect(res.json().data, what).toMatchObject({ prenom: 'Amina', nom: 'Roux', pic });
          expect(served.statusCode, what).toBe(200);
        } else {
          expect(res.json().data, what).toMatchObject({ prenom: 'Amina', pic: '/avatar-defaut.svg' });
          expect(res.json().data, what).not.toHaveProperty('nom');
          expect(served.statusCode, what).toBe(302);
          expect(served.headers.location, what).toBe('/avatar-defaut.svg');
        }
      }
    }
    // The owner sees their own choice and gender; an unknown choice is refused in French.
    const me = (await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: person.cookie } })).json().data;
    expect(me).toMatchObject({ visibilite: 'tous', gender: 'F' });
    const bad = await choose(person.cookie, 'monde');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields.visibilite).toBe('Choix inconnu : choisissez voisins, quartier, tous.');
  });
});
