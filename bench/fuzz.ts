// Generated hostile requests across the route table (issue 9, "Tests and output"). Prints figures and
// exits 1 on any 5xx or undocumented error.
//   npx tsx bench/fuzz.ts                         SQLite, then PostgreSQL when DATABASE_URL is set
//   FUZZ_CASES=20000 FUZZ_SEED=7 npx tsx bench/fuzz.ts
// The same generators as test/routes.test.ts (test/generated-inputs.ts), which runs a small seed in CI:
// anonymous, resident, manager (with the request's private key) and admin callers; bad path parameters,
// queries, bodies, content types and headers; NULs, huge values.
import { apiRoutes, generateCases, problemWith, send, type Caller } from '../test/generated-inputs.js';
import { createAccount, createTestApp, demande, multipart, SAMPLES } from '../test/helpers.js';

const COUNT = Number(process.env.FUZZ_CASES ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 2026);
const CONCURRENCY = 8;

async function run(kind: 'SQLite' | 'PostgreSQL'): Promise<boolean> {
  const started = Date.now();
  const ctx = await createTestApp({}, { logger: false });
  try {
    const origin = new URL(ctx.config.publicUrl).origin;
    const manager = await createAccount(ctx, 'manager');
    const admin = await createAccount(ctx, 'admin');
    const habitant = await createAccount(ctx, 'habitant');
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() });
    const { numeroUnique, accessKey } = created.json().data as { numeroUnique: string; accessKey: string };
    const form = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf, type: 'application/pdf' }]);
    const uploaded = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...form.headers, 'x-access-key': accessKey }, payload: form.payload });
    const documentId = uploaded.json().data.documents.livret[0].id as string;
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${(ctx.app.server.address() as { port: number }).port}`;

    const callers: Caller[] = [
      { label: 'anonymous', headers: {} },
      { label: 'resident', headers: { cookie: habitant.cookie, origin } },
      { label: 'manager', headers: { cookie: manager.cookie, 'x-access-key': accessKey, origin } },
      { label: 'admin', headers: { cookie: admin.cookie, origin } },
    ];
    const cases = generateCases({
      routes: apiRoutes(ctx.app),
      callers,
      good: { numeroUnique: () => numeroUnique, id: () => documentId, uid: () => manager.uid, slug: () => 'jas-de-bouffan', '*': () => 'get-session' },
      seed: SEED,
      count: COUNT,
    });

    const byClass = new Map<string, number>();
    const problems: string[] = [];
    let fiveHundreds = 0;
    let failedToSend = 0;
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        try {
          const answer = await send(base, c.method, c.url, { headers: c.headers, body: c.body });
          const klass = `${Math.floor(answer.status / 100)}xx`;
          byClass.set(klass, (byClass.get(klass) ?? 0) + 1);
          if (answer.status >= 500) fiveHundreds += 1;
          const problem = problemWith(answer);
          if (problem) problems.push(`${c.label}: ${problem}`);
        } catch (error) {
          // The client could not send it (fetch refuses some header values) or the server cut it.
          failedToSend += 1;
          if (failedToSend <= 5) console.log(`  not sent: ${c.label}: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const seconds = (Date.now() - started) / 1000;
    const classes = [...byClass.entries()].sort().map(([k, v]) => `${k} ${v}`).join(', ');
    console.log(`${kind}: ${cases.length} hostile requests (seed ${SEED}) in ${seconds.toFixed(1)} s: ${classes}; not sent ${failedToSend}; 5xx: ${fiveHundreds}`);
    for (const p of problems.slice(0, 20)) console.log(`  ${p}`);
    if (problems.length > 20) console.log(`  … ${problems.length - 20} more`);
    return fiveHundreds === 0 && problems.length === 0;
  } finally {
    await ctx.close();
  }
}

async function main() {
  const postgres = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL;
  let ok = await run('SQLite');
  if (postgres) {
    process.env.DATABASE_URL = postgres;
    ok = (await run('PostgreSQL')) && ok;
  } else {
    console.log('PostgreSQL: skipped (set DATABASE_URL=postgres://… to run it too)');
  }
  process.exit(ok ? 0 : 1);
}

void main();
