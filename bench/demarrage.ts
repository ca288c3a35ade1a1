// Start-up and idle memory (issue 11 point 6). Prints figures; asserts nothing.
//   npx tsx bench/demarrage.ts [--quick]
// 1. Time to the first answer of `npm start` with unchanged sources (the build is up to date) against
//    `node dist/server/main.js` alone: median of 3 interleaved runs each (1 with --quick). Target <= 2x.
// 2. The server's resident memory (VmRSS) 2 s after start, idle (once V8's memory reducer has run), and
//    after a warm-up (lookups, a creation with its e-mail, the managers' list, an upload). Target idle <= 100 MB.
// SQLite in a fresh temp folder; port BENCH_PORT + 1 (default 3931).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drapeauxNode } from '../scripts/drapeaux-node.mjs';
import { rssKb } from './server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.argv.includes('--quick');
const RUNS = QUICK ? 1 : 3;
const PORT = Number(process.env.BENCH_PORT ?? 3930) + 1;
const BASE = `http://127.0.0.1:${PORT}`;

/**
 * Measured with this bench on the code of commit c354b11 (before issue 11), same 2-core machine, one run, load
 * average near 10 from other work: `npm start` rebuilt everything each time. (The issue's own figures, on a
 * quiet machine: 8.6 s for `npm start`, 0.8 s for the server alone, 148 MB idle.)
 */
const BEFORE = { npmStartMs: 69_798 as number | null, bareMs: 10_700 as number | null, idleMb: 166 as number | null, warmMb: 174 as number | null };

function env(dataDir: string): NodeJS.ProcessEnv {
  return { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', PUBLIC_URL: BASE, ADRESSE_API_URL: 'http://127.0.0.1:9/' };
}

async function firstAnswer(child: ChildProcess, started: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode}) before answering`);
    try {
      const res = await fetch(`${BASE}/app/api/parametres`);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - started;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Stops the whole process group (npm, its shell, node). */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGTERM');
  const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function timeStart(command: string, args: string[]): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-demarrage-'));
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, env: env(dataDir), stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  try {
    return await firstAnswer(child, started);
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function warmUp(): Promise<void> {
  const created = await fetch(`${BASE}/app/api/logement`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ numeroUnique: '013demarrage1', prenom: 'Hélène', nom: 'Martin', email: 'helene@example.org', motivations: 'Logement trop petit.' }),
  });
  const { data } = (await created.json()) as { data: { accessKey: string } };
  for (let i = 0; i < 300; i += 1) await (await fetch(`${BASE}/app/api/logement/013demarrage1`)).arrayBuffer();
  const form = new FormData();
  form.append('tax', new Blob([new Uint8Array(Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n'))], { type: 'application/pdf' }), 'avis.pdf');
  await (await fetch(`${BASE}/app/api/logement/upload-files/013demarrage1`, { method: 'POST', headers: { 'x-access-key': data.accessKey }, body: form })).arrayBuffer();
  await (await fetch(`${BASE}/app/api/logement/013demarrage1/attestation.pdf`, { headers: { 'x-access-key': data.accessKey } })).arrayBuffer();
  await (await fetch(`${BASE}/app/api/logement`)).arrayBuffer();
  await new Promise((r) => setTimeout(r, 2000)); // the creation's e-mail leaves
}

/**
 * RSS 2 s after the first answer, then idle: V8 keeps the young generation it grew while loading the
 * modules until its memory reducer runs, some 15 s after start on an idle process (then RSS falls by
 * ~40 MB), and may run again a few seconds later. Idle is the lowest figure seen within 30 s of the start, sampled
 * every 500 ms (the bench stopped 2 s after a first fall until 2026-11-26: the reducer's later passes went unseen).
 */
async function memory(): Promise<{ startMb: number; idleMb: number; idleAfterS: number; warmMb: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-demarrage-'));
  // With Node's options of `npm start` (docs/decisions/0025): the memory of the server as it runs.
  const child = spawn(process.execPath, [...drapeauxNode(ROOT), 'dist/server/main.js'], { cwd: ROOT, env: env(dataDir), stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  try {
    const started = performance.now();
    await firstAnswer(child, started);
    await new Promise((r) => setTimeout(r, 2000));
    const startMb = rssKb(child.pid!) / 1024;
    let idleMb = startMb;
    let idleAt = performance.now();
    while (performance.now() - started < 30_000) {
      await new Promise((r) => setTimeout(r, 500));
      const now = rssKb(child.pid!) / 1024;
      if (now < idleMb) {
        idleMb = now;
        idleAt = performance.now();
      }
    }
    await warmUp();
    return { startMb, idleMb, idleAfterS: (idleAt - started) / 1000, warmMb: rssKb(child.pid!) / 1024 };
  } finally {
    await stop(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const was = (value: number | null, unit: string) => (value === null ? '' : ` (c354b11: ${value.toFixed(0)} ${unit})`);

async function main(): Promise<void> {
  // The build up to date first, as after `npm install`.
  // (Run from a checkout of c354b11 for the "before" figures, which has no scripts/start.mjs.)
  if (fs.existsSync(path.join(ROOT, 'scripts/start.mjs'))) {
    const built = spawnSync(process.execPath, ['scripts/start.mjs', '--build-only'], { cwd: ROOT, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('the build failed');
  }
  const npmStart: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    npmStart.push(await timeStart('npm', ['start', '--silent']));
    bare.push(await timeStart(process.execPath, ['dist/server/main.js']));
  }
  const a = median(npmStart);
  const b = median(bare);
  console.log(`Start-up (issue 11 point 6), SQLite, median of ${RUNS}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs`);
  console.log(`  npm start, sources unchanged: first answer after ${a.toFixed(0)} ms${was(BEFORE.npmStartMs, 'ms')}`);
  console.log(`  node dist/server/main.js:     first answer after ${b.toFixed(0)} ms${was(BEFORE.bareMs, 'ms')}`);
  console.log(`  ratio ${(a / b).toFixed(2)}  target <= 2: ${a / b <= 2 ? 'met' : 'MISSED'}`);
  const { startMb, idleMb, idleAfterS, warmMb } = await memory();
  console.log(`  resident memory: 2 s after start ${startMb.toFixed(0)} MB${was(BEFORE.idleMb, 'MB, measured 2 s after start')}`);
  console.log(`                   idle ${idleMb.toFixed(0)} MB (lowest within 30 s, reached ${idleAfterS.toFixed(0)} s after start)  target <= 100 MB: ${idleMb <= 100 ? 'met' : 'MISSED'}`);
  console.log(`                   after a warm-up ${warmMb.toFixed(0)} MB${was(BEFORE.warmMb, 'MB')} (lookups, a creation and its e-mail, an upload, an attestation)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
