import fs from 'node:fs';
import { Writable } from 'node:stream';
import { aCeder } from '../worker/index.js';

/** Up to this size, a local temp file is held in memory and written once, at its commit. */
export const EN_MEMOIRE_MAX = 256 * 1024;
/**
 * What every temp file under way may hold in memory at once (a call may send 20 files, many calls may run at once):
 * past it, a file streams to disk as it comes.
 */
export const EN_MEMOIRE_TOTAL_MAX = 32 * 1024 * 1024;
let tenus = 0;

/** The bytes the temp files under way hold in memory now. */
export function octetsTenus(): number {
  return tenus;
}

/**
 * What is written to a local temp file. Up to `enMemoireMax` bytes it is held in memory: the commit then writes it,
 * syncs it and puts it in its place in one task of the background thread (placer.ts `placerOctets`), where streaming
 * it to disk took a turn of the busy event loop for each step (open, writes, the fsync at close, close: issue 11,
 * decision 0014). Past that size, what was held and what follows stream to the temp file (fs.WriteStream, its data
 * flushed to the disk before it closes), so a large file is never held whole.
 */
export class EcritureTemp extends Writable {
  private morceaux: Buffer[] | null = [];
  /** The bytes held, counted in `tenus` until let go. */
  private taille = 0;
  private fichier: fs.WriteStream | null = null;

  constructor(
    private readonly tmpPath: string,
    private readonly enMemoireMax = EN_MEMOIRE_MAX,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.morceaux && this.taille + chunk.length <= this.enMemoireMax && tenus + chunk.length <= EN_MEMOIRE_TOTAL_MAX) {
      this.morceaux.push(chunk);
      this.taille += chunk.length;
      tenus += chunk.length;
      done();
      return;
    }
    if (!this.fichier) {
      const fichier = fs.createWriteStream(this.tmpPath, { flags: 'wx', flush: true });
      fichier.on('error', (error) => this.destroy(error));
      this.fichier = fichier;
      for (const morceau of this.morceaux ?? []) fichier.write(morceau);
      this.liberer();
    }
    if (this.fichier.write(chunk)) done();
    else this.fichier.once('drain', () => done());
  }

  override _final(done: (error?: Error | null) => void): void {
    const fichier = this.fichier;
    if (!fichier) {
      done();
      return;
    }
    fichier.once('close', () => done(fichier.writableFinished ? null : (fichier.errored ?? new Error('Fichier temporaire incomplet'))));
    fichier.end();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    // Kept once finished (a finished stream is destroyed at once: autoDestroy), for the commit, which lets them go.
    if (!this.writableFinished) this.liberer();
    const fichier = this.fichier;
    if (!fichier || fichier.closed) {
      done(error);
      return;
    }
    fichier.once('close', () => done(error));
    fichier.destroy();
  }

  /** Lets go of what is held (once committed, or discarded). */
  liberer(): void {
    this.morceaux = null;
    tenus -= this.taille;
    this.taille = 0;
  }

  /**
   * The whole file when it was held in memory, in an ArrayBuffer of its own (handed over to the background thread,
   * never Buffer's shared pool); null when it went to its temp file.
   */
  enMemoire(): Uint8Array<ArrayBuffer> | null {
    if (this.fichier || !this.morceaux) return null;
    return aCeder(this.morceaux, this.taille);
  }
}
