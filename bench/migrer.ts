// `npm run migrate-data` figures (issue 15 point 4): the time to move a one-server installation, SQLite and files
// on disk, to PostgreSQL and an S3-compatible bucket. Prints figures; asserts nothing.
//   DATABASE_URL=postgres://… npx tsx bench/migrer.ts [--quick]
// 10,000 requests with 2 small PDF documents each (--quick: 500); BENCH_REQUESTS, BENCH_DOC_KB (average size, 20)
// change them. The target is a fresh PostgreSQL database (dropped after) and s3rver on loopback, in a process of its
// own (the migration's CPU is measured alone; a real bucket is further away). Without DATABASE_URL, says so and stops.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import S3rver from 's3rver';
import { lireArguments, migrer, resume, reussie } from '../src/server/cli/migrer-donnees.js';
import { loadConfig } from '../src/server/config.js';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from '../test/db.js';
import { s3rverSansCourse } from '../test/s3.js';
import { semerAvecDocuments } from './seed.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// The S3 server's own process: `bench/migrer.ts --serveur-s3 <dir>` prints its port, serves until killed.
if (process.argv[2] === '--serveur-s3') {
  s3rverSansCourse();
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.argv[3]!, configureBuckets: [{ name: 'qv-bench', configs: [] }] });
  const { port } = await server.run();
  process.send!({ port });
} else {
  await bench();
}

async function bench(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const REQUESTS = Number(process.env.BENCH_REQUESTS ?? (quick ? 500 : 10_000));
  const DOC_KB = Number(process.env.BENCH_DOC_KB ?? 20);
  if (!process.env.DATABASE_URL) {
    console.log('migrate-data: skipped (it needs PostgreSQL: DATABASE_URL=postgres://…)');
    return;
  }
  const mb = (octets: number) => `${(octets / 1024 / 1024).toFixed(1)} MB`;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

  const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-bench-migrer-'));
  const target = await freshDatabaseUrl('qv_bench_migrer');
  const s3 = fork(fileURLToPath(import.meta.url), ['--serveur-s3', path.join(work, 's3')], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    await fsp.mkdir(path.join(work, 's3'));
    const port = await new Promise<number>((resolve, reject) => {
      s3.once('message', (m: { port: number }) => resolve(m.port));
      s3.once('exit', (code) => reject(new Error(`s3rver exited (${code})`)));
    });

    // The old server's DATA_DIR: SQLite at the last migration, documents under uploads/.
    const from = path.join(work, 'ancien');
    const { db } = openDatabase({ databaseUrl: undefined, dataDir: from });
    await migrate(db);
    let seeded = performance.now();
    // Two documents per request, a PDF of DOC_KB on average each.
    const octets = await semerAvecDocuments(db, path.join(from, 'uploads'), REQUESTS, () =>
      (['identity', 'tax'] as const).map((category) => ({
        category,
        content: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(Math.round(DOC_KB * 1024 * (0.5 + Math.random()))), Buffer.from('\n%%EOF\n')]),
      })),
    );
    await db.destroy();
    seeded = performance.now() - seeded;
    console.log(`source: SQLite, ${REQUESTS} requests, ${REQUESTS * 2} documents (${mb(octets)}) written in ${s(seeded)}`);

    const env = {
      DATA_DIR: path.join(work, 'nouveau'),
      LOG_LEVEL: 'silent',
      STORAGE: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: 'qv-bench',
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    };
    const args = lireArguments(['--from', from, '--to', target.url!]);
    if (typeof args === 'string') throw new Error(args);
    const started = performance.now();
    let lignesFinies = 0;
    const bilan = await migrer(loadConfig(env), args, {
      ecrire: (ligne) => {
        if (ligne.startsWith('Fichiers :')) lignesFinies = performance.now() - started;
      },
    });
    const ms = performance.now() - started;
    if (!reussie(bilan)) throw new Error(resume(bilan));
    const fichiers = bilan.fichiers.copies;
    console.log(
      `migrate-data SQLite → PostgreSQL + S3 (s3rver on loopback): ${REQUESTS} requests, ${fichiers} files (${mb(octets)}) in ${s(ms)} — rows ${s(lignesFinies)}, files ${s(ms - lignesFinies)} (${(fichiers / ((ms - lignesFinies) / 1000)).toFixed(0)} files/s, each streamed, committed and read back)`,
    );
  } finally {
    s3.kill();
    await target.drop();
    await fsp.rm(work, { recursive: true, force: true });
  }
}
