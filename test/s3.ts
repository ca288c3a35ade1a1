import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { IncomingMessage, Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { clientS3 } from '../src/server/storage/s3.js';

/**
 * A real S3-compatible server on loopback for one test file: s3rver (pure npm, objects in a temp folder), on a
 * free port of 127.0.0.1, with one bucket (docs/decisions/0018). `env` is the app's configuration to use it;
 * `client` reads the bucket directly, as an operator's tool would.
 */
export interface ServeurS3 {
  endpoint: string;
  bucket: string;
  env: Record<string, string>;
  client: S3Client;
  /** The requests the server received (`PUT /bucket/key?partNumber=1&uploadId=…`), in order. */
  requetes: string[];
  /** Every object key of the bucket (under `prefix`), sorted. */
  objets(prefix?: string): Promise<string[]>;
  close(): Promise<void>;
}

// The SDK warns once per process that its 2027 releases will need Node 22 (docs/decisions/0018): said there, not in every run.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** s3rver's fixed credentials (it checks the signature made with them). */
const ACCES = 'S3RVER';

let corrige = false;
/**
 * Two races of s3rver, patched in this process (once; every server it starts has them):
 * - it removes a folder left empty by a deletion while another request is about to write in it (the temp objects'
 *   `.tmp/`): with several uploads at once it crashes on ENOENT. Deletions leave the folders;
 * - it answers a PUT (object or part) once the body is read, before the file is written, or even opened: a copy made
 *   right after could find no object (NoSuchKey, seen once in CI) or a short one. It answers once the file is closed.
 */
export function s3rverSansCourse(): void {
  if (corrige) return;
  corrige = true;
  interface Store {
    deleteObject(bucket: string, key: string): Promise<void>;
    getResourcePath(bucket: string, key: string | undefined, resource: string): string;
    putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: unknown }): Promise<{ size: number; md5: string }>;
    putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
    putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<{ size: number; md5: string }>;
  }
  const Store = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as { prototype: Store };
  Store.prototype.deleteObject = async function (this: Store, bucket, key) {
    for (const resource of ['object', 'object.md5', 'metadata.json']) await fsp.rm(this.getResourcePath(bucket, key, resource), { force: true });
  };
  /** Writes the bytes to the file and settles once it is closed. */
  const ecrire = async (content: Buffer | Readable, fichier: string) => {
    await fsp.mkdir(path.dirname(fichier), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const compter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, compter, fs.createWriteStream(fichier));
    return { size, md5: md5.digest('hex') };
  };
  Store.prototype.putObject = async function (this: Store, object) {
    const ecrit = await ecrire(object.content, this.getResourcePath(object.bucket, object.key, 'object'));
    await this.putMetadata(object.bucket, object.key, object.metadata, ecrit.md5);
    return ecrit;
  };
  Store.prototype.putPart = async function (this: Store, bucket, uploadId, partNumber, content) {
    const fichier = path.join(this.getResourcePath(bucket, undefined, 'uploads'), uploadId, String(partNumber));
    const ecrit = await ecrire(content, fichier);
    await fsp.writeFile(`${fichier}.md5`, ecrit.md5);
    return ecrit;
  };
}

export async function demarrerS3(bucket = 'quartier-vivant'): Promise<ServeurS3> {
  s3rverSansCourse();
  const directory = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const requetes: string[] = [];
  (server as unknown as { httpServer: Server }).httpServer.on('request', (req: IncomingMessage) => requetes.push(`${req.method} ${req.url}`));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = clientS3({ endpoint, region: 'us-east-1', credentials: { accessKeyId: ACCES, secretAccessKey: ACCES }, forcePathStyle: true });
  return {
    endpoint,
    bucket,
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: ACCES,
      S3_SECRET_ACCESS_KEY: ACCES,
      S3_FORCE_PATH_STYLE: 'true',
    },
    client,
    requetes,
    objets: async (prefix = '') => {
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) for (const o of page.Contents ?? []) keys.push(o.Key!);
      return keys.sort();
    },
    close: async () => {
      client.destroy();
      await server.close();
      await fsp.rm(directory, { recursive: true, force: true });
    },
  };
}
