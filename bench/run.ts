// Benchmarks of the foundation (issues 2 and 11). Prints figures; asserts nothing.
//   npm run bench                             SQLite (default)
//   DATABASE_URL=postgres://… npm run bench   PostgreSQL
//   tsx bench/run.ts --quick                  2 s rounds, one round (CI checks it runs)
// Needs `npx tsc -p tsconfig.server.json` first (it spawns dist/server/main.js). Ports: BENCH_PORT (3970)
// and the next ten.
//
// 1. GET /app/api/logement/:numeroUnique on 10,000 requests, three ways: anonymous (status view), a
//    signed-in resident looking up someone else's request (status view, session read), the private key
//    (full view). Each against (a) the app, (b) Fastify alone and (c) a bare node:http server, both
//    sending the app's very bytes and headers from memory. The three servers are child processes, measured
//    alike: autocannon (50 connections) for the throughput, /proc/<pid>/stat (utime + stime) before and
//    after each run for the server's CPU per request. Rounds interleave the servers (the order turns),
//    so that whatever else the machine does weighs on all three. Targets (issue 11): CPU per request
//    ≤ 2× Fastify alone, throughput ≥ 0.7 of node:http.
// 2. Peak RSS growth of the server while one 10 MB upload streams (after a first small PDF, printed apart).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { TACHE } from '../src/server/features/demandes/cycleDeVie.js';
import { freshDatabaseUrl } from '../test/db.js';
import { generatedRequest, seedRequests } from './seed.js';
import { portFree, rssKb, startServer, stopServer, waitFor } from './server.js';
import { printWebSize } from './web-size.js';

const QUICK = process.argv.includes('--quick');
const REQUESTS = 10_000;
const ROUND_S = QUICK ? 2 : Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = QUICK ? 1 : Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 50;
const FIRST_PORT = Number(process.env.BENCH_PORT ?? 3970);
const CLK_TCK = 100; // Linux's USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s.

type Scenario = 'anonyme' | 'session' | 'cle';
type Kind = 'app' | 'fastify' | 'node';
const SCENARIOS: Record<Scenario, string> = {
  anonyme: 'anonymous (status view)',
  session: "signed-in resident, someone else's request (status view)",
  cle: 'private key (full view)',
};
const KINDS: Kind[] = ['app', 'fastify', 'node'];

/**
 * The app of commit c354b11 (before issue 11, item 3), measured with this same script (`--quick`, SQLite,
 * LOG_LEVEL info) on the shared 2-core machine while other work ran (load average 7 to 16): CPU µs per
 * request and req/s of each server. On a quiet machine the issue measured 73–98 µs for the app against
 * 19 µs for Fastify alone, and 0.29–0.53 of node:http's throughput.
 */
const BEFORE: Record<Scenario, Record<Kind, { cpuUs: number; rps: number }>> = {
  anonyme: { app: { cpuUs: 674.8, rps: 954 }, fastify: { cpuUs: 60.3, rps: 3366 }, node: { cpuUs: 45.6, rps: 3763 } },
  session: { app: { cpuUs: 3462.9, rps: 139 }, fastify: { cpuUs: 40.2, rps: 4058 }, node: { cpuUs: 67.0, rps: 3255 } },
  cle: { app: { cpuUs: 625.4, rps: 824 }, fastify: { cpuUs: 53.1, rps: 2454 }, node: { cpuUs: 60.2, rps: 3282 } },
};

function cannon(url: string, duration: number, headers: Record<string, string>): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration, headers }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** CPU time (user + system) the process has used, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

async function ports(count: number): Promise<number[]> {
  const out: number[] = [];
  for (let port = FIRST_PORT; port <= FIRST_PORT + 10 && out.length < count; port += 1) {
    if (await portFree(port)) out.push(port);
  }
  if (out.length < count) throw new Error(`no ${count} free ports in ${FIRST_PORT}-${FIRST_PORT + 10}`);
  return out;
}

/**
 * A reference server in a child process: Fastify alone (no logger, no plugin) or bare node:http, each
 * answering `path` with the bytes and headers the app sent for it.
 */
const REFERENCE = `
const fs = require('node:fs');
const http = require('node:http');
const spec = JSON.parse(fs.readFileSync(process.env.SPEC, 'utf8'));
const routes = new Map(Object.entries(spec).map(([p, r]) => [p, { body: Buffer.from(r.body, 'base64'), headers: r.headers }]));
const port = Number(process.env.PORT);
if (process.env.KIND === 'fastify') {
  const app = require(process.env.FASTIFY)({ logger: false });
  for (const [p, r] of routes) app.get(p, (_request, reply) => { reply.headers(r.headers); return reply.send(r.body); });
  app.listen({ port, host: '127.0.0.1' });
} else {
  http.createServer((req, res) => {
    const r = routes.get(req.url);
    if (!r) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { ...r.headers, 'content-length': r.body.length });
    res.end(r.body);
  }).listen(port, '127.0.0.1');
}
`;

function startReference(kind: 'fastify' | 'node', port: number, specFile: string): ChildProcess {
  const fastify = createRequire(import.meta.url).resolve('fastify');
  return spawn(process.execPath, ['-e', REFERENCE], {
    env: { PATH: process.env.PATH, KIND: kind, PORT: String(port), SPEC: specFile, FASTIFY: fastify },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function seed(databaseUrl: string | undefined, dataDir: string, count: number) {
  const { db } = openDatabase({ databaseUrl, dataDir });
  await migrate(db);
  const seconds = await seedRequests(db, count);
  // The daily life-cycle job is marked done: at start it would strike off the generated requests (and mail them).
  const done = new Date().toISOString();
  await db
    .insertInto('taches')
    .values({ nom: TACHE, bailJusqua: '', derniereFin: done })
    .onConflict((oc) => oc.column('nom').doUpdateSet({ derniereFin: done }))
    .execute();
  await db.destroy();
  return { numeros: Array.from({ length: count }, (_, n) => generatedRequest(n).numeroUnique), seconds };
}

/** The answer's headers a server sets itself (length, date, connection) left out. */
function answerHeaders(response: Response): Record<string, string> {
  const skip = new Set(['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);
  return Object.fromEntries([...response.headers].filter(([k]) => !skip.has(k)));
}

interface Cell {
  requests: number;
  seconds: number;
  cpu: number;
  errors: number;
  p99: number[];
}

const fmt = (n: number, digits = 0) => n.toFixed(digits);

async function main() {
  const scriptStarted = Date.now();
  try {
    printWebSize();
  } catch (error) {
    console.log(`first-load JavaScript: not measured (${(error as Error).message}; npm run build:web first)`);
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-bench-'));
  const db = await freshDatabaseUrl('qv_bench');
  const [port, fastifyPort, nodePort] = (await ports(3)) as [number, number, number];
  const base = `http://127.0.0.1:${port}`;
  const { numeros, seconds } = await seed(db.url, dataDir, REQUESTS);
  // LOG_LEVEL info: the production default, its request logging included (to /dev/null here).
  const server = startServer({
    PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    ADRESSE_API_URL: 'http://127.0.0.1:9/',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
  });
  const references: ChildProcess[] = [];
  const kind = db.url ? 'PostgreSQL' : 'SQLite';
  try {
    await waitFor(`${base}/app/api/logement/013000000`, server);
    console.log(`database: ${kind}, ${REQUESTS} requests seeded in ${seconds.toFixed(1)} s`);

    // Someone else's request for the anonymous and signed-in lookups; one's own private key for the full view.
    const target = numeros[Math.floor(numeros.length / 2)]!;
    const signUp = await fetch(`${base}/app/api/user/inscription`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nom: 'Banc', prenom: 'Essai', birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email: 'banc.essai@example.org', password: 'une phrase de passe assez longue pour le banc' }),
    });
    if (signUp.status !== 201) throw new Error(`sign-up failed: HTTP ${signUp.status} ${await signUp.text()}`);
    const cookie = signUp.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .filter((c) => c.includes('session_token'))
      .join('; ');
    const own = await fetch(`${base}/app/api/logement`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ numeroUnique: '013benchcle001', prenom: 'Hélène', nom: 'Martin', email: 'helene.martin@example.org', motivations: 'Logement trop petit.' }),
    });
    const { accessKey } = ((await own.json()) as { data: { accessKey: string } }).data;

    const scenarios: Record<Scenario, { url: string; headers: Record<string, string>; path: string }> = {
      anonyme: { url: `/app/api/logement/${target}`, headers: {}, path: '/anonyme' },
      session: { url: `/app/api/logement/${target}`, headers: { cookie }, path: '/session' },
      cle: { url: '/app/api/logement/013benchcle001', headers: { 'x-access-key': accessKey }, path: '/cle' },
    };
    const spec: Record<string, { body: string; headers: Record<string, string> }> = {};
    const sizes: Record<string, number> = {};
    for (const [name, s] of Object.entries(scenarios) as [Scenario, (typeof scenarios)[Scenario]][]) {
      const sample = await fetch(`${base}${s.url}`, { headers: s.headers });
      const bytes = Buffer.from(await sample.arrayBuffer());
      const acces = (JSON.parse(bytes.toString('utf8')) as { data: { acces: string } }).data.acces;
      if (sample.status !== 200 || acces !== (name === 'cle' ? 'complet' : 'statut')) throw new Error(`${name}: HTTP ${sample.status}, ${acces}`);
      spec[s.path] = { body: bytes.toString('base64'), headers: answerHeaders(sample) };
      sizes[name] = bytes.length;
    }
    const specFile = path.join(dataDir, 'reference.json');
    fs.writeFileSync(specFile, JSON.stringify(spec));
    const fastify = startReference('fastify', fastifyPort, specFile);
    const node = startReference('node', nodePort, specFile);
    references.push(fastify, node);
    await waitFor(`http://127.0.0.1:${fastifyPort}/anonyme`, fastify);
    await waitFor(`http://127.0.0.1:${nodePort}/anonyme`, node);

    const pids: Record<Kind, number> = { app: server.pid!, fastify: fastify.pid!, node: node.pid! };
    const urlOf = (k: Kind, s: Scenario) =>
      k === 'app' ? `${base}${scenarios[s].url}` : `http://127.0.0.1:${k === 'fastify' ? fastifyPort : nodePort}${scenarios[s].path}`;
    const names = Object.keys(SCENARIOS) as Scenario[];
    // Warm-up (the JIT, the database's cache), unmeasured; the app, which has the most code to compile, twice as long.
    for (const s of names) for (const k of KINDS) await cannon(urlOf(k, s), k === 'app' ? 2 * WARMUP_S : WARMUP_S, scenarios[s].headers);

    const cells = new Map<string, Cell>();
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const s of names) {
        const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length]!);
        for (const k of order) {
          const before = cpuSeconds(pids[k]);
          const started = process.hrtime.bigint();
          const result = await cannon(urlOf(k, s), ROUND_S, scenarios[s].headers);
          const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
          const cpu = cpuSeconds(pids[k]) - before;
          const cell = cells.get(`${s}/${k}`) ?? { requests: 0, seconds: 0, cpu: 0, errors: 0, p99: [] };
          cell.requests += result.requests.total;
          cell.seconds += elapsed;
          cell.cpu += cpu;
          cell.errors += result.errors + result.non2xx;
          cell.p99.push(result.latency.p99);
          cells.set(`${s}/${k}`, cell);
        }
      }
    }

    console.log(
      `GET /app/api/logement/:numeroUnique (${CONNECTIONS} connections, ${ROUNDS} round(s) of ${ROUND_S} s per server, interleaved; CPU = the server process's utime+stime per request)`,
    );
    for (const s of names) {
      const get = (k: Kind) => {
        const c = cells.get(`${s}/${k}`)!;
        return { ...c, rps: c.requests / c.seconds, cpuUs: (c.cpu * 1e6) / Math.max(1, c.requests) };
      };
      const app = get('app');
      const fst = get('fastify');
      const bare = get('node');
      console.log(`  ${SCENARIOS[s]}, ${sizes[s]} bytes`);
      for (const [label, m] of [['app      ', app], ['Fastify  ', fst], ['node:http', bare]] as const) {
        console.log(`    ${label}: ${fmt(m.rps)} req/s, ${fmt(m.cpuUs, 1)} µs CPU/request, p99 ${Math.max(...m.p99)} ms, errors ${m.errors}`);
      }
      console.log(`    CPU app/Fastify ${fmt(app.cpuUs / fst.cpuUs, 2)}× (target <= 2), throughput app/node:http ${fmt(app.rps / bare.rps, 2)} (target >= 0.7)`);
      const before = BEFORE[s];
      if (!db.url)
        console.log(
          `    before (commit c354b11, SQLite): app ${fmt(before.app.rps)} req/s, ${fmt(before.app.cpuUs, 1)} µs CPU/request; CPU app/Fastify ${fmt(before.app.cpuUs / before.fastify.cpuUs, 2)}×, throughput app/node:http ${fmt(before.app.rps / before.node.rps, 2)}`,
        );
    }

    // Upload: one 10 MB PDF streamed while /proc/<pid>/status is sampled, after a 20 KB one: the first PDF starts the
    // background thread that inspects PDFs and loads file-type (a one-time cost, printed apart).
    const created = await fetch(`${base}/app/api/logement`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ numeroUnique: '013benchupload1', prenom: 'U', email: 'u@example.org', motivations: 'x' }),
    });
    const { accessKey: uploadKey } = ((await created.json()) as { data: { accessKey: string } }).data;
    const televerser = async (size: number, nom: string) => {
      const file = path.join(dataDir, nom);
      const content = Buffer.alloc(size, 0x20);
      Buffer.from('%PDF-1.4\n').copy(content);
      fs.writeFileSync(file, content);
      await new Promise((r) => setTimeout(r, 500));
      const before = rssKb(server.pid!);
      let peak = before;
      const timer = setInterval(() => {
        peak = Math.max(peak, rssKb(server.pid!));
      }, 5);
      const form = new FormData();
      form.append('other', await fs.openAsBlob(file, { type: 'application/pdf' }), nom);
      const started = Date.now();
      const up = await fetch(`${base}/app/api/logement/upload-files/013benchupload1`, { method: 'POST', headers: { 'x-access-key': uploadKey }, body: form });
      const elapsed = Date.now() - started;
      clearInterval(timer);
      peak = Math.max(peak, rssKb(server.pid!));
      return { status: up.status, elapsed, before, growth: peak - before };
    };
    const premier = await televerser(20_000, 'petit.pdf');
    console.log(`upload of a first 20 KB PDF (starts the background thread, loads file-type): HTTP ${premier.status}; server RSS growth ${(premier.growth / 1024).toFixed(1)} MB`);
    const gros = await televerser(10 * 1024 * 1024 - 4096, 'gros.pdf');
    console.log(
      `upload of one 10 MB file: HTTP ${gros.status} in ${gros.elapsed} ms; server RSS ${(gros.before / 1024).toFixed(1)} MB before, peak growth ${(gros.growth / 1024).toFixed(1)} MB (target <= 30 MB)`,
    );
  } finally {
    for (const child of references) await stopServer(child);
    await stopServer(server);
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    console.log(`(bench/run.ts: ${((Date.now() - scriptStarted) / 1000).toFixed(0)} s)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
