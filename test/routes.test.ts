import { randomUUID } from 'node:crypto';
import net from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpsErreurSchema } from '../src/domain/corpsErreur.js';
import { reserve } from '../src/server/auth/guards.js';
import { installErrorHandlers } from '../src/server/errors.js';
import { createAccount, createTestApp, demande, type TestContext } from './helpers.js';

/**
 * Walks the app's own route table (so a route added tomorrow is covered without writing anything) and
 * sends every route bad path parameters, bad queries and bad bodies, anonymously and as a manager
 * holding the request's key: every answer is below 500, and every error is in the documented shape.
 */
let ctx: TestContext;
let base: string;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let numero: string;
let accessKey: string;

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager');
  habitant = await createAccount(ctx, 'habitant');
  const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() });
  ({ numeroUnique: numero, accessKey } = created.json().data);
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await ctx.close();
});

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

async function send(method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 5000);
  try {
    const res = await fetch(`${base}${url}`, { method, headers: init.headers, body: init.body, redirect: 'manual', signal: controller.signal });
    const contentType = res.headers.get('content-type') ?? '';
    // A live-event stream never ends: its headers are the answer.
    const body = contentType.startsWith('text/event-stream') ? '' : await res.text();
    return { status: res.status, contentType, body };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

function expectDocumented(answer: Answer, what: string): void {
  expect(answer.status, `${what} → ${answer.status} ${answer.body.slice(0, 300)}`).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(answer.contentType, what).toMatch(/^application\/json/u);
  const parsed = corpsErreurSchema.safeParse(JSON.parse(answer.body));
  expect(parsed.success, `${what}: ${answer.body}`).toBe(true);
  expect(parsed.data!.error.message.length, what).toBeGreaterThan(0);
  // Never a framework's internals or a stack trace.
  expect(answer.body, what).not.toMatch(/FST_|at .*\.js:\d+|statusCode/u);
}

const GOOD_PARAMS: Record<string, () => string> = {
  numeroUnique: () => numero,
  id: () => randomUUID(),
  uid: () => manager.uid,
  slug: () => 'jas-de-bouffan',
  '*': () => 'get-session',
};
const BAD_PARAMS = ['', ' ', 'x'.repeat(65), 'x'.repeat(99), '%00', 'a%00b', '%E0%A4%A', '%C3%A9t%C3%A9', '..%2F..%2Fetc%2Fpasswd', '%22%3Cscript%3E', '013%20ABC%20123'];
const BAD_QUERIES = [
  'q=a&q=b',
  'page=0',
  'page=abc',
  'page=1e400',
  'pageSize=7',
  'sort=motdepasse',
  'status=a&status=b',
  'numero=' + 'x'.repeat(65),
  'numero=a&numero=b',
  'numero=',
  'x=%00',
  'q=a%00b',
  'download=2',
  'v=' + 'x'.repeat(100),
  'limit=abc',
  'q[]=a',
  'q=' + 'é'.repeat(500),
];
const BOUNDARY = '----qvboundary';
const BAD_BODIES: { name: string; type?: string; body: string }[] = [
  { name: 'invalid JSON', type: 'application/json', body: '{"a":' },
  { name: 'JSON array', type: 'application/json', body: '[1,2]' },
  { name: 'JSON string', type: 'application/json', body: '"texte"' },
  { name: 'JSON null', type: 'application/json', body: 'null' },
  { name: 'empty JSON', type: 'application/json', body: '' },
  {
    name: 'wrong types',
    type: 'application/json',
    body: JSON.stringify({ numeroUnique: {}, prenom: 1, email: [], motivations: true, logementId: 5, newStatus: null, role: 'roi', nom: ['x'], password: 1, quartierSouhaite: 'x', nombreDEnfants: 'beaucoup' }),
  },
  { name: 'NUL in a field', type: 'application/json', body: JSON.stringify({ ...demande(), nom: 'a\u0000b', logementId: 'a\u0000', email: 'a\u0000@b.fr', role: 'habitant\u0000' }) },
  { name: 'NUL in a key', type: 'application/json', body: '{"a\\u0000b":1}' },
  { name: 'plain text', type: 'text/plain', body: 'bonjour' },
  { name: 'multipart without boundary', type: 'multipart/form-data', body: 'xx' },
  { name: 'truncated multipart', type: `multipart/form-data; boundary=${BOUNDARY}`, body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="livret"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 tronqu` },
  { name: 'file part without filename', type: `multipart/form-data; boundary=${BOUNDARY}`, body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="livret"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--${BOUNDARY}--\r\n` },
  { name: 'malformed part header', type: `multipart/form-data; boundary=${BOUNDARY}`, body: `--${BOUNDARY}\r\nnot a header\r\n\r\nx\r\n--${BOUNDARY}--\r\n` },
];

function routes() {
  return ctx.app.routeTable
    .filter((r) => r.url.startsWith('/app/api'))
    .flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]).filter((m) => m !== 'HEAD').map((method) => ({ method, url: r.url })));
}

function fill(url: string, override?: [string, string]): string {
  return url.replace(/:([A-Za-z]+)|\*/gu, (whole, name: string | undefined) => {
    const key = name ?? '*';
    if (override && override[0] === key) return override[1];
    return GOOD_PARAMS[key]?.() ?? 'x';
  });
}

describe('the route table', () => {
  it('holds every route of the API', () => {
    const table = routes().map((r) => `${r.method} ${r.url}`);
    expect(table.length).toBeGreaterThan(25);
    expect(table).toEqual(expect.arrayContaining(['POST /app/api/logement', 'GET /app/api/logement/:numeroUnique', 'POST /app/api/logement/update/status', 'GET /app/api/evenements']));
  });

  const who = () => [
    ['anonymous', {}],
    ['manager with the key', { cookie: manager.cookie, 'x-access-key': accessKey }],
  ] as const;

  it('answers bad path parameters with a documented 4xx, never a 5xx', async () => {
    let sent = 0;
    for (const route of routes()) {
      const names = [...route.url.matchAll(/:([A-Za-z]+)|\*/gu)].map((m) => m[1] ?? '*');
      for (const name of names) {
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

  it('answers bad queries with a documented 4xx, never a 5xx', async () => {
    for (const route of routes()) {
      for (const query of BAD_QUERIES) {
        for (const [label, headers] of who()) {
          const url = `${fill(route.url)}?${query}`;
          expectDocumented(await send(route.method, url, { headers: { ...headers } }), `${label}: ${route.method} ${url}`);
        }
      }
    }
  });

  it('answers bad bodies with a documented 4xx, never a 5xx, and stores nothing', async () => {
    const before = await ctx.app.deps.db.selectFrom('housingRequests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const route of routes().filter((r) => r.method !== 'GET')) {
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

describe('caching', () => {
  it('keeps no answer of the API in a cache unless the route says so', async () => {
    for (const [url, headers] of [
      [`/app/api/logement/${numero}`, { 'x-access-key': accessKey }],
      ['/app/api/user/me', { cookie: manager.cookie }],
      ['/app/api/logement?q=martin', { cookie: manager.cookie }],
      ['/app/api/logement/nimportequoi000', {}],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { ...headers } });
      expect(res.headers['cache-control'], url).toBe('private, no-store');
    }
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/parametres' })).headers['cache-control']).toBe('public, max-age=300');
  });
});
