// Preloaded into a server by the load bench (`node --import ./bench/boucle.mjs dist/server/main.js`): measures
// the event loop's delays from inside, without touching the app. Every SIGUSR2 writes the figures since the
// previous one (max and p99 in ms, event-loop utilisation, and where the CPU went: the main thread's time on a core and
// waiting for one, the whole process's CPU) as one JSON line appended to BOUCLE_OUT, then starts afresh: the bench
// signals once before its load (start-up left out) and once after it.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const out = process.env.BOUCLE_OUT;
if (out) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let elu = performance.eventLoopUtilization();
  let cpu = mesureCpu();
  process.on('SIGUSR2', () => {
    const used = performance.eventLoopUtilization(elu);
    const now = mesureCpu();
    const seconds = (now.wallNs - cpu.wallNs) / 1e9;
    const line = {
      maxMs: histogram.max / 1e6,
      p99Ms: histogram.percentile(99) / 1e6,
      meanMs: histogram.mean / 1e6,
      utilisation: used.utilization,
      rssKb: Math.round(process.memoryUsage.rss() / 1024),
      // Shares of the wall time (Linux's schedstat; null elsewhere): a thread whose loop is busy 100 % may still spend
      // part of it waiting for a core that other threads and processes hold.
      mainOnCpu: now.sched && cpu.sched ? (now.sched.onCpuNs - cpu.sched.onCpuNs) / 1e9 / seconds : null,
      mainWaitingForCpu: now.sched && cpu.sched ? (now.sched.waitingNs - cpu.sched.waitingNs) / 1e9 / seconds : null,
      // Cores' worth of CPU used by the whole process (main thread, background thread, libuv's pool, V8's helpers).
      processCores: (now.processUs - cpu.processUs) / 1e6 / seconds,
    };
    fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
    histogram.reset();
    elu = performance.eventLoopUtilization();
    cpu = now;
    profile();
  });
}

/** The main thread's scheduler figures (ns on a core, ns runnable but waiting for one), the process's CPU, the time. */
function mesureCpu() {
  let sched = null;
  try {
    const [onCpuNs, waitingNs] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(' ').map(Number);
    sched = { onCpuNs, waitingNs };
  } catch {
    // Not Linux, or a kernel without schedstat.
  }
  const { user, system } = process.cpuUsage();
  return { sched, processUs: user + system, wallNs: Number(process.hrtime.bigint()) };
}

// BOUCLE_PROFILE=file.cpuprofile: the CPU profile of the main thread between the first two signals (the load).
const profileFile = process.env.BOUCLE_PROFILE;
let session = null;
let signals = 0;
function profile() {
  if (!profileFile) return;
  signals += 1;
  if (signals === 1) {
    session = new Session();
    session.connect();
    session.post('Profiler.enable', () => session.post('Profiler.start'));
  } else if (signals === 2 && session) {
    session.post('Profiler.stop', (error, result) => {
      if (!error) fs.writeFileSync(profileFile, JSON.stringify(result.profile));
      session.disconnect();
    });
  }
}
