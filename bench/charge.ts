// Mixed load (issue 11 point 4). Prints figures; asserts nothing.
//   npm run build && npx tsx bench/charge.ts                 SQLite, then PostgreSQL when DATABASE_URL is set
//   npx tsx bench/charge.ts --quick                          10 s, 50 connections (CI checks it runs)
// A fresh database with 10,000 generated requests; the server runs as `npm start` runs it, with
// bench/boucle.mjs preloaded to measure its event loop from inside, per-IP limits lifted
// (RATE_LIMIT_MULTIPLIER) and a manager's session. 200 connections for 60 s, each request drawn at random:
//   55 % status lookups (GET /logement/:numero), 10 % managers' list (a page, a search, a sort),
//   10 % creations (POST /logement: a row, its history, its private-link e-mail), 15 % uploads (one small
//   PDF, multipart, inspected by the server), 10 % status changes (manager, its e-mail queued).
// Beside it, once every connection of the load has had its first answer, one trivial request (GET /parametres) every
// 200 ms on a new connection: its worst wait is what a visitor's first click costs under that load (accept queue
// included). The first request of each of the load's connections waits for the server to accept it, one per loop
// turn (docs/decisions/0014): printed apart (« connecting »), and the latencies without them (« steady »); the p99
// target is judged on every request.
// Targets on SQLite: p99 <= 150 ms, 0 errors, longest event-loop stall <= 50 ms. Each connection asks again as soon as it
// is answered (a closed loop): the mean latency is then the connections over the throughput (Little's law, printed).
// BENCH_PORT (default 3930) moves the port; BENCH_CPU_PROF=dir writes the server's CPU profile of the load there;
// BENCH_TURN_BUDGET_MS sets the server's HTTP_TURN_BUDGET_MS (default: the server's, 10 ms on SQLite, off on PostgreSQL;
// docs/decisions/0023);
// BENCH_KIND=upload (or lookup, list, create, status) runs that kind alone; BENCH_SERVER_ROOT=<dir> runs the server
// built in another checkout (a "before" figure).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from '../test/db.js';
import { generatedRequest, seedRequests } from './seed.js';
import { portFree, startServer, stopServer, waitFor } from './server.js';

const QUICK = process.argv.includes('--quick');
const DURATION_S = Number(process.env.BENCH_SECONDS ?? (QUICK ? 10 : 60));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? (QUICK ? 50 : 200));
const WARMUP_S = QUICK ? 2 : 5;
const SEEDED = QUICK ? 2_000 : 10_000;
/**
 * The requests that receive the uploads. Enough of them that none passes the app's default quota of 50 documents
 * (~15,000 uploads in 60 s spread over 2,000: ~8 each): a request piled with hundreds of files, which the quota forbids,
 * would make every upload read them all.
 */
const UPLOAD_TARGETS = QUICK ? 200 : 2_000;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Measured with this bench on the code of commit c354b11 (before issue 11), 200 connections, 60 s, on the
 * same 2-core machine, server and bench sharing it, while other work kept its load average near 10: read
 * them beside figures taken under a similar load (the bench prints the load average it started with).
 */
type Before = Pick<Figures, 'rps' | 'p99' | 'max' | 'errors' | 'stallMaxMs' | 'probeMaxMs'>;
const BEFORE: Record<'sqlite' | 'postgres', Before | null> = {
  sqlite: { rps: 70, p99: 13_200, max: 29_691, errors: 328, stallMaxMs: 2_029, probeMaxMs: 65_576 },
  postgres: { rps: 57, p99: 12_122, max: 21_014, errors: 0, stallMaxMs: 391, probeMaxMs: 10_138 },
};

type Kind = 'lookup' | 'list' | 'create' | 'upload' | 'status';
const MIXED: [Kind, number][] = [
  ['lookup', 0.55],
  ['list', 0.1],
  ['create', 0.1],
  ['upload', 0.15],
  ['status', 0.1],
];
/** BENCH_KIND=upload (or another kind): that kind alone, to see what one costs (1 / throughput, the loop being busy). */
const MIX: [Kind, number][] = process.env.BENCH_KIND ? MIXED.map(([k]) => [k, k === process.env.BENCH_KIND ? 1 : 0]) : MIXED;

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  /** `above`: how many of the kind's answers were slower than the p99 of all. */
  perKind: Record<Kind, { count: number; p50: number; p99: number; errors: number; above: number }>;
  /** Every connection's requests but its first: the load once all its connections are accepted. */
  steady: { p50: number; p99: number; max: number };
  /** When every connection of the load had its first answer (s from the start), and those first answers' p99 and max. */
  rampS: number;
  firstP99: number;
  firstMax: number;
  stallMaxMs: number;
  stallP99Ms: number;
  loopUtilisation: number;
  probeMaxMs: number;
  rssMb: number;
  cpu: Processeurs;
}

/**
 * Where the machine's CPU went during the load (Linux; NaN elsewhere): the server's main thread on a core and waiting
 * for one (shares of the wall time; its loop counts as busy in both), the servers' processes and the load generator
 * in cores' worth, and the whole machine busy, as a share of its cores.
 */
interface Processeurs {
  mainOnCpu: number;
  mainWaitingForCpu: number;
  serverCores: number;
  generatorCores: number;
  machineBusy: number;
}

/** The machine's CPU time, busy and in all, in clock ticks (/proc/stat's first line), or null where there is none. */
function machine(): { busy: number; total: number } | null {
  try {
    const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    // idle and iowait
    return { busy: total - ticks[3]! - ticks[4]!, total };
  } catch {
    return null;
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function pick(): Kind {
  let r = Math.random();
  for (const [kind, share] of MIX) {
    r -= share;
    if (r < 0) return kind;
  }
  return 'lookup';
}

async function smallPdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let p = 0; p < 2; p += 1) {
    const page = pdf.addPage([595, 842]);
    for (let l = 0; l < 30; l += 1) page.drawText(`Avis d'imposition 2025 — ligne ${l}`, { x: 50, y: 800 - l * 20, size: 11, font });
  }
  return Buffer.from(await pdf.save());
}

async function multipartBody(pdf: Buffer): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('tax', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'avis-impot.pdf');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

async function signUpManager(base: string, databaseUrl: string | undefined, dataDir: string): Promise<string> {
  const email = `charge.${randomBytes(3).toString('hex')}@example.org`;
  const res = await fetch(`${base}/app/api/user/inscription`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ nom: 'Charge', prenom: 'Gestion', birthday: '1980-01-01', residence: 'Mairie', rue: 'Avenue Marcel-Pagnol', email, password: 'une phrase de passe assez longue' }),
  });
  if (res.status !== 201) throw new Error(`sign-up failed: HTTP ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .filter((c) => c.startsWith('qv.session_token='))
    .join('; ');
  const { db } = openDatabase({ databaseUrl, dataDir });
  await db.updateTable('user').set({ userType: 'manager' }).where('email', '=', email).execute();
  await db.destroy();
  return cookie;
}

function creation(n: number): string {
  return JSON.stringify({
    numeroUnique: `013ch${randomBytes(4).toString('hex')}${n % 10}`,
    prenom: 'Hélène',
    nom: "N'Diaye",
    email: `charge.${n}@example.org`,
    numeroDeTelephone: '0612345678',
    motivations: 'Logement trop petit pour ma famille.',
  });
}

/** One trivial request every 200 ms on a new connection; resolves with the worst time when stopped. */
function probe(base: string): { stop(): Promise<number> } {
  let worst = 0;
  let running = true;
  const once = () =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = http.get(`${base}/app/api/parametres`, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => {
          worst = Math.max(worst, performance.now() - started);
          resolve();
        });
      });
      req.on('error', () => {
        worst = Math.max(worst, performance.now() - started);
        resolve();
      });
    });
  const loop = (async () => {
    while (running) {
      await Promise.all([once(), new Promise((r) => setTimeout(r, 200))]);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return worst;
    },
  };
}

interface Target {
  numero: string;
  key: string;
}

/**
 * What the load's responses tell apart (mixedLoad `record`): the first answer of each connection, which waits for the
 * server to accept it (libuv accepts one connection per loop turn: docs/decisions/0014), and the others.
 */
interface Reponses {
  kinds: Record<Kind, { times: number[]; errors: number }>;
  first: number[];
  steady: number[];
  /** Seconds from the start until every connection had its first answer (NaN until then). */
  rampS: number;
  /** Called then (the probe waits for it). */
  allAnswered(): void;
}

function mixedLoad(
  base: string | string[],
  setup: { cookie: string; origin: string; numeros: string[]; targets: Target[]; upload: { body: Buffer; contentType: string } },
  duration: number,
  connections: number,
  record?: Reponses,
): Promise<autocannon.Result> {
  const { cookie, origin, numeros, targets, upload } = setup;
  let created = 0;
  const lists = ['pageSize=10', 'q=martin', 'sort=nom&order=asc', 'status=En%20attente', 'page=3'];
  const statuts = ['En cours de traitement', 'Demande envoyée', 'En attente', 'Passage CAL'];
  const started = performance.now();
  const seen = new Set<unknown>();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        // Several URLs: autocannon spreads the connections over them (its README; its types say one string).
        url: base as string,
        connections,
        duration,
        timeout: 30,
        requests: [
          {
            setupRequest: (req, context) => {
              const kind = pick();
              (context as { kind?: Kind }).kind = kind;
              const any = numeros[Math.floor(Math.random() * numeros.length)]!;
              switch (kind) {
                case 'lookup':
                  return { ...req, method: 'GET', path: `/app/api/logement/${any}`, headers: {}, body: undefined };
                case 'list':
                  return { ...req, method: 'GET', path: `/app/api/logement?${lists[Math.floor(Math.random() * lists.length)]}`, headers: { cookie }, body: undefined };
                case 'create':
                  created += 1;
                  return { ...req, method: 'POST', path: '/app/api/logement', headers: { 'content-type': 'application/json' }, body: creation(created) };
                case 'upload': {
                  const t = targets[Math.floor(Math.random() * targets.length)]!;
                  return { ...req, method: 'POST', path: `/app/api/logement/upload-files/${t.numero}`, headers: { 'content-type': upload.contentType, 'x-access-key': t.key }, body: upload.body };
                }
                case 'status':
                  return {
                    ...req,
                    method: 'POST',
                    path: '/app/api/logement/update/status',
                    headers: { cookie, origin, 'content-type': 'application/json' },
                    body: JSON.stringify({ logementId: any, newStatus: statuts[Math.floor(Math.random() * statuts.length)] }),
                  };
              }
            },
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    );
    // The instance's 'response' event (undeclared in @types/autocannon): the client's context holds this request's kind.
    (instance as unknown as NodeJS.EventEmitter).on('response', (client: { requestIterator?: { context?: { kind?: Kind } } }, statusCode: number, _bytes: number, responseTime: number) => {
      const kind = client.requestIterator?.context?.kind;
      if (!record || !kind) return;
      record.kinds[kind].times.push(responseTime);
      if (statusCode >= 400) record.kinds[kind].errors += 1;
      if (seen.has(client)) record.steady.push(responseTime);
      else {
        seen.add(client);
        record.first.push(responseTime);
        if (seen.size === connections) {
          record.rampS = (performance.now() - started) / 1000;
          record.allAnswered();
        }
      }
    });
  });
}

/** What bench/boucle.mjs writes at each signal. */
interface Boucle {
  maxMs: number;
  p99Ms: number;
  utilisation: number;
  rssKb: number;
  mainOnCpu: number | null;
  mainWaitingForCpu: number | null;
  processCores: number;
}

async function readLoop(file: string, child: { pid?: number }): Promise<Boucle> {
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0;
  process.kill(child.pid!, 'SIGUSR2');
  for (let i = 0; i < 200; i += 1) {
    const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    if (lines.length > before) return JSON.parse(lines.at(-1)!) as Boucle;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the server wrote no event-loop figures (bench/boucle.mjs not loaded?)');
}

/**
 * One measure on a fresh database. `instances` 2 (PostgreSQL): two servers on one database, one DATA_DIR and one
 * Redis (REDIS_URL, as docs/deploy.md « Several instances »), the load's connections spread over both by autocannon
 * (no load balancer process: it would take a share of the same two cores).
 */
async function measure(kind: 'sqlite' | 'postgres', port: number, instances: 1 | 2 = 1): Promise<Figures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-charge-'));
  const database = kind === 'postgres' ? await freshDatabaseUrl('qv_charge') : { url: undefined, drop: async () => {} };
  const base = `http://127.0.0.1:${port}`;
  const bases = Array.from({ length: instances }, (_, i) => `http://127.0.0.1:${port + i}`);
  const loopFiles = bases.map((_b, i) => path.join(dataDir, `boucle-${i}.jsonl`));
  {
    const { db } = openDatabase({ databaseUrl: database.url, dataDir });
    await migrate(db);
    await seedRequests(db, SEEDED);
    await db.destroy();
  }
  const profileDir = process.env.BENCH_CPU_PROF;
  // Several instances share one AUTH_SECRET (docs/deploy.md) and one Redis.
  const redis: Record<string, string> =
    instances > 1
      ? { REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', REDIS_PREFIX: `qv-charge-${process.pid}:`, AUTH_SECRET: randomBytes(48).toString('base64url') }
      : {};
  const servers = bases.map((_b, i) =>
    startServer(
      {
        PORT: String(port + i),
        DATA_DIR: dataDir,
        PUBLIC_URL: base,
        ADRESSE_API_URL: 'http://127.0.0.1:9/',
        RATE_LIMIT_MULTIPLIER: '1000',
        ...(process.env.BENCH_TURN_BUDGET_MS ? { HTTP_TURN_BUDGET_MS: process.env.BENCH_TURN_BUDGET_MS } : {}),
        BOUCLE_OUT: loopFiles[i]!,
        ...(profileDir ? { BOUCLE_PROFILE: path.join(profileDir, `charge-${kind}-${instances}-${i}.cpuprofile`) } : {}),
        ...(database.url ? { DATABASE_URL: database.url } : {}),
        ...redis,
      },
      { nodeArgs: ['--import', path.join(ROOT, 'bench/boucle.mjs')], root: process.env.BENCH_SERVER_ROOT },
    ),
  );
  try {
    for (const [i, b] of bases.entries()) await waitFor(`${b}/app/api/parametres`, servers[i]!);
    const cookie = await signUpManager(base, database.url, dataDir);
    const targets: Target[] = [];
    for (let i = 0; i < UPLOAD_TARGETS; i += 20) {
      const made = Array.from({ length: Math.min(20, UPLOAD_TARGETS - i) }, async (_, j) => {
        const res = await fetch(`${base}/app/api/logement`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: creation(i + j) });
        if (res.status !== 201) throw new Error(`creation: HTTP ${res.status} ${await res.text()}`);
        const { data } = (await res.json()) as { data: { numeroUnique: string; accessKey: string } };
        return { numero: data.numeroUnique, key: data.accessKey };
      });
      targets.push(...(await Promise.all(made)));
    }
    const setup = {
      cookie,
      origin: base,
      numeros: Array.from({ length: SEEDED }, (_, n) => generatedRequest(n).numeroUnique),
      targets,
      upload: await multipartBody(await smallPdf()),
    };
    await mixedLoad(bases, setup, WARMUP_S, Math.min(20, CONNECTIONS));
    for (const [i, s] of servers.entries()) await readLoop(loopFiles[i]!, s); // start-up and warm-up left out
    let allAnswered = () => {};
    const answered = new Promise<void>((r) => (allAnswered = r));
    const record: Reponses = {
      kinds: Object.fromEntries(MIX.map(([k]) => [k, { times: [] as number[], errors: 0 }])) as Record<Kind, { times: number[]; errors: number }>,
      first: [],
      steady: [],
      rampS: Number.NaN,
      allAnswered: () => allAnswered(),
    };
    // The probe starts once the load's own connections are all accepted and answered (at most half-way through): it
    // then tells what a new visitor waits under the load, not the queue of the load's 200 connections at its start.
    const machineAvant = machine();
    const generateurAvant = process.cpuUsage();
    const debut = performance.now();
    const load = mixedLoad(bases, setup, DURATION_S, CONNECTIONS, record);
    await Promise.race([answered, new Promise((r) => setTimeout(r, (DURATION_S * 1000) / 2))]);
    const sonde = probe(base);
    const result = await load;
    const probeMaxMs = await sonde.stop();
    const first = record.first.sort((a, b) => a - b);
    const steady = record.steady.sort((a, b) => a - b);
    const generateur = process.cpuUsage(generateurAvant);
    const secondes = (performance.now() - debut) / 1000;
    const machineApres = machine();
    const loops: Boucle[] = [];
    for (const [i, s] of servers.entries()) loops.push(await readLoop(loopFiles[i]!, s));
    const moyenne = (pick: (l: Boucle) => number | null) => loops.reduce((t, l) => t + (pick(l) ?? Number.NaN), 0) / loops.length;
    // The worst instance's stall and p99; utilisation averaged; memory summed.
    const loop = {
      maxMs: Math.max(...loops.map((l) => l.maxMs)),
      p99Ms: Math.max(...loops.map((l) => l.p99Ms)),
      utilisation: loops.reduce((t, l) => t + l.utilisation, 0) / loops.length,
      rssKb: loops.reduce((t, l) => t + l.rssKb, 0),
    };
    const perKind = Object.fromEntries(
      MIX.map(([k]) => {
        const sorted = record.kinds[k].times.sort((a, b) => a - b);
        const above = sorted.length - sorted.findLastIndex((t) => t <= result.latency.p99) - 1;
        return [k, { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: record.kinds[k].errors, above }];
      }),
    ) as Figures['perKind'];
    return {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      max: result.latency.max,
      errors: result.errors + result.timeouts + result.non2xx,
      perKind,
      steady: { p50: percentile(steady, 50), p99: percentile(steady, 99), max: steady.at(-1) ?? NaN },
      rampS: record.rampS,
      firstP99: percentile(first, 99),
      firstMax: first.at(-1) ?? NaN,
      stallMaxMs: loop.maxMs,
      stallP99Ms: loop.p99Ms,
      loopUtilisation: loop.utilisation,
      probeMaxMs,
      rssMb: loop.rssKb / 1024,
      cpu: {
        mainOnCpu: moyenne((l) => l.mainOnCpu),
        mainWaitingForCpu: moyenne((l) => l.mainWaitingForCpu),
        serverCores: loops.reduce((t, l) => t + l.processCores, 0),
        generatorCores: (generateur.user + generateur.system) / 1e6 / secondes,
        machineBusy: machineAvant && machineApres ? (machineApres.busy - machineAvant.busy) / (machineApres.total - machineAvant.total) : Number.NaN,
      },
    };
  } finally {
    for (const s of servers) await stopServer(s);
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const f0 = (n: number) => n.toFixed(0);
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

function print(label: string, f: Figures, before: Before | null, targets: boolean): void {
  const was = (pickFn: (b: Before) => number, unit = '') => (before ? ` (c354b11: ${f0(pickFn(before))}${unit})` : '');
  console.log(`  ${label}`);
  console.log(`    throughput   ${f0(f.rps)} req/s${was((b) => b.rps, ' req/s')}`);
  console.log(`    latency      p50 ${f0(f.p50)} ms  p99 ${f0(f.p99)} ms${was((b) => b.p99, ' ms')}  max ${f0(f.max)} ms${was((b) => b.max, ' ms')}${targets ? `  p99 <= 150 ms ${verdict(f.p99 <= 150)}` : ''}`);
  console.log(
    `    steady       p50 ${f0(f.steady.p50)} ms  p99 ${f0(f.steady.p99)} ms  max ${f0(f.steady.max)} ms (each connection's first request left out)`,
  );
  console.log(
    `    connecting   every connection answered once after ${f.rampS.toFixed(1)} s; first requests p99 ${f0(f.firstP99)} ms, max ${f0(f.firstMax)} ms (one connection accepted per loop turn: docs/decisions/0014)`,
  );
  console.log(`    errors       ${f.errors}${was((b) => b.errors)}${targets ? `  0 ${verdict(f.errors === 0)}` : ''}`);
  console.log(
    `    event loop   longest stall ${f0(f.stallMaxMs)} ms${was((b) => b.stallMaxMs, ' ms')}  p99 ${f.stallP99Ms.toFixed(1)} ms  busy ${(f.loopUtilisation * 100).toFixed(0)} %${targets ? `  <= 50 ms ${verdict(f.stallMaxMs <= 50)}` : ''}`,
  );
  console.log(`    trivial GET on a new connection once the load's are answered, worst: ${f0(f.probeMaxMs)} ms${was((b) => b.probeMaxMs, ' ms')}; server RSS after: ${f0(f.rssMb)} MB`);
  const pc = (n: number) => `${(n * 100).toFixed(0)} %`;
  console.log(
    `    CPU          server main thread on a core ${pc(f.cpu.mainOnCpu)} of the time, waiting for one ${pc(f.cpu.mainWaitingForCpu)}; server ${f.cpu.serverCores.toFixed(2)} cores, load generator ${f.cpu.generatorCores.toFixed(2)}; machine busy ${pc(f.cpu.machineBusy)} of ${os.cpus().length} cores`,
  );
  console.log(`    per kind     ${MIX.map(([k]) => `${k} ${f.perKind[k].count} p50 ${f0(f.perKind[k].p50)} p99 ${f0(f.perKind[k].p99)} ms${f.perKind[k].errors ? ` (${f.perKind[k].errors} errors)` : ''}`).join(', ')}`);
  // Which kinds make the p99: those that wait for more turns of the loop (docs/decisions/0014, « What sets the p99 now »).
  const above = MIX.reduce((t, [k]) => t + f.perKind[k].above, 0);
  if (above > 0) {
    const parts = MIX.filter(([k]) => f.perKind[k].above > 0).map(([k]) => `${k} ${f0((100 * f.perKind[k].above) / above)} %`);
    console.log(`    above p99    ${above} answers slower than the p99: ${parts.join(', ')}`);
  }
  // Little's law: in a closed loop every connection waits for its answer before asking again, so the mean latency
  // is the connections over the throughput, whatever the server does with a request.
  const moyenne = (CONNECTIONS / f.rps) * 1000;
  console.log(
    `    closed loop  mean latency = ${CONNECTIONS} connections / ${f0(f.rps)} req/s = ${f0(moyenne)} ms (Little's law): a p99 of 150 ms needs more than ${f0(CONNECTIONS / 0.15)} req/s even if every request took as long`,
  );
}

async function main(): Promise<void> {
  const port = Number(process.env.BENCH_PORT ?? 3930);
  if (!(await portFree(port))) throw new Error(`port ${port} is taken (BENCH_PORT moves it)`);
  console.log(
    `Mixed load (issue 11 point 4): ${CONNECTIONS} connections, ${DURATION_S} s, ${SEEDED} requests seeded; mix ${MIX.map(([k, s]) => `${k} ${Math.round(s * 100)} %`).join(', ')}${QUICK ? ' (--quick)' : ''}; API turn budget ${process.env.BENCH_TURN_BUDGET_MS ? `${process.env.BENCH_TURN_BUDGET_MS} ms` : 'the default (SQLite 10 ms, PostgreSQL off)'}`,
  );
  // The machine's load when the bench starts: figures from a busy machine are not comparable.
  console.log(`  load average before: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.cpus().length} CPUs`);
  const sqlite = await measure('sqlite', port);
  print('SQLite', sqlite, QUICK ? null : BEFORE.sqlite, true);
  if (process.env.DATABASE_URL) {
    const postgres = await measure('postgres', port);
    print('PostgreSQL', postgres, QUICK ? null : BEFORE.postgres, false);
    if (!(await portFree(port + 1))) throw new Error(`port ${port + 1} is taken (BENCH_PORT moves it)`);
    const deux = await measure('postgres', port, 2);
    print('PostgreSQL, two instances (one database, one DATA_DIR, Redis)', deux, null, false);
    // On this machine the two instances, PostgreSQL and the load generator share two cores: a second instance adds
    // no CPU, only a second event loop (what it buys is redundancy, and room on a machine with more cores).
    console.log(
      `    two / one    throughput ${(deux.rps / postgres.rps).toFixed(2)}, p99 ${(deux.p99 / postgres.p99).toFixed(2)} (${os.cpus().length} CPUs shared by both instances, PostgreSQL and the load generator: no target)`,
    );
  } else {
    console.log('  PostgreSQL: not measured (set DATABASE_URL=postgres://… to print it beside SQLite)');
  }
  if (process.env.BENCH_JSON) fs.writeFileSync(process.env.BENCH_JSON, JSON.stringify({ sqlite }, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
