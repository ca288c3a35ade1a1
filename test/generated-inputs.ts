/**
 * Hostile inputs generated from the app's own route table, shared by test/routes.test.ts (a small seed in
 * CI) and bench/fuzz.ts (10,000 and more): bad path parameters, queries, bodies, content types and headers,
 * NULs, huge values, for every caller. The verdict is the same everywhere: never a 5xx, and every error in
 * the documented shape `{ error: { code, message } }`, without a framework's internals.
 */
import type { FastifyInstance } from 'fastify';
import { corpsErreurSchema } from '../src/domain/corpsErreur.js';

export interface RouteCase {
  method: string;
  url: string;
}

/** Every API route of the app and method (HEAD apart: Fastify answers it as the GET). */
export function apiRoutes(app: FastifyInstance): RouteCase[] {
  return app.routeTable
    .filter((r) => r.url.startsWith('/app/api'))
    .flatMap((r) => (Array.isArray(r.method) ? r.method : [r.method]).filter((m) => m !== 'HEAD').map((method) => ({ method, url: r.url })));
}

/** The names of a route's path parameters (`*` for a wildcard). */
export function paramNames(url: string): string[] {
  return [...url.matchAll(/:([A-Za-z]+)|\*/gu)].map((m) => m[1] ?? '*');
}

/** The route's URL with its parameters filled with good values, one of them possibly overridden. */
export function fill(url: string, good: Record<string, () => string>, override?: [string, string]): string {
  return url.replace(/:([A-Za-z]+)|\*/gu, (_whole, name: string | undefined) => {
    const key = name ?? '*';
    if (override && override[0] === key) return override[1];
    return good[key]?.() ?? 'x';
  });
}

export const BAD_PARAMS = ['', ' ', 'x'.repeat(65), 'x'.repeat(99), '%00', 'a%00b', '%E0%A4%A', '%C3%A9t%C3%A9', '..%2F..%2Fetc%2Fpasswd', '%22%3Cscript%3E', '013%20ABC%20123'];

export const BAD_QUERIES = [
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
export const BAD_BODIES: { name: string; type?: string; body: string }[] = [
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
  {
    name: 'NUL in a field',
    type: 'application/json',
    body: JSON.stringify({ numeroUnique: '013abcdef0123', prenom: 'a', nom: 'a\u0000b', email: 'a\u0000@b.fr', motivations: 'x', logementId: 'a\u0000', role: 'habitant\u0000' }),
  },
  { name: 'NUL in a key', type: 'application/json', body: '{"a\\u0000b":1}' },
  { name: 'plain text', type: 'text/plain', body: 'bonjour' },
  { name: 'multipart without boundary', type: 'multipart/form-data', body: 'xx' },
  {
    name: 'truncated multipart',
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="livret"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 tronqu`,
  },
  {
    name: 'file part without filename',
    type: `multipart/form-data; boundary=${BOUNDARY}`,
    body: `--${BOUNDARY}\r\nContent-Disposition: form-data; name="livret"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\r\n--${BOUNDARY}--\r\n`,
  },
  { name: 'malformed part header', type: `multipart/form-data; boundary=${BOUNDARY}`, body: `--${BOUNDARY}\r\nnot a header\r\n\r\nx\r\n--${BOUNDARY}--\r\n` },
];

export interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** One request over real HTTP (what a client can really send), with a 10 s bound. */
export async function send(base: string, method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
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

/** What is wrong with an answer to a hostile request, or null: below 500, errors in the documented shape. */
export function problemWith(answer: Answer): string | null {
  if (answer.status >= 500) return `${answer.status} ${answer.body.slice(0, 300)}`;
  if (answer.status < 400) return null;
  if (!answer.contentType.startsWith('application/json')) return `error answered as ${answer.contentType}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `error body is not JSON: ${answer.body.slice(0, 200)}`;
  }
  const shape = corpsErreurSchema.safeParse(parsed);
  if (!shape.success || shape.data.error.message.length === 0) return `error body not in the documented shape: ${answer.body.slice(0, 200)}`;
  if (/FST_|at .*\.js:\d+|statusCode/u.test(answer.body)) return `error body shows internals: ${answer.body.slice(0, 200)}`;
  return null;
}

// ---------------------------------------------------------------------------------------------------
// Generated cases

/** A small deterministic generator (mulberry32): the same seed gives the same cases. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

/** Hostile strings: empty, long, huge, unicode, NUL, injections, numbers, prototype keys. */
const STRINGS = [
  '',
  ' ',
  '0',
  '-1',
  '1e400',
  'NaN',
  'null',
  'true',
  'x'.repeat(65),
  'x'.repeat(1000),
  'é'.repeat(3000),
  '👩‍👩‍👧‍👦'.repeat(50),
  '\u202Eevil\u200B',
  "' OR 1=1 --",
  '"; DROP TABLE housing_requests; --',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '__proto__',
  'constructor',
  '013ABC123456',
  'a@b',
  'Refusé',
  'admin',
];
const FIELDS = [
  'numeroUnique',
  'prenom',
  'nom',
  'email',
  'motivations',
  'logementId',
  'newStatus',
  'motif',
  'role',
  'password',
  'newPassword',
  'currentPassword',
  'token',
  'birthday',
  'gender',
  'rue',
  'residence',
  'ville',
  'quartier',
  'nombreDEnfants',
  'typeDeLogementSouhaite',
  'quartierSouhaite',
  'image',
  'name',
  'callbackURL',
  'inviterUid',
  '__proto__',
];
const QUERY_KEYS = ['q', 'page', 'pageSize', 'sort', 'order', 'status', 'numero', 'download', 'v', 'limit', 'token', 'callbackURL', 'x'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'application/x-www-form-urlencoded',
  'text/plain',
  'text/html',
  'application/xml',
  'multipart/form-data',
  `multipart/form-data; boundary=${'b'.repeat(200)}`,
  'application/octet-stream',
  'image/png',
  'application/pdf',
  '*/*',
  ';;;',
];

function hostileString(r: () => number): string {
  const roll = r();
  if (roll < 0.7) return pick(r, STRINGS);
  if (roll < 0.8) return 'a\u0000b';
  if (roll < 0.9) return 'x'.repeat(pick(r, [100_000, 20_000, 5_000]));
  return Array.from({ length: 1 + Math.floor(r() * 40) }, () => String.fromCharCode(1 + Math.floor(r() * 0x2fff))).join('');
}

function hostileValue(r: () => number, depth = 0): unknown {
  const roll = r();
  if (roll < 0.45) return hostileString(r);
  if (roll < 0.55) return pick(r, [0, -1, 1.5, 1e308, -0, 2 ** 53 + 1]);
  if (roll < 0.62) return pick(r, [true, false, null]);
  if (roll < 0.75 && depth < 3) return Array.from({ length: Math.floor(r() * 4) }, () => hostileValue(r, depth + 1));
  if (depth < 3) return hostileObject(r, depth + 1);
  return hostileString(r);
}

function hostileObject(r: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(r() * 8);
  for (let i = 0; i < n; i++) out[r() < 0.9 ? pick(r, FIELDS) : hostileString(r).slice(0, 50)] = hostileValue(r, depth);
  return out;
}

function encodePiece(r: () => number, s: string): string {
  // Mostly encoded as a browser would; sometimes as is (invalid sequences, raw characters).
  return r() < 0.8 ? encodeURIComponent(s) : s.replace(/[\s#?]/gu, (c) => encodeURIComponent(c));
}

export interface Caller {
  label: string;
  headers: Record<string, string>;
}

export interface GeneratedCase {
  label: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Only header values a client can send (no control characters): fetch refuses the others itself. */
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e]/gu, '?').slice(0, 8000);

/**
 * `count` hostile requests across the route table and the callers, from `seed`: each takes a route
 * and a caller and spoils one or more of its path parameters, query, body, content type and headers.
 */
export function generateCases(options: { routes: RouteCase[]; callers: Caller[]; good: Record<string, () => string>; seed: number; count: number }): GeneratedCase[] {
  const r = random(options.seed);
  const cases: GeneratedCase[] = [];
  for (let i = 0; i < options.count; i++) {
    const route = pick(r, options.routes);
    const caller = pick(r, options.callers);
    const names = paramNames(route.url);
    const headers: Record<string, string> = { ...caller.headers };
    const spoiled: string[] = [];
    // Path parameters.
    let override: [string, string] | undefined;
    if (names.length > 0 && r() < 0.4) {
      const name = pick(r, names);
      override = [name, r() < 0.5 ? pick(r, BAD_PARAMS) : encodePiece(r, hostileString(r).slice(0, 300))];
      spoiled.push(`param ${name}`);
    }
    let url = fill(route.url, options.good, override);
    // Query.
    if (r() < 0.4) {
      const query =
        r() < 0.3
          ? pick(r, BAD_QUERIES)
          : Array.from({ length: 1 + Math.floor(r() * 3) }, () => `${encodePiece(r, pick(r, QUERY_KEYS))}=${encodePiece(r, hostileString(r))}`).join('&');
      url += `?${query}`;
      spoiled.push('query');
    }
    // Body and content type.
    let body: string | undefined;
    if (route.method !== 'GET' && r() < 0.8) {
      const roll = r();
      if (roll < 0.3) {
        const bad = pick(r, BAD_BODIES);
        body = bad.body;
        if (bad.type) headers['content-type'] = bad.type;
      } else if (roll < 0.8) {
        body = JSON.stringify(r() < 0.8 ? hostileObject(r) : hostileValue(r));
        headers['content-type'] = r() < 0.85 ? 'application/json' : pick(r, CONTENT_TYPES);
      } else {
        body = hostileString(r);
        headers['content-type'] = pick(r, CONTENT_TYPES);
      }
      spoiled.push('body');
    }
    // Headers.
    if (r() < 0.3) {
      const roll = r();
      if (roll < 0.25) headers['x-access-key'] = headerSafe(hostileString(r)) || 'x';
      else if (roll < 0.45) headers.cookie = `qv.session_token=${headerSafe(hostileString(r))}`;
      else if (roll < 0.6) headers.origin = pick(r, ['null', 'http://evil.example', 'http://quartier.test.evil.example', '']);
      else if (roll < 0.7) headers.accept = pick(r, ['text/event-stream', '*/*;q=x', 'application/json, text/html']);
      else if (roll < 0.8) headers.range = pick(r, ['bytes=0-1', 'bytes=-1', 'bytes=99999999-', 'bytes=a-b']);
      else if (roll < 0.9) headers['x-forwarded-for'] = pick(r, ['6.6.6.6', 'not an ip', '::1, 10.0.0.1']);
      else headers['if-none-match'] = headerSafe(hostileString(r)) || '*';
      spoiled.push('header');
    }
    cases.push({ label: `${caller.label}: ${route.method} ${url.slice(0, 120)} (${spoiled.join(', ') || 'as is'})`, method: route.method, url, headers, body });
  }
  return cases;
}
