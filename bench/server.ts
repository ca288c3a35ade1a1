// Server processes for the benches: free ports, start/stop `dist/server/main.js`, wait until it
// answers, and sample its resident memory (VmRSS) from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { drapeauxNode } from '../scripts/drapeaux-node.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FIRST_PORT = Number(process.env.BENCH_PORT ?? 3950);

export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

export async function freePorts(count: number): Promise<number[]> {
  const out: number[] = [];
  for (let port = FIRST_PORT; port <= FIRST_PORT + 10 && out.length < count; port += 1) {
    if (await portFree(port)) out.push(port);
  }
  if (out.length < count) throw new Error(`no ${count} free ports in ${FIRST_PORT}-${FIRST_PORT + 10}`);
  return out;
}

/**
 * The server as `npm start` runs it, with Node's options of package.json's `start` (docs/decisions/0025), those of the
 * checkout started.
 * `options.root`: another checkout's build (a "before" figure); `options.nodeArgs`: e.g. `--import ./bench/boucle.mjs`.
 */
export function startServer(env: Record<string, string>, options: { root?: string; nodeArgs?: string[] } = {}): ChildProcess {
  const root = options.root ?? ROOT;
  return spawn(process.execPath, [...drapeauxNode(root), ...(options.nodeArgs ?? []), path.join(root, 'dist/server/main.js')], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export async function waitFor(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`server exited (code ${child.exitCode}) before answering at ${url}`);
    try {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status < 500) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not answer at ${url}`);
}

export function rssKb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/u.exec(status)?.[1] ?? 0);
}

/**
 * Samples VmRSS of `pid` every 5 ms on a worker thread, so that the sampling keeps its pace while
 * the main thread is busy reading the download. stop() returns the peak (kB) and the sample count.
 */
export function rssSampler(pid: number): { stop(): Promise<{ peakKb: number; samples: number }> } {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const fs = require('node:fs');
    let peak = 0, samples = 0;
    const sample = () => {
      try {
        const kb = Number(/VmRSS:\\s+(\\d+)/u.exec(fs.readFileSync('/proc/' + workerData.pid + '/status', 'utf8'))?.[1] ?? 0);
        if (kb > peak) peak = kb;
        samples += 1;
      } catch { /* process gone */ }
    };
    sample();
    const timer = setInterval(sample, 5);
    parentPort.on('message', () => {
      clearInterval(timer);
      sample();
      parentPort.postMessage({ peakKb: peak, samples });
      parentPort.close();
    });
  `;
  const worker = new Worker(code, { eval: true, workerData: { pid } });
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (m: { peakKb: number; samples: number }) => {
          void worker.terminate();
          resolve(m);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}
