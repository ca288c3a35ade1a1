import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masquerLigne, masquerTexte, masquerUrl } from '../src/server/securite/journal.js';
import { createTestApp, demande, lienRecu, multipart, SAMPLES, type TestContext } from './helpers.js';

/**
 * No secret in the log (issue 9 point 1): the whole account journey runs with the logger at `trace`
 * into a captured stream, every secret the journey sees is collected, and none may appear in the log.
 */
let ctx: TestContext;
const written: string[] = [];
const log = () => written.join('');

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString('utf8'));
      callback();
    },
  });
  ctx = await createTestApp({}, { logger: { level: 'trace', stream } });
});
afterAll(async () => {
  await ctx.close();
});

const lastLinkTo = async (email: string, pathPart: string) => new URL(await lienRecu(ctx, email, pathPart));

/** Every cookie value an answer sets, in every form it could be written (raw, decoded, the token before its signature). */
function cookieSecrets(headers: Record<string, unknown>): string[] {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
  return list
    .map((c) => (c.split(';')[0] ?? '').split('=').slice(1).join('='))
    .filter((v) => v.length > 0)
    .flatMap((v) => [v, decodeURIComponent(v), decodeURIComponent(v).split('.')[0]!]);
}

function cookieHeader(headers: Record<string, unknown>): string {
  const raw = headers['set-cookie'];
  const list = Array.isArray(raw) ? raw.map(String) : raw ? [String(raw)] : [];
  return list
    .map((c) => c.split(';')[0] ?? '')
    .filter((c) => !c.endsWith('='))
    .join('; ');
}

describe('the log', () => {
  it('holds no token, key, cookie or password of the sign-up → verify → reset → sign-in → request journey', async () => {
    const secrets = new Set<string>();
    const email = 'journal.habitant@example.org';
    const oldPassword = 'un vieux jardin sous la pluie';
    const newPassword = 'une nouvelle terrasse au soleil';
    const wrongPassword = 'pas le bon mot de passe du tout';
    for (const p of [oldPassword, newPassword, wrongPassword]) secrets.add(p);

    // Sign-up: a session cookie.
    const signUp = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/user/inscription',
      payload: { nom: 'Journal', prenom: 'Habitant', birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email, password: oldPassword },
    });
    expect(signUp.statusCode).toBe(201);
    cookieSecrets(signUp.headers).forEach((s) => secrets.add(s));
    expect(secrets.size).toBeGreaterThan(3);

    // The e-mailed verification link, opened (it signs the browser in).
    const verify = await lastLinkTo(email, '/verify-email');
    const verifyToken = verify.searchParams.get('token')!;
    expect(verifyToken.length).toBeGreaterThan(20);
    secrets.add(verifyToken);
    const verified = await ctx.app.inject({ method: 'GET', url: verify.pathname + verify.search });
    expect(verified.statusCode).toBe(302);
    cookieSecrets(verified.headers).forEach((s) => secrets.add(s));

    // A password reset: the e-mailed link, opened, then the new password.
    const ask = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/request-password-reset', payload: { email, redirectTo: '/connexion/nouveau-mot-de-passe' } });
    expect(ask.statusCode).toBe(200);
    const reset = await lastLinkTo(email, '/reset-password/');
    const resetToken = reset.pathname.split('/').pop()!;
    expect(resetToken.length).toBeGreaterThan(10);
    secrets.add(resetToken);
    const opened = await ctx.app.inject({ method: 'GET', url: reset.pathname + reset.search });
    expect(opened.statusCode).toBe(302);
    expect(String(opened.headers.location)).toContain(resetToken);
    const changed = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', payload: { token: resetToken, newPassword } });
    expect(changed.statusCode).toBe(200);
    // The used link once more, and a bad URL around it: error paths log too.
    const again = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/reset-password', payload: { token: resetToken, newPassword } });
    expect(again.statusCode).toBe(400);
    await ctx.app.inject({ method: 'GET', url: `${reset.pathname}%E0%A4%A?callbackURL=%2Fx` });

    // Sign-in: a wrong password, then the new one.
    const wrong = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email, password: wrongPassword } });
    expect(wrong.statusCode).toBe(401);
    const signIn = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email, password: newPassword } });
    expect(signIn.statusCode).toBe(200);
    cookieSecrets(signIn.headers).forEach((s) => secrets.add(s));
    const cookie = cookieHeader(signIn.headers);

    // A housing request: its private key, then the request read with it.
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', headers: { cookie }, payload: demande({ email }) });
    expect(created.statusCode).toBe(201);
    const { accessKey, numeroUnique, privateLink } = created.json().data as { accessKey: string; numeroUnique: string; privateLink: string };
    secrets.add(accessKey);
    const read = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}`, headers: { 'x-access-key': accessKey } });
    expect(read.statusCode).toBe(200);
    const wrongKey = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}?cle=${accessKey}`, headers: { 'x-access-key': `${accessKey}x` } });
    expect(wrongKey.statusCode).toBe(200);
    await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-out', headers: { cookie } });

    // Whatever is logged directly: better-auth's messages, an error message holding a link.
    ctx.app.log.error({ err: new Error(`échec de l'envoi de ${privateLink} et de ${reset.href}`) }, `lien ${verify.href}`);

    const text = log();
    // The journey was logged (at trace, every request): its URLs are there, masked.
    expect(text).toContain('/app/api/auth/verify-email?token=[masqué]');
    expect(text).toContain('/app/api/auth/reset-password/[masqué]');
    expect(text).toContain('"msg":"auth error"');
    expect(text).toContain(`/app/api/logement/${numeroUnique}`);
    for (const secret of secrets) {
      expect(secret.length, 'a secret worth looking for').toBeGreaterThanOrEqual(8);
      expect(text.includes(secret), `the log holds a secret: ${secret.slice(0, 6)}…`).toBe(false);
    }
  });
});

describe('a document missing from storage', () => {
  it('is logged by its ids, never by the name the person gave its file', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013journal01' }) });
    const { accessKey } = created.json().data as { accessKey: string };
    const form = await multipart([{ field: 'identity', name: 'CNI_Helene_Martin.pdf', content: SAMPLES.pdf }]);
    const up = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/upload-files/013journal01', headers: { ...form.headers, 'x-access-key': accessKey }, payload: form.payload });
    expect(up.statusCode).toBe(201);
    const doc = await ctx.app.deps.db.selectFrom('documents').select(['id', 'storageKey']).where('originalName', '=', 'CNI_Helene_Martin.pdf').executeTakeFirstOrThrow();
    fs.rmSync(path.join(ctx.dataDir, 'uploads', doc.storageKey));
    const avant = written.length;
    const lu = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013journal01/documents/${doc.id}`, headers: { 'x-access-key': accessKey } });
    expect(lu.statusCode).toBe(404);
    // The zip stops with an error (the answer is cut): it never looks complete.
    await expect(ctx.app.inject({ method: 'GET', url: '/app/api/logement/013journal01/documents.zip', headers: { 'x-access-key': accessKey } })).rejects.toThrow();
    const lignes = written.slice(avant).join('');
    expect(lignes).toContain(doc.id);
    expect(lignes).not.toMatch(/Helene_Martin/u);
  });
});

describe('the maskers', () => {
  it.each([
    ['/app/api/auth/verify-email?token=abc.def.ghi&callbackURL=%2Fcompte', '/app/api/auth/verify-email?token=[masqué]&callbackURL=[masqué]'],
    ['/app/api/auth/reset-password/AbCdEf123456?callbackURL=%2Fx', '/app/api/auth/reset-password/[masqué]?callbackURL=[masqué]'],
    ['/app/api/auth/callback/google?code=4%2F0Ab&state=xyz', '/app/api/auth/callback/google?code=[masqué]&state=[masqué]'],
    ['/app/api/logement?page=2&pageSize=20&sort=nom&order=asc&status=Refus%C3%A9&q=martin', '/app/api/logement?page=2&pageSize=20&sort=nom&order=asc&status=Refus%C3%A9&q=[masqué]'],
    [`/app/api/x/${'A'.repeat(43)}`, '/app/api/x/[masqué]'],
    ['/app/api/user/public/abc', '/app/api/user/public/abc'],
  ])('masks the secret parts of %s', (url, masked) => {
    expect(masquerUrl(url)).toBe(masked);
  });

  it('masks a stored document’s file name, in a path or a key, and keeps its folders (the ids)', () => {
    const cle = '45079c09-c32b-4640-8e22-4c68c7c83d16/50171498-7628-4d35-9bb3-2decb649154d';
    expect(masquerLigne(`{"message":"ENOENT: open '/data/uploads/${cle}/identity-CNI_Helene_Martin.pdf'","path":"/data/uploads/${cle}/tax-avis.pdf"}`)).toBe(
      `{"message":"ENOENT: open '/data/uploads/${cle}/[masqué]'","path":"/data/uploads/${cle}/[masqué]"}`,
    );
  });

  it('masks secrets in free text and in log lines, and leaves the rest', () => {
    expect(masquerTexte('connexion à postgres://qv:motdepasse@db:5432/qv perdue')).toBe('connexion à postgres://[masqué]@db:5432/qv perdue');
    expect(masquerTexte('Authorization: Bearer abcdefghijkl')).not.toContain('abcdefghijkl');
    expect(masquerTexte('jeton eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature refusé')).toBe('jeton [masqué] refusé');
    expect(masquerTexte('session 4kR9xQ2mZ7pL0vB3nT8wY5cF1hJ6 expirée')).toBe('session [masqué] expirée');
    expect(masquerLigne('{"cookie":"qv.session_token=abc.def","password":"x y z","newPassword":"abc"}')).toBe(
      '{"cookie":"[masqué]","password":"[masqué]","newPassword":"[masqué]"}',
    );
    expect(masquerLigne('{"msg":"request completed","res":{"statusCode":200}}')).toBe('{"msg":"request completed","res":{"statusCode":200}}');
    expect(masquerLigne('{"code":"INVALID_EMAIL_OR_PASSWORD","status":401,"msg":"auth error"}')).toBe('{"code":"INVALID_EMAIL_OR_PASSWORD","status":401,"msg":"auth error"}');
  });
});
