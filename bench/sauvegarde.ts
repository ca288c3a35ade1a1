// Backup and restore figures (issue 10): archive size and time for 10,000 requests with documents.
// Prints figures; asserts nothing; not part of `npm run bench` nor CI (it writes a few GB).
//   npx tsx bench/sauvegarde.ts                              SQLite
//   DATABASE_URL=postgres://… npx tsx bench/sauvegarde.ts    PostgreSQL (a fresh database, dropped after)
// BENCH_REQUESTS (10000), BENCH_DOCS (documents per request, 2), BENCH_DOC_KB (average size, 150):
// documents are random bytes behind a PDF header, as incompressible as real scans and photos.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { backup } from '../src/server/cli/backup.js';
import { restore } from '../src/server/cli/restore.js';
import { loadConfig } from '../src/server/config.js';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from '../test/db.js';
import { semerAvecDocuments } from './seed.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
const DOCS = Number(process.env.BENCH_DOCS ?? 2);
const DOC_KB = Number(process.env.BENCH_DOC_KB ?? 150);

const mb = (octets: number) => `${(octets / 1024 / 1024).toFixed(1)} MB`;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const work = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-bench-sauvegarde-'));
const source = await freshDatabaseUrl('qv_bench_src');
const target = await freshDatabaseUrl('qv_bench_dst');
try {
  const dataDir = path.join(work, 'source');
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, { databaseUrl: source.url });
  const { db } = openDatabase({ databaseUrl: config.databaseUrl, dataDir });
  await migrate(db);

  let seeded = performance.now();
  // DOCS documents per request, sizes spread from a third to five thirds of the average.
  const documentBytes = await semerAvecDocuments(db, path.join(dataDir, 'uploads'), REQUESTS, () =>
    Array.from({ length: DOCS }, () => ({
      category: 'identity' as const,
      content: Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(Math.round(DOC_KB * 1024 * (1 / 3 + (4 / 3) * Math.random())))]),
    })),
  );
  await db.destroy();
  seeded = performance.now() - seeded;
  console.log(`${config.databaseUrl ? 'PostgreSQL' : 'SQLite'}: ${REQUESTS} requests, ${REQUESTS * DOCS} documents (${mb(documentBytes)}) written in ${s(seeded)}`);

  const archive = path.join(work, 'sauvegarde.tar.gz');
  const saved = await backup(config, archive);
  const dbSize = saved.manifest.database.size;
  console.log(`backup:  ${s(saved.ms)}, archive ${mb(saved.archiveSize)} (database ${mb(dbSize)}, ${saved.manifest.files.length} files), ${mb((documentBytes + dbSize) / (saved.ms / 1000))}/s`);

  const restoredDir = path.join(work, 'restauree');
  const restoreConfig = loadConfig({ DATA_DIR: restoredDir, PORT: '9', LOG_LEVEL: 'silent' }, { databaseUrl: target.url });
  const restored = await restore(restoreConfig, archive);
  console.log(`restore: ${s(restored.ms)} (checks every SHA-256, flushes every file)`);
  if (!fs.existsSync(path.join(restoredDir, 'uploads'))) throw new Error('nothing restored');
} finally {
  await source.drop();
  await target.drop();
  await fsp.rm(work, { recursive: true, force: true });
}
