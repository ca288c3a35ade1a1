// Preloaded into a server by the load bench (`node --import ./bench/boucle.mjs dist/server/main.js`): measures
// the event loop's delays from inside, without touching the app. Every SIGUSR2 writes the figures since the
// previous one (max and p99 in ms, event-loop utilisation) as one JSON line appended to BOUCLE_OUT, then starts
// afresh: the bench signals once before its load (start-up left out) and once after it.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const out = process.env.BOUCLE_OUT;
if (out) {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  let elu = performance.eventLoopUtilization();
  process.on('SIGUSR2', () => {
    const used = performance.eventLoopUtilization(elu);
    const line = {
      maxMs: histogram.max / 1e6,
      p99Ms: histogram.percentile(99) / 1e6,
      meanMs: histogram.mean / 1e6,
      utilisation: used.utilization,
      rssKb: Math.round(process.memoryUsage.rss() / 1024),
    };
    fs.appendFileSync(out, `${JSON.stringify(line)}\n`);
    histogram.reset();
    elu = performance.eventLoopUtilization();
    profile();
  });
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
