import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, surUnPort, type TestContext } from './helpers.js';

// Live-event streams stay open, so these tests talk to a listening server over real sockets. Linux
// routes all of 127.0.0.0/8 to the loopback: binding the client side to 127.0.0.2, .3… gives the server
// distinct client addresses without any proxy header.
let ctx: TestContext;
let port: number;
let manager: { cookie: string };
const open: Stream[] = [];

beforeAll(async () => {
  ctx = await createTestApp({ SSE_MAX_CONNEXIONS: '3', SSE_MAX_PAR_IP: '2' });
  port = (await surUnPort(ctx.app)).port;
  manager = await createAccount(ctx, 'manager');
  for (const numeroUnique of ['013sse000001', '013sse000002']) {
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique }) });
    expect(res.statusCode).toBe(201);
  }
});
afterAll(async () => {
  for (const s of open) s.close();
  await ctx.close();
});

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body read so far (the whole body for an error answer). */
  text: string;
  close(): void;
}

/** Opens GET /evenements from a given client address; resolves once the stream has begun (or the error body is read). */
function stream(from: string, query = '?numero=013sse000001', cookie?: string): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, localAddress: from, path: `/app/api/evenements${query}`, headers: cookie ? { cookie } : {} },
      (res) => {
        const s: Stream = { status: res.statusCode!, headers: res.headers, text: '', close: () => req.destroy() };
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          s.text += chunk;
          if (s.status === 200 && s.text.includes('retry:')) {
            open.push(s);
            resolve(s);
          }
        });
        res.on('end', () => resolve(s));
        res.on('error', () => undefined);
      },
    );
    req.on('error', reject);
  });
}

/** Retries until the server has noticed a closed stream and gives its place back (at most 2 s). */
async function eventually(from: string, query?: string): Promise<Stream> {
  for (let i = 0; ; i += 1) {
    const s = await stream(from, query);
    if (s.status !== 429 || i === 40) return s;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function create(numeroUnique: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/app/api/logement`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(demande({ numeroUnique })),
  });
  return res.status;
}

describe('GET /evenements limits', () => {
  it('answers 404 in French for a numéro that does not exist, and holds no stream for it', async () => {
    for (let i = 0; i < 5; i += 1) {
      const s = await stream('127.0.0.9', '?numero=013inconnu001');
      expect(s.status).toBe(404);
      expect(s.headers['content-type']).toMatch(/^application\/json/u);
      expect(JSON.parse(s.text).error).toEqual({ code: 'NOT_FOUND', message: "Il n’existe pas de demande de logement pour ce numéro unique" });
    }
    // Had the five refused calls held a place, this address (2 per IP) would be refused now.
    const a = await stream('127.0.0.9');
    const b = await stream('127.0.0.9', '?numero=013sse000002');
    expect([a.status, b.status]).toEqual([200, 200]);
    a.close();
    b.close();
  });

  it('refuses the stream past the per-address cap with 429 in French and Retry-After, and takes one again once a stream is closed', async () => {
    const first = await stream('127.0.0.2');
    // The managers' all-requests stream counts too.
    const second = await stream('127.0.0.2', '', manager.cookie);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await stream('127.0.0.2', '?numero=013sse000002');
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('30');
    const body = JSON.parse(third.text);
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.message).toMatch(/^Trop de suivis en direct sont ouverts depuis votre adresse\./u);

    first.close();
    const again = await eventually('127.0.0.2', '?numero=013sse000002');
    expect(again.status).toBe(200);
    second.close();
    again.close();
  });

  it('refuses every address once the total cap is reached, keeps creating requests, and frees the places when streams end', async () => {
    const held = [await eventually('127.0.0.3'), await eventually('127.0.0.3', '?numero=013sse000002'), await eventually('127.0.0.4')];
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    const refused = await stream('127.0.0.5');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(JSON.parse(refused.text).error).toMatchObject({ code: 'RATE_LIMITED', message: expect.stringMatching(/^Le suivi en direct est complet pour le moment\./u) });
    // A full stream cap takes nothing from the rest of the site.
    expect(await create('013sse000003')).toBe(201);
    expect(await create('013sse000004')).toBe(201);

    for (const s of held) s.close();
    const after = [await eventually('127.0.0.5'), await eventually('127.0.0.6'), await eventually('127.0.0.6', '?numero=013sse000003')];
    expect(after.map((s) => s.status)).toEqual([200, 200, 200]);
    for (const s of after) s.close();
  });
});
