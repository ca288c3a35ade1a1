import fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { IncomingMessage, Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
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
 * s3rver removes a folder left empty by a deletion while another request is about to write in it (the temp objects'
 * `.tmp/`): with several uploads at once it crashes on ENOENT. Patched in this process so that deletions leave the
 * folders (once; every server this process starts has it).
 */
export function s3rverSansCourse(): void {
  if (corrige) return;
  corrige = true;
  const Store = createRequire(import.meta.url)('s3rver/lib/stores/filesystem.js') as {
    prototype: { deleteObject(bucket: string, key: string): Promise<void>; getResourcePath(bucket: string, key: string, resource: string): string };
  };
  Store.prototype.deleteObject = async function (this: typeof Store.prototype, bucket: string, key: string) {
    for (const resource of ['object', 'object.md5', 'metadata.json']) await fsp.rm(this.getResourcePath(bucket, key, resource), { force: true });
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
