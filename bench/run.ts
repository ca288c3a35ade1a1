// Benchmarks of the foundation (issue 2). Prints figures; asserts nothing.
//   npm run bench                       SQLite (default)
//   DATABASE_URL=postgres://… npm run bench   PostgreSQL
// 1. GET /app/api/logement/:numeroUnique on 10,000 requests vs a bare node:http server sending the
//    same bytes from memory (autocannon, 50 connections): requests/s, p99, ratio.
// 2. Peak RSS growth of the server while one 10 MB upload streams.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from '../test/db.js';
import { generatedRequest, seedRequests } from './seed.js';
import { rssKb, startServer, stopServer, waitFor } from './server.js';
import { printWebSize } from './web-size.js';

const REQUESTS = 10_000;
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

function cannon(url: string, duration = DURATION_S): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

async function seed(databaseUrl: string | undefined, dataDir: string, count: number) {
  const { db } = openDatabase({ databaseUrl, dataDir });
  await migrate(db);
  const seconds = await seedRequests(db, count);
  await db.destroy();
  return { numeros: Array.from({ length: count }, (_, n) => generatedRequest(n).numeroUnique), seconds };
}

async function main() {
  printWebSize();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-bench-'));
  const db = await freshDatabaseUrl('qv_bench');
  const port = 3900;
  const base = `http://127.0.0.1:${port}`;
  const { numeros, seconds } = await seed(db.url, dataDir, REQUESTS);
  const server = startServer({
    PORT: String(port),
    DATA_DIR: dataDir,
    ADRESSE_API_URL: 'http://127.0.0.1:9/',
    ...(db.url ? { DATABASE_URL: db.url } : {}),
  });
  const kind = db.url ? 'PostgreSQL' : 'SQLite';
  try {
    await waitFor(`${base}/app/api/logement/013000000`, server);
    console.log(`database: ${kind}, ${REQUESTS} requests seeded in ${seconds.toFixed(1)} s`);

    const target = numeros[Math.floor(numeros.length / 2)];
    const sample = await fetch(`${base}/app/api/logement/${target}`);
    const bytes = Buffer.from(await sample.arrayBuffer());
    const headers = Object.fromEntries([...sample.headers].filter(([k]) => k !== 'content-length' && k !== 'date' && k !== 'connection' && k !== 'keep-alive'));

    const bare = http.createServer((_req, res) => {
      res.writeHead(200, { ...headers, 'content-length': bytes.length });
      res.end(bytes);
    });
    await new Promise<void>((r) => bare.listen(3901, '127.0.0.1', r));

    // Each server is measured alone, after a warm-up (JIT); autocannon shares the machine's 2 cores with it.
    await cannon(`${base}/app/api/logement/${target}`, 3);
    const app = await cannon(`${base}/app/api/logement/${target}`);
    await cannon('http://127.0.0.1:3901/', 3);
    const ref = await cannon('http://127.0.0.1:3901/');
    bare.close();
    const ratio = app.requests.average / ref.requests.average;
    console.log(`GET /app/api/logement/:numeroUnique (status view, ${CONNECTIONS} connections, ${DURATION_S} s, ${bytes.length} bytes)`);
    console.log(`  app      : ${app.requests.average.toFixed(0)} req/s, p50 ${app.latency.p50} ms, p99 ${app.latency.p99} ms, errors ${app.errors + app.non2xx}`);
    console.log(`  node:http: ${ref.requests.average.toFixed(0)} req/s, p50 ${ref.latency.p50} ms, p99 ${ref.latency.p99} ms`);
    console.log(`  ratio    : ${ratio.toFixed(2)} (target >= 0.5), p99 ${app.latency.p99} ms (target <= 25 ms)`);

    // Upload: one 10 MB PDF streamed while /proc/<pid>/status is sampled.
    const created = await fetch(`${base}/app/api/logement`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ numeroUnique: '013benchupload1', prenom: 'U', email: 'u@example.org', motivations: 'x' }),
    });
    const { accessKey } = ((await created.json()) as { data: { accessKey: string } }).data;
    const size = 10 * 1024 * 1024 - 4096;
    const file = path.join(dataDir, 'upload.pdf');
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
    form.append('other', await fs.openAsBlob(file, { type: 'application/pdf' }), 'gros.pdf');
    const started = Date.now();
    const up = await fetch(`${base}/app/api/logement/upload-files/013benchupload1`, {
      method: 'POST',
      headers: { 'x-access-key': accessKey },
      body: form,
    });
    const elapsed = Date.now() - started;
    clearInterval(timer);
    peak = Math.max(peak, rssKb(server.pid!));
    console.log(`upload of one 10 MB file: HTTP ${up.status} in ${elapsed} ms; server RSS ${(before / 1024).toFixed(1)} MB before, peak growth ${((peak - before) / 1024).toFixed(1)} MB (target <= 30 MB)`);
  } finally {
    await stopServer(server);
    await db.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
