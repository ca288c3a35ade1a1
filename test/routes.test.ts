import net from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpsErreurSchema } from '../src/domain/corpsErreur.js';
import { reserve } from '../src/server/auth/guards.js';
import { installErrorHandlers } from '../src/server/errors.js';
import { ecriture } from '../src/server/serializer.js';
import { apiRoutes, BAD_BODIES, BAD_PARAMS, BAD_QUERIES, fill as fillWith, generateCases, paramNames, problemWith, send as sendTo, type Answer } from './generated-inputs.js';
import { createAccount, createTestApp, demande, multipart, SAMPLES, surUnPort, type TestContext } from './helpers.js';

/**
 * Walks the app's own route table (so a route added tomorrow is covered without writing anything) and
 * sends every route bad path parameters, bad queries and bad bodies, anonymously and as a manager
 * holding the request's key: every answer is below 500, and every error is in the documented shape.
 */
let ctx: TestContext;
let base: string;
let origin: string;
let manager: Awaited<ReturnType<typeof createAccount>>;
let admin: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let numero: string;
let accessKey: string;
let documentId: string;

beforeAll(async () => {
  ctx = await createTestApp();
  origin = new URL(ctx.config.publicUrl).origin;
  manager = await createAccount(ctx, 'manager');
  admin = await createAccount(ctx, 'admin');
  habitant = await createAccount(ctx, 'habitant');
  const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() });
  ({ numeroUnique: numero, accessKey } = created.json().data);
  const form = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf, type: 'application/pdf' }]);
  const uploaded = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...form.headers, 'x-access-key': accessKey }, payload: form.payload });
  documentId = uploaded.json().data.documents.livret[0].id as string;
  base = (await surUnPort(ctx.app)).base;
});
afterAll(async () => {
  await ctx.close();
});

const send = (method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}) => sendTo(base, method, url, init);

function expectDocumented(answer: Answer, what: string): void {
  expect(problemWith(answer), what).toBeNull();
}

const GOOD_PARAMS: Record<string, () => string> = {
  numeroUnique: () => numero,
  id: () => documentId,
  uid: () => manager.uid,
  slug: () => 'jas-de-bouffan',
  '*': () => 'get-session',
};

const routes = () => apiRoutes(ctx.app);
/**
 * A manager's erasure (DELETE /logement/:numeroUnique) and a withdrawal (POST …/retirer) take no query and no
 * body: walking them with the key or a manager's cookie would erase the request the walks use.
 */
const erases = (r: { method: string; url: string }) =>
  (r.method === 'DELETE' && /\/logement\/(:numeroUnique|[^/]+)$/u.test(r.url)) || (r.method === 'POST' && r.url.endsWith('/retirer'));
const fill = (url: string, override?: [string, string]) => fillWith(url, GOOD_PARAMS, override);

describe('the route table', () => {
  it('holds every route of the API', () => {
    const table = routes().map((r) => `${r.method} ${r.url}`);
    expect(table.length).toBeGreaterThan(25);
    expect(table).toEqual(expect.arrayContaining(['POST /app/api/logement', 'GET /app/api/logement/:numeroUnique', 'POST /app/api/logement/update/status', 'GET /app/api/evenements']));
  });

  it('writes every answer of every route from its schema (the writers are made lazily, at a route’s first answer)', () => {
    const schemas = ctx.app.routeTable.flatMap((route) => Object.entries((route.schema?.response ?? {}) as Record<string, unknown>).map(([status, schema]) => [`${String(route.method)} ${route.url} ${status}`, schema] as const));
    expect(schemas.length).toBeGreaterThan(100);
    for (const [name, schema] of schemas) expect(() => ecriture(schema), name).not.toThrow();
  });

  // Signed-in callers send the site's Origin, as a browser does: their requests go past the origin check.
  const who = () => [
    ['anonymous', {}],
    ['manager with the key', { cookie: manager.cookie, 'x-access-key': accessKey, origin }],
  ] as const;

  it('answers bad path parameters with a documented 4xx, never a 5xx', { timeout: 120_000 }, async () => {
    let sent = 0;
    for (const route of routes()) {
      for (const name of paramNames(route.url)) {
        for (const bad of BAD_PARAMS) {
          for (const [label, headers] of who()) {
            const url = fill(route.url, [name, bad]);
            expectDocumented(await send(route.method, url, { headers: { ...headers } }), `${label}: ${route.method} ${url}`);
            sent += 1;
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(100);
  });

  it('answers bad queries with a documented 4xx, never a 5xx', { timeout: 120_000 }, async () => {
    for (const route of routes().filter((r) => !erases(r))) {
      for (const query of BAD_QUERIES) {
        for (const [label, headers] of who()) {
          const url = `${fill(route.url)}?${query}`;
          expectDocumented(await send(route.method, url, { headers: { ...headers } }), `${label}: ${route.method} ${url}`);
        }
      }
    }
  });

  it('answers bad bodies with a documented 4xx, never a 5xx, and stores nothing', { timeout: 120_000 }, async () => {
    const before = await ctx.app.deps.db.selectFrom('housingRequests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const route of routes().filter((r) => r.method !== 'GET' && !erases(r))) {
      for (const bad of BAD_BODIES) {
        for (const [label, headers] of who()) {
          const url = fill(route.url);
          const answer = await send(route.method, url, { headers: { ...headers, ...(bad.type ? { 'content-type': bad.type } : {}) }, body: bad.body });
          expectDocumented(answer, `${label}: ${route.method} ${url} with ${bad.name}`);
        }
      }
    }
    const after = await ctx.app.deps.db.selectFrom('housingRequests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('answers generated hostile requests (a small seed; bench/fuzz.ts sends 10,000) with a documented 4xx, never a 5xx', { timeout: 120_000 }, async () => {
    const cases = generateCases({
      routes: routes().filter((r) => !erases(r)),
      callers: [
        { label: 'anonymous', headers: {} },
        { label: 'resident', headers: { cookie: habitant.cookie, origin } },
        { label: 'manager', headers: { cookie: manager.cookie, 'x-access-key': accessKey, origin } },
      ],
      good: GOOD_PARAMS,
      seed: 9,
      count: 300,
    });
    const statuses = new Map<number, number>();
    for (const c of cases) {
      const answer = await send(c.method, c.url, { headers: c.headers, body: c.body });
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      expectDocumented(answer, c.label);
    }
    // The cases reach the routes, not only the front door.
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThan(4);
  });
});

describe('NUL bytes (PostgreSQL refuses them in text)', () => {
  it('refuses them in a request body, a path and a query with 400 NUL_BYTE, storing nothing', async () => {
    const body = demande({ motivations: 'avant\u0000après' });
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: body });
    expect(created.statusCode).toBe(400);
    expect(created.json().error.code).toBe('NUL_BYTE');
    expect(await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', String(body.numeroUnique)).executeTakeFirst()).toBeUndefined();
    for (const url of ['/app/api/user/public/a%00b', '/app/api/logement/export.csv?q=a%00b', '/app/api/quartiers/a%00/habitants']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { cookie: manager.cookie } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.code, url).toBe('NUL_BYTE');
    }
    const signIn = await ctx.app.inject({ method: 'POST', url: '/app/api/auth/sign-in/email', payload: { email: 'a\u0000@b.fr', password: 'x'.repeat(12) } });
    expect(signIn.json().error.code).toBe('NUL_BYTE');
    // An escaped backslash followed by "u0000" is plain text, not a NUL.
    const text = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ motivations: 'chemin C:\\u0000' }) });
    expect(text.statusCode).toBe(201);
  });
});

describe('errors below the routes', () => {
  /** One raw HTTP exchange, for what fetch would refuse to send. */
  function raw(request: string): Promise<{ status: number; body: string }> {
    const { port } = ctx.app.server.address() as { port: number };
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => {
        const [head = '', body = ''] = data.split('\r\n\r\n');
        resolve({ status: Number(head.split(' ')[1]), body });
      });
    });
  }

  it.each([
    ['a malformed URL', 'GET /app/api/logement/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'BAD_REQUEST'],
    ['a path parameter over 100 characters', `GET /app/api/logement/${'x'.repeat(150)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 414, 'URI_TOO_LONG'],
    ['headers over 16 KB', `GET /app/api/parametres HTTP/1.1\r\nHost: x\r\nX-Grand: ${'x'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['a URL over 16 KB', `GET /app/api/logement?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ['a broken request line', 'BONJOUR\r\n\r\n', 400, 'BAD_REQUEST'],
    ['an unknown better-auth path', 'GET /app/api/auth/nimporte-quoi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 404, 'NOT_FOUND'],
  ])('answers %s in the documented shape', async (_what, request, status, code) => {
    const res = await raw(request);
    expect(res.status).toBe(status);
    expect(JSON.parse(res.body)).toMatchObject({ error: { code } });
    expect(corpsErreurSchema.safeParse(JSON.parse(res.body)).success).toBe(true);
  });
});

describe('declared authorisation', () => {
  it('protects a route added to the managers’ scope without a check of its own', async () => {
    // A new app around the real guard and the real accounts of the test app.
    const app = Fastify();
    app.decorate('deps', ctx.app.deps);
    app.decorateRequest('compte', undefined);
    installErrorHandlers(app);
    await app.register(
      reserve('gestionnaire', async (scope) => {
        scope.get('/nouvelle-route', async () => ({ data: 'secret' }));
      }),
    );
    const anonymous = await app.inject({ method: 'GET', url: '/nouvelle-route' });
    expect(anonymous.statusCode).toBe(401);
    const resident = await app.inject({ method: 'GET', url: '/nouvelle-route', headers: { cookie: habitant.cookie } });
    expect(resident.statusCode).toBe(403);
    expect(resident.json().error.message).toBe('Accès réservé aux gestionnaires de la mairie annexe.');
    const allowed = await app.inject({ method: 'GET', url: '/nouvelle-route', headers: { cookie: manager.cookie } });
    expect(allowed.json()).toEqual({ data: 'secret' });
    await app.close();
  });

  it('tags every route with its access, and every non-public route refuses anonymous callers', async () => {
    const guarded = ctx.app.routeTable.filter((r) => r.config?.acces && r.config.acces !== 'public');
    expect(guarded.map((r) => r.url)).toEqual(expect.arrayContaining(['/app/api/logement/all', '/app/api/admin/users', '/app/api/user/me']));
    for (const route of guarded) {
      for (const method of (Array.isArray(route.method) ? route.method : [route.method]).filter((m) => m !== 'HEAD')) {
        const res = await send(method, fill(route.url), { headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
        expect(res.status, `${method} ${route.url}`).toBe(401);
      }
    }
  });
});

describe('the origin of state-changing requests with a session cookie', () => {
  /** Every row of every table, counted: a refused request changes nothing anywhere. */
  async function rowCounts(): Promise<Record<string, number>> {
    await ctx.app.deps.mailer.idle();
    const tables = await ctx.app.deps.db.introspection.getTables();
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const row = await ctx.app.deps.db
        .selectFrom(table.name as never)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      counts[table.name] = Number(row.n);
    }
    return counts;
  }

  const FOREIGN: [string, Record<string, string | undefined>][] = [
    ['Origin of another site', { origin: 'http://evil.example' }],
    ['Origin of a look-alike host', { origin: 'http://quartier.test.evil.example' }],
    ['Origin of another port of the host', { origin: 'http://quartier.test:8080' }],
    ['Origin: null', { origin: 'null' }],
    ['neither Origin nor Referer', { origin: undefined }],
    ['no Origin and a Referer of another site', { origin: undefined, referer: 'http://evil.example/page' }],
    ['no Origin and a look-alike Referer', { origin: undefined, referer: 'http://quartier.test.evil.example/' }],
  ];

  /** Every state-changing route, and a few of better-auth's behind its wildcard. */
  function writes(): { method: string; url: string }[] {
    return routes()
      .filter((r) => r.method !== 'GET')
      .flatMap((r) =>
        r.url.endsWith('/*')
          ? ['sign-out', 'change-password', 'revoke-sessions', 'change-email', 'delete-user'].map((p) => ({ method: r.method, url: r.url.replace('*', p) }))
          : [{ method: r.method, url: fill(r.url) }],
      );
  }

  const bodyFor = (url: string) =>
    url.endsWith('/role')
      ? { role: 'habitant' }
      : url.endsWith('/update/status')
        ? { logementId: numero, newStatus: 'Refusé' }
        : url.endsWith('/user/me')
          ? { nom: 'Pirate' }
          : url.includes('/auth/change-password')
            ? { currentPassword: 'une phrase de passe assez longue', newPassword: 'une autre phrase bien longue', revokeOtherSessions: true }
            : demande();

  it('refuses them with 403 ORIGIN_REFUSED in French, for a manager and an admin, on every route, changing nothing', async () => {
    const before = await rowCounts();
    let refused = 0;
    for (const who of [manager, admin]) {
      for (const route of writes()) {
        for (const [what, headers] of FOREIGN) {
          const res = await ctx.app.inject({
            method: route.method as 'POST',
            url: route.url,
            headers: { cookie: who.cookie, 'x-access-key': accessKey, ...headers },
            payload: bodyFor(route.url),
          });
          const label = `${who.prenom}: ${route.method} ${route.url} with ${what}`;
          expect(res.statusCode, label).toBe(403);
          expect(res.json(), label).toEqual({
            error: { code: 'ORIGIN_REFUSED', message: 'Requête refusée : elle ne vient pas du site Quartier Vivant. Rechargez la page puis réessayez.' },
          });
          refused += 1;
        }
      }
    }
    expect(refused).toBeGreaterThan(100);
    expect(await rowCounts()).toEqual(before);
    // The cookies still work: nothing was signed out.
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/user/me', headers: { cookie: admin.cookie } })).statusCode).toBe(200);
  });

  it('lets them through from the site’s own pages (Origin, or Referer when Origin is absent), and leaves requests without the cookie alone', async () => {
    for (const route of writes().filter((r) => !/sign-out|revoke-sessions|delete-user|change-password|\/role$/u.test(r.url) && !erases(r))) {
      for (const headers of [{ origin }, { origin: undefined, referer: `${origin}/gestion/demandes` }]) {
        const res = await ctx.app.inject({ method: route.method as 'POST', url: route.url, headers: { cookie: manager.cookie, ...headers }, payload: {} });
        expect(res.statusCode === 403 && res.json().error.code === 'ORIGIN_REFUSED', `${route.method} ${route.url}`).toBe(false);
      }
    }
    // Without a cookie, the origin does not matter (the private key travels in a header no other site can set).
    const anonymous = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', headers: { origin: 'http://evil.example' }, payload: demande() });
    expect(anonymous.statusCode).toBe(201);
    // A change of status from the site itself goes through.
    const status = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/logement/update/status',
      headers: { cookie: manager.cookie, origin },
      payload: { logementId: numero, newStatus: 'En cours de traitement' },
    });
    expect(status.statusCode).toBe(200);
  });
});

/**
 * Reviewed exceptions to "no cache keeps an API answer" (docs/security.md): the same bytes whoever asks,
 * no personal data.
 * - /parametres, /territoire: the app's settings and the street list;
 * - /informations-legales: the publisher and the retention periods (test/informations.test.ts);
 * - /user/pic/:uid: a profile picture, shown by the public profile to whom its owner chose, so kept by the
 *   browser only (`private`, never a shared cache), each version under its own URL.
 */
const CACHE_ALLOWED: Record<string, RegExp> = {
  '/app/api/parametres': /^public, max-age=\d+$/u,
  '/app/api/territoire': /^public, max-age=\d+$/u,
  '/app/api/informations-legales': /^public, max-age=\d+$/u,
  '/app/api/user/pic/:uid': /^private, (no-cache|no-store|max-age=\d+, immutable)$/u,
};

describe('caching', () => {
  it('keeps no answer of any GET route of the API in a cache, whoever asks, but the reviewed exceptions', async () => {
    let personal = 0;
    const callers = [
      ['anonymous', {}],
      ['resident', { cookie: habitant.cookie }],
      ['manager with the key', { cookie: manager.cookie, 'x-access-key': accessKey }],
      ['admin', { cookie: admin.cookie }],
    ] as const;
    for (const route of routes().filter((r) => r.method === 'GET')) {
      for (const [label, headers] of callers) {
        const url = route.url === '/app/api/evenements' ? `${fill(route.url)}?numero=${numero}` : fill(route.url);
        const res = await fetch(`${base}${url}`, { headers: { ...headers }, redirect: 'manual' });
        const cacheControl = res.headers.get('cache-control') ?? '';
        const allowed = CACHE_ALLOWED[route.url];
        if (allowed) expect(cacheControl, `${label}: GET ${url}`).toMatch(allowed);
        else expect(cacheControl, `${label}: GET ${url} (${res.status})`).toMatch(/(^|[ ,])no-store([ ,]|$)/u);
        if (!allowed && res.status === 200) personal += 1;
        await res.body?.cancel();
      }
    }
    // Real answers were checked, not only refusals.
    expect(personal).toBeGreaterThan(15);
  });

  it('gives the public exceptions the same bytes whoever asks, with no personal data (pictures: browser cache only, above)', async () => {
    const personalData = [manager.email, admin.email, habitant.email, numero, accessKey, 'Hélène', 'Martin', 'Mairie'];
    for (const url of ['/app/api/parametres', '/app/api/territoire']) {
      const answers = [];
      for (const headers of [{}, { cookie: manager.cookie }, { cookie: habitant.cookie }]) {
        const res = await ctx.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['set-cookie'], url).toBeUndefined();
        answers.push(res.rawPayload);
      }
      expect(answers[1]!.equals(answers[0]!), url).toBe(true);
      expect(answers[2]!.equals(answers[0]!), url).toBe(true);
      const text = answers[0]!.toString('latin1');
      for (const data of personalData) expect(text.includes(data), `${url} holds ${data}`).toBe(false);
    }
  });
});
