import { scryptSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cookieOf, createTestApp, hachageDeTest, lienRecu, type TestContext } from './helpers.js';

/** The French weak-password rule (src/server/auth/motsDePasse.ts) on every way of choosing a password. */
let ctx: TestContext;
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
    nom: 'Dupont',
    prenom: 'Jeanne',
    birthday: '1980-04-12',
    residence: 'Les Lauriers',
    rue: 'Avenue Marcel-Pagnol',
    email: `jeanne.dupont${counter}@example.org`,
    password: 'un jardin sous la pluie',
    ...overrides,
  };
}

const signUp = (overrides: Record<string, unknown> = {}) => ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: inscription(overrides) });
const MESSAGE = /trop facile à deviner/u;

describe('sign-up refuses passwords easy to guess in French', () => {
  it.each(['marseille123', 'azertyuiop12', 'motdepasse12', 'soleil123456', 'aaaaaaaaaaaa', '            ', 'jasdebouffan'])(
    'refuses %j with 400 PASSWORD_TOO_COMMON and creates no account',
    async (password) => {
      const body = inscription({ password });
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: body });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('PASSWORD_TOO_COMMON');
      expect(res.json().error.fields.password).toMatch(MESSAGE);
      expect(await ctx.app.deps.db.selectFrom('user').select('id').where('email', '=', body.email).executeTakeFirst()).toBeUndefined();
    },
  );

  it('refuses the person’s own e-mail and names as a password', async () => {
    const cases = [(email: string) => email, (email: string) => `${email.split('@')[0]}2024`, () => 'YsoldeZarkovski13', () => 'zarkovski.ysolde!'];
    for (const make of cases) {
      const body = inscription({ nom: 'Zarkovski', prenom: 'Ysolde', email: `ysolde.zarkovski${counter}@example.org` });
      const password = make(body.email);
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: { ...body, password } });
      expect([password, res.statusCode, res.json().error?.code]).toEqual([password, 400, 'PASSWORD_TOO_COMMON']);
      expect(res.json().error.fields.password).toMatch(MESSAGE);
    }
    // The same names are fine for someone else.
    expect((await signUp({ nom: 'Martin', prenom: 'Hélène', password: 'YsoldeZarkovski13' })).statusCode).toBe(201);
  });

  it('accepts a passphrase of four random words', async () => {
    expect((await signUp({ password: 'cheval-agrafe-pluie-velo' })).statusCode).toBe(201);
  });
});

describe('changing or resetting a password follows the same rule', () => {
  it('refuses the account’s own names or e-mail on /change-password', async () => {
    const body = inscription();
    const res = await signUp(body);
    expect(res.statusCode).toBe(201);
    const cookie = cookieOf(res);
    const change = (newPassword: string) =>
      ctx.app.inject({ method: 'POST', url: '/app/api/auth/change-password', headers: { cookie }, payload: { currentPassword: body.password, newPassword } });
    for (const newPassword of ['soleil123456', body.email, 'Jeanne Dupont 1980']) {
      const refused = await change(newPassword);
      expect([newPassword, refused.statusCode, refused.json().error.code]).toEqual([newPassword, 400, 'PASSWORD_TOO_COMMON']);
      expect(refused.json().error.message).toMatch(MESSAGE);
    }
    expect((await change('cheval-agrafe-pluie-velo')).statusCode).toBe(200);
  });

  it('refuses the owner’s e-mail on /reset-password, found from the link', async () => {
    const body = inscription();
    expect((await signUp(body)).statusCode).toBe(201);
    const ask = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/request-password-reset', payload: { email: body.email, redirectTo: '/connexion/nouveau-mot-de-passe' } });
    expect(ask.statusCode).toBe(200);
    const token = /\/reset-password\/([\w-]+)/u.exec(await lienRecu(ctx, body.email, '/reset-password/'))![1]!;
    const reset = (newPassword: string) => ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', payload: { token, newPassword } });
    for (const newPassword of ['marseille123', body.email.toUpperCase(), 'dupontjeanne13']) {
      const refused = await reset(newPassword);
      expect([newPassword, refused.statusCode, refused.json().error.code]).toEqual([newPassword, 400, 'PASSWORD_TOO_COMMON']);
    }
    expect((await reset('cheval-agrafe-pluie-velo')).statusCode).toBe(200);
  });
});

describe('how passwords are kept', () => {
  /** The stored hash of an account's password: `salt:key`, both in hex. */
  const stored = async (app: TestContext['app'], email: string) => {
    // better-auth's own column, not in the app's schema.
    const { rows } = await sql<{ password: string }>`select a.password from account a join "user" u on u.id = a.user_id where u.email = ${email} and a.provider_id = 'credential'`.execute(app.deps.db);
    const [salt, key] = rows[0]!.password.split(':');
    return { salt: salt!, key: key! };
  };
  const scrypt = (password: string, salt: string, N: number) => scryptSync(password.normalize('NFKC'), salt, 64, { N, r: 16, p: 1, maxmem: 64 * 1024 * 1024 }).toString('hex');

  it('the app hashes them with scrypt at N = 16,384 (the tests pass a cheaper one: test/helpers.ts)', async () => {
    const production = await createTestApp({}, { motsDePasse: undefined });
    try {
      const body = inscription();
      const res = await production.app.inject({ method: 'POST', url: '/app/api/user/inscription', payload: body });
      expect(res.statusCode, res.body).toBe(201);
      const { salt, key } = await stored(production.app, body.email);
      expect(key).toBe(scrypt(body.password, salt, 16_384));
      expect(await hachageDeTest.verify({ hash: `${salt}:${key}`, password: body.password })).toBe(false);
      const signIn = await production.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email: body.email, password: body.password } });
      expect(signIn.statusCode, signIn.body).toBe(200);
    } finally {
      await production.close();
    }
  });

  it('the tests’ own hashing is scrypt too, and refuses a wrong password', async () => {
    const body = inscription();
    expect((await signUp(body)).statusCode).toBe(201);
    const { salt, key } = await stored(ctx.app, body.email);
    expect(key).toBe(scrypt(body.password, salt, 16));
    const wrong = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email: body.email, password: 'pas le bon mot de passe' } });
    expect(wrong.statusCode).toBe(401);
    const right = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email: body.email, password: body.password } });
    expect(right.statusCode, right.body).toBe(200);
  });
});
