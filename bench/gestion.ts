// Benchmarks of the managers' workspace (issue 5). Prints figures; asserts nothing.
//   npm run build && npx tsx bench/gestion.ts                          SQLite (default)
//   npm run build && DATABASE_URL=postgres://… npx tsx bench/gestion.ts  PostgreSQL
// 100,000 generated requests are written straight into a fresh database, then:
// 1. GET /app/api/logement (the managers' list): p50/p95 of a search, three sorts and the last page,
//    sequential requests after a warm-up (target p95 <= 50 ms). On PostgreSQL twice: as seeded (no
//    planner statistics) and after VACUUM ANALYZE (what autovacuum does in a running installation).
// 2. A status change (POST /app/api/logement/update/status) until its SSE event arrives on
//    GET /app/api/evenements served by another server instance (PostgreSQL, LISTEN/NOTIFY); on SQLite
//    events cannot cross processes, so the same instance is measured (target p95 <= 200 ms).
// 3. GET /app/api/logement/export.csv of every row: time, bytes, server peak RSS growth sampled every
//    5 ms from a worker thread (target <= 50 MB).
// Ports: the first two free ones in 3950-3960 (BENCH_PORT moves the range). Loopback only.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from '../test/db.js';
import { generatedRequest, seedRequests } from './seed.js';
import type { ChildProcess } from 'node:child_process';
import { freePorts, rssKb, rssSampler, startServer, stopServer, waitFor } from './server.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000);
const WARMUP = 5;
const SAMPLES = 50;
const CHANGES = 30;

// ---------------------------------------------------------------------------------------------------
// Figures

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

function summary(values: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN };
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

// ---------------------------------------------------------------------------------------------------
// Manager account

async function signUpManager(base: string, databaseUrl: string | undefined, dataDir: string): Promise<string> {
  const email = `gestion.bench.${randomBytes(3).toString('hex')}@example.org`;
  const res = await fetch(`${base}/app/api/user/inscription`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      nom: 'Bench',
      prenom: 'Gestion',
      birthday: '1980-01-01',
      residence: 'Mairie',
      rue: 'Avenue Marcel-Pagnol',
      email,
      password: 'une phrase de passe assez longue',
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`sign-up failed: HTTP ${res.status} ${text}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .filter((c) => c.startsWith('qv.session_token='))
    .join('; ');
  if (!cookie) throw new Error('sign-up returned no qv.session_token cookie');
  const { db } = openDatabase({ databaseUrl, dataDir });
  await db.updateTable('user').set({ userType: 'manager' }).where('email', '=', email).execute();
  await db.destroy();
  return cookie;
}

// ---------------------------------------------------------------------------------------------------
// 1. The list

interface ListReply {
  data: unknown[];
  total: number;
}

async function listLatencies(base: string, cookie: string, state: string): Promise<void> {
  const first = await fetch(`${base}/app/api/logement?pageSize=10`, { headers: { cookie } });
  if (first.status !== 200) throw new Error(`list as manager: HTTP ${first.status} ${await first.text()}`);
  const { total } = (await first.json()) as ListReply;
  const lastPage = Math.max(1, Math.ceil(total / 10));
  const cases: [string, string][] = [
    ['search q=helene', 'q=helene'],
    ['sort nom asc', 'sort=nom&order=asc'],
    ['sort prenom desc', 'sort=prenom&order=desc'],
    ['sort statut asc', 'sort=statutDeLaDemande&order=asc'],
    [`last page (${lastPage})`, `page=${lastPage}&pageSize=10`],
  ];
  console.log(`GET /app/api/logement (manager's list, ${total} requests${state}; ${WARMUP} warm-up then ${SAMPLES} sequential requests each; target p95 <= 50 ms)`);
  for (const [label, query] of cases) {
    const url = `${base}/app/api/logement?${query}`;
    const times: number[] = [];
    let errors = 0;
    let matched = 0;
    let rows = 0;
    let bytes = 0;
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      const started = performance.now();
      const res = await fetch(url, { headers: { cookie } });
      const body = await res.arrayBuffer();
      const elapsed = performance.now() - started;
      if (i < WARMUP) continue;
      times.push(elapsed);
      if (res.status !== 200) {
        errors += 1;
        continue;
      }
      const parsed = JSON.parse(Buffer.from(body).toString('utf8')) as ListReply;
      matched = parsed.total;
      rows = parsed.data.length;
      bytes = body.byteLength;
    }
    const s = summary(times);
    console.log(
      `  ${label.padEnd(22)} p50 ${ms(s.p50).padStart(9)}  p95 ${ms(s.p95).padStart(9)}  max ${ms(s.max).padStart(9)}  ` +
        `(${matched} matching, ${rows} rows, ${bytes} bytes${errors ? `, ${errors} errors` : ''})  p95 target ${verdict(s.p95 <= 50)}`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// 2. Status change -> SSE event

interface Waiter {
  numero: string;
  statut: string;
  resolve(at: number): void;
}

/** An open SSE stream: waitFor(numero, statut) resolves with performance.now() at the event's arrival. */
async function openEvents(base: string, cookie: string) {
  const controller = new AbortController();
  const res = await fetch(`${base}/app/api/evenements`, { headers: { cookie, accept: 'text/event-stream' }, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`SSE on ${base}: HTTP ${res.status}`);
  const waiters = new Set<Waiter>();
  let received = 0;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let opened!: () => void;
  const ready = new Promise<void>((r) => (opened = r));
  const pump = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        const at = performance.now();
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (block.startsWith('retry:')) opened();
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (!data) continue;
          received += 1;
          const event = JSON.parse(data) as { numeroUnique: string; statutDeLaDemande: string };
          for (const w of waiters) {
            if (w.numero === event.numeroUnique && w.statut === event.statutDeLaDemande) {
              waiters.delete(w);
              w.resolve(at);
            }
          }
        }
      }
    } catch {
      /* aborted */
    }
  })();
  await ready;
  return {
    get received() {
      return received;
    },
    waitFor(numero: string, statut: string, timeoutMs = 5_000): Promise<number | null> {
      return new Promise((resolve) => {
        const w: Waiter = {
          numero,
          statut,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          resolve(null);
        }, timeoutMs);
        waiters.add(w);
      });
    },
    async close() {
      controller.abort();
      await pump;
    },
  };
}

async function eventLatencies(writer: string, listeners: { label: string; base: string }[], cookie: string, note: string): Promise<void> {
  const n = Math.min(4242, Math.floor(REQUESTS / 2));
  const numero = generatedRequest(n).numeroUnique;
  const seeded = generatedRequest(n).statutDeLaDemande;
  // Alternate between the two statuses, starting with the one the request is not in (a no-op sends nothing).
  const pair = seeded === 'En attente' ? ['Passage CAL', 'En attente'] : ['En attente', 'Passage CAL'];
  const streams = await Promise.all(listeners.map((l) => openEvents(l.base, cookie)));
  const arrivals: number[][] = listeners.map(() => []);
  const posts: number[] = [];
  let missed = 0;
  let failed = 0;
  try {
    for (let i = 0; i < CHANGES; i += 1) {
      const statut = pair[i % 2]!;
      const waits = streams.map((s) => s.waitFor(numero, statut));
      const started = performance.now();
      const res = await fetch(`${writer}/app/api/logement/update/status`, {
        method: 'POST',
        headers: { cookie, origin: writer, 'content-type': 'application/json' },
        body: JSON.stringify({ logementId: numero, newStatus: statut }),
      });
      const answer = await res.text();
      posts.push(performance.now() - started);
      if (res.status !== 200) {
        failed += 1;
        if (failed === 1) console.log(`  update/status answered HTTP ${res.status}: ${answer.slice(0, 200)}`);
        continue;
      }
      const got = await Promise.all(waits);
      got.forEach((at, k) => {
        if (at === null) missed += 1;
        else arrivals[k]!.push(at - started);
      });
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await Promise.all(streams.map((s) => s.close()));
  }
  console.log(`status change -> SSE event (${CHANGES} changes of ${numero}, ${pair.join(' / ')}; target p95 <= 200 ms)`);
  console.log(`  ${note}`);
  const p = summary(posts);
  console.log(`  POST update/status response  p50 ${ms(p.p50)}  p95 ${ms(p.p95)}  max ${ms(p.max)}${failed ? `  (${failed} non-200)` : ''}`);
  listeners.forEach((l, k) => {
    const s = summary(arrivals[k]!);
    console.log(
      `  event on ${l.label.padEnd(24)} p50 ${ms(s.p50)}  p95 ${ms(s.p95)}  max ${ms(s.max)}  (${arrivals[k]!.length}/${CHANGES} arrived)  p95 target ${verdict(s.p95 <= 200 && arrivals[k]!.length === CHANGES)}`,
    );
  });
  if (missed) console.log(`  ${missed} events did not arrive within 5 s`);
}

// ---------------------------------------------------------------------------------------------------
// 3. CSV export

async function csvExport(base: string, cookie: string, pid: number): Promise<void> {
  await new Promise((r) => setTimeout(r, 1_000));
  const before = rssKb(pid);
  const sampler = rssSampler(pid);
  const started = performance.now();
  const res = await fetch(`${base}/app/api/logement/export.csv`, { headers: { cookie } });
  let firstByte = NaN;
  let bytes = 0;
  let lines = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (Number.isNaN(firstByte)) firstByte = performance.now() - started;
      bytes += value.byteLength;
      for (let i = value.indexOf(10); i >= 0; i = value.indexOf(10, i + 1)) lines += 1;
    }
  }
  const elapsed = performance.now() - started;
  const { peakKb, samples } = await sampler.stop();
  const growthMb = (Math.max(peakKb, before) - before) / 1024;
  console.log(`GET /app/api/logement/export.csv (every request; target peak RSS growth <= 50 MB)`);
  console.log(
    `  HTTP ${res.status}, ${(bytes / 1024 / 1024).toFixed(1)} MB (${bytes} bytes, ${lines} lines incl. header) in ${(elapsed / 1000).toFixed(2)} s, first byte after ${ms(firstByte)}`,
  );
  console.log(
    `  server RSS ${(before / 1024).toFixed(1)} MB before, peak ${(peakKb / 1024).toFixed(1)} MB, growth ${growthMb.toFixed(1)} MB (${samples} samples)  target ${verdict(growthMb <= 50)}`,
  );
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-bench-gestion-'));
  const database = await freshDatabaseUrl('qv_bench');
  const kind = database.url ? 'PostgreSQL' : 'SQLite';
  const servers: ChildProcess[] = [];
  try {
    const { db } = openDatabase({ databaseUrl: database.url, dataDir });
    await migrate(db);
    const seconds = await seedRequests(db, REQUESTS);
    await db.destroy();
    console.log(`database: ${kind}, ${REQUESTS} requests seeded in ${seconds.toFixed(1)} s`);

    const ports = await freePorts(database.url ? 2 : 1);
    const env = {
      DATA_DIR: dataDir,
      ADRESSE_API_URL: 'http://127.0.0.1:9/',
      RATE_LIMIT_MULTIPLIER: '1000',
      // Both instances sign and read the same sessions.
      AUTH_SECRET: randomBytes(36).toString('base64url'),
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    };
    const bases = ports.map((p) => `http://127.0.0.1:${p}`);
    // One after the other: each start runs the (already applied) migrations.
    for (const port of ports) {
      const server = startServer({ ...env, PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
      servers.push(server);
      await waitFor(`http://127.0.0.1:${port}/app/api/logement/013000000`, server);
    }
    const [a, b] = bases as [string, string | undefined];
    const cookie = await signUpManager(a, database.url, dataDir);

    if (database.url) {
      // This bench's PostgreSQL may run without autovacuum: measure the freshly seeded table (no planner
      // statistics), then again after the VACUUM ANALYZE that autovacuum would soon have run.
      const { db: pgDb } = openDatabase({ databaseUrl: database.url, dataDir });
      const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(pgDb);
      await listLatencies(a, cookie, `, as seeded: no planner statistics yet, autovacuum ${rows[0]?.autovacuum ?? '?'} on this server`);
      const started = performance.now();
      await sql`vacuum analyze housing_requests`.execute(pgDb);
      await pgDb.destroy();
      await listLatencies(a, cookie, `, after VACUUM ANALYZE housing_requests (${ms(performance.now() - started)})`);
    } else {
      await listLatencies(a, cookie, '');
    }

    if (b) {
      await eventLatencies(
        a,
        [
          { label: 'the other instance', base: b },
          { label: 'the same instance', base: a },
        ],
        cookie,
        `PostgreSQL: change posted to instance :${ports[0]}, events read from instance :${ports[1]} (LISTEN/NOTIFY) and, for comparison, from :${ports[0]}.`,
      );
    } else {
      await eventLatencies(
        a,
        [{ label: 'the same instance', base: a }],
        cookie,
        'SQLite: a second instance cannot share events (in-memory bus), so the change and its event are on the SAME instance.',
      );
    }

    await csvExport(a, cookie, servers[0]!.pid!);
  } finally {
    await Promise.all(servers.map(stopServer));
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
