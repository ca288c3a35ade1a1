import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Storage, TempFile } from './index.js';

/** How to reach an S3-compatible service (AWS, MinIO, Garage, Scaleway, OVHcloud…). */
export interface ConnexionS3 {
  /** Absent: AWS's own endpoint for the region. */
  endpoint?: string | undefined;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** `https://host/bucket/key` rather than `https://bucket.host/key` (MinIO and most self-hosted servers). */
  forcePathStyle: boolean;
}

/**
 * One client per connection, shared by the storages of one bucket (its sockets are pooled). Checksums only when
 * the operation requires one: the SDK's default (a CRC32 on every upload, since early 2025) is refused by many
 * S3-compatible servers; a document's SHA-256 is recorded at upload anyway (docs/decisions/0018).
 */
export function clientS3(connexion: ConnexionS3): S3Client {
  return new S3Client({
    ...(connexion.endpoint ? { endpoint: connexion.endpoint } : {}),
    region: connexion.region,
    // A plain copy: the config keeps the secret out of its enumerable properties (never logged).
    credentials: { accessKeyId: connexion.credentials.accessKeyId, secretAccessKey: connexion.credentials.secretAccessKey },
    forcePathStyle: connexion.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // A server that does not answer fails the call (a document upload answers an error) rather than hang it.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000, throwOnRequestTimeout: true },
  });
}

export interface S3StorageOptions {
  client: S3Client;
  bucket: string;
  /** Every key lives under it (`uploads/`, `photos-signalements/`): several storages share one bucket. '' or ending with '/'. */
  prefix: string;
}

/**
 * Multipart parts of 5 MiB (S3's minimum), two sent at once: an upload holds at most about three parts in
 * memory (two being sent, one being filled), whatever the file's size; a file smaller than a part is one PUT.
 */
const PART_SIZE = 5 * 1024 * 1024;
const QUEUE_SIZE = 2;

const TMP = '.tmp/';

/** An error that callers read as a missing file, as they read LocalStorage's (`code` ENOENT). */
function absent(key: string, cause: unknown): Error {
  return Object.assign(new Error(`Fichier absent du stockage : ${key}`, { cause }), { code: 'ENOENT' });
}

function estAbsent(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/** A key as CopyObject's source wants it: URL-encoded, segment by segment. */
const sourceDeCopie = (bucket: string, key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/**
 * An S3-compatible bucket under one prefix. A temp object (`<prefix>.tmp/<uuid>`) receives the file while the
 * caller writes it (lib-storage's Upload: multipart past one part, bounded memory); commit copies it to its key
 * (CopyObject: the object appears whole or not at all) then deletes the temp. Files up to 5 GB (CopyObject's
 * limit; documents are capped far lower, UPLOAD_MAX_MB ≤ 100).
 *
 * Unlike LocalStorage, an upload under way is invisible until its last part: a crash in the middle leaves an
 * incomplete multipart upload, which the bucket's lifecycle rule removes (docs/operations.md « Stockage S3 »).
 */
export class S3Storage implements Storage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3StorageOptions) {
    if (options.prefix !== '' && (!options.prefix.endsWith('/') || options.prefix.startsWith('/'))) {
      throw new Error(`Préfixe de stockage refusé : ${options.prefix}`);
    }
    this.client = options.client;
    this.bucket = options.bucket;
    this.prefix = options.prefix;
  }

  /** Nothing to create; a bucket that cannot be reached stops the start, as an unwritable DATA_DIR does. */
  async init(): Promise<void> {
    await this.verifier();
  }

  async verifier(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (error) {
      const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
      const detail = e.$metadata?.httpStatusCode ? `HTTP ${e.$metadata.httpStatusCode}` : (e.code ?? e.name ?? 'erreur inconnue');
      throw new Error(`le bucket S3 « ${this.bucket} » est introuvable ou inaccessible (${detail})`, { cause: error });
    }
  }

  /** The object's full key; refuses what LocalStorage refuses (leaving the prefix, the temp folder). */
  private objet(key: string): string {
    const segments = key.split('/');
    if (key.includes('\\') || key.includes('\0') || segments.some((s) => s === '' || s === '.' || s === '..') || `${segments[0]}/` === TMP) {
      throw new Error(`Clé de stockage refusée : ${key}`);
    }
    return this.prefix + key;
  }

  private async supprimer(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  createTemp(): TempFile {
    const tmpKey = `${this.prefix}${TMP}${randomUUID()}`;
    const stream = new PassThrough();
    // The writer hears of a failed upload through the stream it writes to; once it is done, nobody listens any more.
    stream.on('error', () => {});
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: tmpKey, Body: stream }, partSize: PART_SIZE, queueSize: QUEUE_SIZE });
    // Settles only once every request of the upload has (a failed or aborted multipart upload is aborted on S3).
    const uploaded = upload.done().then(() => undefined);
    // A failed upload stops reading: the writer would wait forever for room; it gets the error instead.
    uploaded.catch((error: unknown) => stream.destroy(error as Error));
    let settled = false;
    return {
      stream,
      // The bytes are on their way to S3: a PDF is checked before its commit.
      verifiePdf: false,
      commit: async (key: string, options?: { verifierPdf?: boolean }) => {
        if (options?.verifierPdf) throw new Error('Le stockage S3 ne vérifie pas les PDF en les plaçant : vérifiez-les avant.');
        if (settled) throw new Error('Fichier temporaire déjà traité');
        const target = this.objet(key);
        settled = true;
        try {
          // Fails too when the write failed or was cut short (the stream destroyed, even without an error).
          await uploaded;
        } catch (error) {
          settled = false;
          throw error;
        }
        try {
          await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: target, CopySource: sourceDeCopie(this.bucket, tmpKey) }));
        } catch (error) {
          // Not committed: no object under the key (a copy cut short may still have landed), the temp still ours to discard.
          await this.supprimer(target).catch(() => {});
          settled = false;
          throw error;
        }
        // Committed. A temp that cannot be deleted now is removed by the sweep (temps()).
        await this.supprimer(tmpKey).catch(() => {});
        return null;
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        // Stops the upload where it is (its parts are aborted), then removes the object if it was complete.
        stream.destroy(new Error('Envoi abandonné'));
        await uploaded.catch(() => {});
        await this.supprimer(tmpKey);
      },
    };
  }

  /**
   * The object's bytes, streamed. The GET starts when the stream is first read (a zip of 50 documents opens one
   * connection at a time) and follows the reader's pace; a missing key errors with `code` ENOENT.
   */
  read(key: string): Readable {
    const objet = this.objet(key);
    const controller = new AbortController();
    let body: Readable | undefined;
    let started = false;
    const out = new Readable({
      read: () => {
        if (body) {
          body.resume();
          return;
        }
        if (started) return;
        started = true;
        this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objet }), { abortSignal: controller.signal }).then(
          (answer) => {
            body = answer.Body as Readable;
            if (out.destroyed) {
              body.destroy();
              return;
            }
            body.on('data', (chunk: Buffer) => {
              if (!out.push(chunk)) body!.pause();
            });
            body.once('end', () => out.push(null));
            body.once('error', (error) => out.destroy(error));
          },
          (error: unknown) => out.destroy(estAbsent(error) ? absent(key, error) : (error as Error)),
        );
      },
      destroy: (error, callback) => {
        controller.abort();
        body?.destroy();
        callback(error);
      },
    });
    return out;
  }

  async remove(key: string): Promise<void> {
    await this.supprimer(this.objet(key));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objet(key) }));
      return true;
    } catch (error) {
      if (estAbsent(error)) return false;
      throw error;
    }
  }

  /** The objects under `prefix` with their last change (LastModified), page by page (1,000 a page). */
  private async *lister(prefix: string): AsyncIterable<{ name: string; modifiedAt: Date }> {
    for await (const page of paginateListObjectsV2({ client: this.client }, { Bucket: this.bucket, Prefix: prefix })) {
      for (const o of page.Contents ?? []) {
        if (!o.Key || o.Key.endsWith('/')) continue;
        // Without a date, the object counts as new: the sweep leaves it for a later pass.
        yield { name: o.Key.slice(prefix.length), modifiedAt: o.LastModified ?? new Date() };
      }
    }
  }

  async *keys(): AsyncIterable<{ key: string; modifiedAt: Date }> {
    for await (const { name, modifiedAt } of this.lister(this.prefix)) {
      if (!name.startsWith(TMP)) yield { key: name, modifiedAt };
    }
  }

  async temps(): Promise<{ name: string; modifiedAt: Date }[]> {
    const out: { name: string; modifiedAt: Date }[] = [];
    for await (const temp of this.lister(this.prefix + TMP)) if (!temp.name.includes('/')) out.push(temp);
    return out;
  }

  async removeTemp(name: string): Promise<void> {
    if (name === '' || name.includes('/') || name.startsWith('.')) throw new Error(`Fichier temporaire refusé : ${name}`);
    await this.supprimer(this.prefix + TMP + name);
  }
}
