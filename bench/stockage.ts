// Storage throughput (issue 15, « Figures »): 100 files of 2 MB written then read back, on the local disk and on an
// S3-compatible server on loopback (s3rver, as the tests use), through the app's own drivers (LocalStorage,
// S3Storage: the same createTemp → commit and read that uploads and downloads go through), 4 at a time.
//   npx tsx bench/stockage.ts [--quick]       --quick: 20 files
// Prints MB/s each way and the ratio S3 / disk. s3rver keeps objects as files on the same disk and is written in
// JavaScript on the same two cores: a real object store (MinIO, a cloud bucket) has other figures; this one says what
// the driver costs (the SDK's signing, multipart, the temp object copied into place on commit).
import { createHash, randomBytes } from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { LocalStorage, type Storage } from '../src/server/storage/index.js';
import { S3Storage } from '../src/server/storage/s3.js';
import { demarrerS3 } from '../test/s3.js';

const QUICK = process.argv.includes('--quick');
const FILES = QUICK ? 20 : 100;
const SIZE = 2 * 1024 * 1024;
const PARALLEL = 4;

async function parLots<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function mesurer(nom: string, storage: Storage, contenus: Buffer[]): Promise<{ ecriture: number; lecture: number }> {
  await storage.init();
  const attendus = contenus.map((c) => createHash('sha256').update(c).digest('hex'));
  const debut = performance.now();
  await parLots(
    contenus.map((c, i) => [c, i] as const),
    async ([contenu, i]) => {
      const temp = storage.createTemp();
      await pipeline(Readable.from([contenu]), temp.stream);
      await temp.commit(`bench/${i}.pdf`);
    },
  );
  const ecritureS = (performance.now() - debut) / 1000;
  const milieu = performance.now();
  await parLots(
    contenus.map((_c, i) => i),
    async (i) => {
      if ((await sha256(storage.read(`bench/${i}.pdf`))) !== attendus[i]) throw new Error(`${nom} : le fichier ${i} relu diffère`);
    },
  );
  const lectureS = (performance.now() - milieu) / 1000;
  const mo = (contenus.length * SIZE) / 1e6;
  const ecriture = mo / ecritureS;
  const lecture = mo / lectureS;
  console.log(`${nom.padEnd(6)} write ${ecriture.toFixed(1)} MB/s (${ecritureS.toFixed(2)} s), read ${lecture.toFixed(1)} MB/s (${lectureS.toFixed(2)} s), every file read back identical`);
  return { ecriture, lecture };
}

async function main(): Promise<void> {
  console.log(`${FILES} files of 2 MB, ${PARALLEL} at a time (load average ${os.loadavg()[0]!.toFixed(1)})`);
  const contenus = Array.from({ length: FILES }, () => randomBytes(SIZE));
  const dossier = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-bench-stockage-'));
  const s3 = await demarrerS3('bench');
  try {
    const disque = await mesurer('disk', new LocalStorage(path.join(dossier, 'uploads')), contenus);
    const objet = await mesurer('S3', new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'uploads/' }), contenus);
    console.log(
      `S3 / disk: write ${(objet.ecriture / disque.ecriture).toFixed(2)}, read ${(objet.lecture / disque.lecture).toFixed(2)} (no target: figures to compare, s3rver on the same machine)`,
    );
  } finally {
    await s3.close();
    await fsp.rm(dossier, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
