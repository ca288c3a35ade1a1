import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { enArrierePlan, enArrierePlanCedant } from '../worker/index.js';
import { EcritureTemp, EN_MEMOIRE_MAX } from './ecriture.js';
import type { Readable, Writable } from 'node:stream';
import type { VerdictPdf } from '../features/demandes/pdf.js';

/** Age past which a leftover temp or unreferenced file is surely not an upload under way. */
export const STALE_MS = 60 * 60 * 1000;

/** A file being written: invisible until committed under its key, gone once discarded. */
export interface TempFile {
  readonly stream: Writable;
  /**
   * Puts the file in its place under `key`. With `verifierPdf` (only where `verifiePdf`), checks it as a PDF first
   * (features/demandes/pdf.ts) in the same task of the background thread, and places it only when it passes: its
   * verdict then, and a refused file stays a temp file, for the caller to discard. Null without `verifierPdf`.
   */
  commit(key: string, options?: { verifierPdf?: boolean }): Promise<VerdictPdf | null>;
  /**
   * Whether `commit` can check a PDF itself: on local disk the background thread has the bytes (held in memory, or
   * in the temp file), and one task checks and places the file where there were two, each a wait for a turn of the
   * busy loop (issue 11). Not on S3: the bytes are on their way there; the caller checks them first.
   */
  readonly verifiePdf: boolean;
  discard(): Promise<void>;
}

/** The folder of profile pictures; every other top-level folder is a housing request's documents. */
export const AVATARS_PREFIX = 'avatars';

/** Where documents live. Keys are relative, slash-separated, made by the app (never by a client). */
export interface Storage {
  init(): Promise<void>;
  /** Resolves when the storage can be written now (for a readiness check); rejects with the reason otherwise. */
  verifier(): Promise<void>;
  createTemp(): TempFile;
  read(key: string): Readable;
  remove(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Every stored key with its last change (for the orphan sweep). */
  keys(): AsyncIterable<{ key: string; modifiedAt: Date }>;
  /** Temp files (uploads under way, or cut short by a crash) with their last change, for the sweep. */
  temps(): Promise<{ name: string; modifiedAt: Date }[]>;
  removeTemp(name: string): Promise<void>;
}

/**
 * Makes a rename or a new entry of `dir` durable: the file's data reaching the disk is not enough, the
 * folder's entry must too, or a power cut after the answer may leave the file under its old name.
 */
export async function syncDir(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Files of `dir` (not below) whose name matches, with their last change; none when `dir` does not exist. */
export async function filesOf(dir: string, match: (name: string) => boolean): Promise<{ name: string; modifiedAt: Date }[]> {
  let names: string[];
  try {
    names = await fsp.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: { name: string; modifiedAt: Date }[] = [];
  for (const name of names.filter(match)) {
    const stat = await fsp.stat(path.join(dir, name)).catch(() => undefined);
    if (stat?.isFile()) out.push({ name, modifiedAt: stat.mtime });
  }
  return out;
}

/** Local disk under one root; temp files in `root/.tmp`, then renamed into place (same filesystem). */
export class LocalStorage implements Storage {
  private readonly tmpDir: string;

  constructor(
    private readonly root: string,
    /** The size up to which a file is held in memory until its commit (ecriture.ts). */
    private readonly enMemoireMax = EN_MEMOIRE_MAX,
  ) {
    this.tmpDir = path.join(root, '.tmp');
  }

  /** Creates the folders; the leftovers of a crash are removed by the sweep (features/demandes/upload.ts). */
  async init(): Promise<void> {
    await fsp.mkdir(this.tmpDir, { recursive: true });
  }

  async verifier(): Promise<void> {
    await fsp.access(this.root, fs.constants.W_OK);
    await fsp.access(this.tmpDir, fs.constants.W_OK);
  }

  temps(): Promise<{ name: string; modifiedAt: Date }[]> {
    return filesOf(this.tmpDir, () => true);
  }

  async removeTemp(name: string): Promise<void> {
    if (name !== path.basename(name) || name.startsWith('.')) throw new Error(`Fichier temporaire refusé : ${name}`);
    await fsp.rm(path.join(this.tmpDir, name), { force: true });
  }

  private resolve(key: string): string {
    const full = path.resolve(this.root, key);
    if (!full.startsWith(this.root + path.sep) || full.startsWith(this.tmpDir + path.sep)) {
      throw new Error(`Clé de stockage refusée : ${key}`);
    }
    return full;
  }

  createTemp(): TempFile {
    const tmpPath = path.join(this.tmpDir, randomUUID());
    // A small file held in memory until its commit, a larger one streamed to its temp file (ecriture.ts); either
    // way its data reaches the disk before it is put in place, so a committed file is a whole file.
    const stream = new EcritureTemp(tmpPath, this.enMemoireMax);
    // A writer that ends the stream with a buffer (a photo, an avatar) listens to nothing: the error a write met (disk
    // full, no permission) is kept for the commit, which gives it as its cause (errors.ts answers 507 or 503 by it).
    let erreur: Error | undefined;
    stream.on('error', (error) => {
      erreur ??= error;
    });
    let settled = false;
    const whenClosed = () =>
      new Promise<void>((resolve) => {
        if (stream.closed) resolve();
        else stream.once('close', () => resolve());
      });
    return {
      stream,
      verifiePdf: true,
      commit: async (key: string, options?: { verifierPdf?: boolean }) => {
        if (settled) throw new Error('Fichier temporaire déjà traité');
        const target = this.resolve(key);
        settled = true;
        const verifierPdf = options?.verifierPdf === true;
        try {
          await whenClosed();
          // A write that failed or was cut short (the stream destroyed before its end) is never committed.
          if (!stream.writableFinished) throw new Error('Fichier temporaire incomplet : son écriture n’est pas allée au bout', { cause: erreur });
          // Checked if asked, written if it was held in memory, moved into place and made durable (with its folders)
          // before the caller records it, on the background thread: one wait here instead of one turn of the event
          // loop for each step (placer.ts).
          const octets = stream.enMemoire();
          const verdict = octets
            ? await enArrierePlanCedant('placerOctets', [octets.buffer], octets, tmpPath, target, this.root, verifierPdf)
            : await enArrierePlan('placerFichier', tmpPath, target, this.root, verifierPdf);
          if (verdict && !verdict.ok) {
            // Refused: nothing was placed; the temp file is the caller's to discard.
            settled = false;
            return verdict;
          }
          stream.liberer();
          return verdict;
        } catch (error) {
          // Not committed: no file under the key (the caller records nothing), the temp file still ours to discard.
          // Whatever failed (a step of placer.ts, or the thread itself after the rename), what reached the key goes
          // (each key is a new one: nothing else can be there).
          await fsp.rm(target, { force: true }).catch(() => {});
          settled = false;
          throw error;
        }
      },
      discard: async () => {
        if (settled) return;
        settled = true;
        stream.liberer();
        // Whatever the stream still reports (say, its file already removed) no longer matters.
        stream.on('error', () => {});
        stream.destroy();
        await whenClosed();
        await fsp.rm(tmpPath, { force: true });
      },
    };
  }

  read(key: string): Readable {
    return fs.createReadStream(this.resolve(key));
  }

  async remove(key: string): Promise<void> {
    const target = this.resolve(key);
    await fsp.rm(target, { force: true });
    // Tidy the now-empty folders between the file and the root.
    let dir = path.dirname(target);
    while (dir.startsWith(this.root + path.sep)) {
      try {
        await fsp.rmdir(dir);
      } catch {
        break;
      }
      dir = path.dirname(dir);
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await fsp.stat(this.resolve(key))).isFile();
    } catch {
      return false;
    }
  }

  async *keys(): AsyncIterable<{ key: string; modifiedAt: Date }> {
    const entries = await fsp.readdir(this.root, { recursive: true, withFileTypes: true });
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      if (full.startsWith(this.tmpDir + path.sep)) continue;
      const stat = await fsp.stat(full).catch(() => undefined);
      if (!stat) continue;
      yield { key: path.relative(this.root, full).split(path.sep).join('/'), modifiedAt: stat.mtime };
    }
  }
}
