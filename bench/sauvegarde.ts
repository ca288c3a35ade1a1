// Backup and restore figures (issue 10): archive size and time for 10,000 requests with documents.
// Prints figures; asserts nothing; not part of `npm run bench` nor CI (it writes a few GB).
//   npx tsx bench/sauvegarde.ts                              SQLite
//   DATABASE_URL=postgres://… npx tsx bench/sauvegarde.ts    PostgreSQL (a fresh database, dropped after)
// BENCH_REQUESTS (10000), BENCH_DOCS (documents per request, 2), BENCH_DOC_KB (average size, 150):
// documents are random bytes behind a PDF header, as incompressible as real scans and photos.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Insertable } from 'kysely';
import { backup } from '../src/server/cli/backup.js';
import { restore } from '../src/server/cli/restore.js';
import { loadConfig } from '../src/server/config.js';
import { migrate, openDatabase } from '../src/server/db/index.js';
import type { DocumentTable } from '../src/server/db/schema.js';
import { freshDatabaseUrl } from '../test/db.js';
import { generatedRequest } from './seed.js';

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
  let documentBytes = 0;
  const uploads = path.join(dataDir, 'uploads');
  for (let i = 0; i < REQUESTS; i += 500) {
    const requests = Array.from({ length: Math.min(500, REQUESTS - i) }, (_, j) => generatedRequest(i + j));
    const documents: Insertable<DocumentTable>[] = [];
    for (const request of requests) {
      for (let d = 0; d < DOCS; d += 1) {
        // Sizes spread from a third to five thirds of the average.
        const size = Math.round(DOC_KB * 1024 * (1 / 3 + (4 / 3) * Math.random()));
        const content = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(size)]);
        const id = randomUUID();
        const storageKey = `${request.id}/${id}/identity-${d + 1}-piece.pdf`;
        await fsp.mkdir(path.dirname(path.join(uploads, storageKey)), { recursive: true });
        await fsp.writeFile(path.join(uploads, storageKey), content);
        documentBytes += content.length;
        documents.push({
          id,
          housingRequestId: request.id,
          category: 'identity',
          position: d + 1,
          storageKey,
          originalName: 'piece.pdf',
          contentType: 'application/pdf',
          size: content.length,
          sha256: createHash('sha256').update(content).digest('hex'),
          uploadedAt: new Date().toISOString(),
        });
      }
    }
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('housingRequests').values(requests).execute();
      if (documents.length > 0) await trx.insertInto('documents').values(documents).execute();
    });
  }
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
