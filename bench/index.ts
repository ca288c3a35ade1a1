// `npm run bench [-- --quick]`: every bench in one run, on SQLite then on PostgreSQL, then a summary of
// the lines that name a target. Prints figures; asserts nothing (a bench that crashes is reported, and
// makes the run exit 1, so that CI notices a bench that no longer runs).
//   --quick        small sizes and short rounds (CI runs this: it checks the benches run, not the figures)
//   BENCH_PG=0     skip PostgreSQL; BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/test)
// Each bench is its own process, run one after the other: they would otherwise share the two cores.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const PG_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Bench {
  script: string;
  label: string;
  /** Runs once more on PostgreSQL. */
  both: boolean;
  /** Runs on PostgreSQL only, when one answers (a move from SQLite to PostgreSQL). */
  postgresSeul?: true;
  /** Runs once, given PostgreSQL's URL when one answers: the script measures SQLite, then PostgreSQL, itself. */
  lesDeuxEnUn?: true;
  env?: Record<string, string>;
}

const BENCHES: Bench[] = [
  { script: 'web-size.ts', label: 'web: first load', both: false },
  { script: 'run.ts', label: 'status lookup and upload', both: true },
  { script: 'gestion.ts', label: "managers' list at 100,000", both: true },
  { script: 'charge.ts', label: 'mixed load of 200 connections, longest event-loop stall', both: false, lesDeuxEnUn: true },
  { script: 'signalements.ts', label: 'technical reports at 50,000', both: true },
  { script: 'stockage.ts', label: 'storage: disk vs S3 (local server), 100 files of 2 MB', both: false },
  { script: 'demarrage.ts', label: 'start-up time and idle memory', both: false },
  { script: 'lighthouse.ts', label: 'Lighthouse mobile LCP vs a static page', both: false },
  { script: 'fuzz.ts', label: 'generated hostile requests', both: false, env: quick ? { FUZZ_CASES: '300' } : {} },
  { script: 'migrer.ts', label: 'migrate-data SQLite → PostgreSQL + S3, 10,000 requests with documents', both: false, postgresSeul: true },
];

async function postgresAnswers(): Promise<boolean> {
  if (process.env.BENCH_PG === '0') return false;
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function run(bench: Bench, databaseUrl: string | undefined, targets: string[]): Promise<number> {
  const kind = databaseUrl ? 'PostgreSQL' : 'SQLite';
  const title = `${bench.label} (${bench.script}${bench.both ? `, ${kind}` : ''})`;
  console.log(`\n=== ${title}`);
  const env: NodeJS.ProcessEnv = { ...process.env, ...bench.env };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  const args = ['--import', 'tsx', path.join(ROOT, 'bench', bench.script), ...(quick ? ['--quick'] : [])];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (/target|met\b|MISSED/u.test(line)) targets.push(`[${bench.script}${bench.both ? ` ${kind}` : ''}] ${line.trim()}`);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<void> {
  const withPostgres = await postgresAnswers();
  console.log(`benches${quick ? ' (--quick)' : ''}: SQLite${withPostgres ? ` and PostgreSQL (${PG_URL.replace(/\/\/[^@]*@/u, '//')})` : ' only (no PostgreSQL answered)'}`);
  const targets: string[] = [];
  const failed: string[] = [];
  for (const bench of BENCHES) {
    if (bench.postgresSeul) {
      const pgCode = withPostgres ? await run(bench, PG_URL, targets) : 0;
      if (pgCode !== 0) failed.push(`${bench.script} PostgreSQL (exit ${pgCode})`);
      continue;
    }
    if (bench.lesDeuxEnUn) {
      const code = await run(bench, withPostgres ? PG_URL : undefined, targets);
      if (code !== 0) failed.push(`${bench.script} (exit ${code})`);
      continue;
    }
    const code = await run(bench, undefined, targets);
    if (code !== 0) failed.push(`${bench.script} SQLite (exit ${code})`);
    if (bench.both && withPostgres) {
      const pgCode = await run(bench, PG_URL, targets);
      if (pgCode !== 0) failed.push(`${bench.script} PostgreSQL (exit ${pgCode})`);
    }
  }
  console.log('\n=== Summary: every line that names a target');
  for (const line of targets) console.log(line);
  if (failed.length > 0) {
    console.log(`\nbenches that did not run to the end: ${failed.join(', ')}`);
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
