import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LocalStorage, type Storage } from '../src/server/storage/index.js';
import { EN_MEMOIRE_MAX } from '../src/server/storage/ecriture.js';
import { clientS3, S3Storage } from '../src/server/storage/s3.js';
import { demarrerS3, type ServeurS3 } from './s3.js';

/**
 * The Storage contract (src/server/storage/index.ts), one suite run against each driver: LocalStorage on a temp
 * folder, S3Storage on a real S3-compatible server on loopback (test/s3.ts). Each case gets a storage of its own:
 * a fresh folder, or a fresh prefix of the one bucket.
 */
interface Pilote {
  nom: string;
  nouveau(): Promise<Storage>;
  /** A storage that cannot be written: a folder that does not exist, a bucket that does not exist. */
  injoignable(): Storage;
  /** How many multipart parts the driver has sent so far (S3), or null when it has none (disk). */
  parties(): number | null;
}

let racine: string;
let s3: ServeurS3;
let n = 0;
beforeAll(async () => {
  racine = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-stockage-'));
  s3 = await demarrerS3();
});
afterAll(async () => {
  await s3?.close();
  await fsp.rm(racine, { recursive: true, force: true });
});

const prefixes = new Map<Storage, string>();
const pilotes: Pilote[] = [
  {
    nom: 'disque (LocalStorage)',
    nouveau: async () => {
      const storage = new LocalStorage(path.join(racine, `espace-${(n += 1)}`));
      await storage.init();
      return storage;
    },
    injoignable: () => new LocalStorage(path.join(racine, 'jamais-cree')),
    parties: () => null,
  },
  {
    nom: 'S3 (S3Storage)',
    nouveau: async () => {
      const prefix = `espace-${(n += 1)}/`;
      const storage = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix });
      prefixes.set(storage, prefix);
      await storage.init();
      return storage;
    },
    injoignable: () => new S3Storage({ client: s3.client, bucket: 'bucket-absent', prefix: 'uploads/' }),
    parties: () => s3.requetes.filter((r) => r.startsWith('PUT ') && r.includes('partNumber=')).length,
  },
];

async function lire(storage: Storage, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of storage.read(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function cles(storage: Storage): Promise<string[]> {
  const out: string[] = [];
  for await (const { key, modifiedAt } of storage.keys()) {
    expect(modifiedAt).toBeInstanceOf(Date);
    out.push(key);
  }
  return out.sort();
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe.each(pilotes)('Storage contract: $nom', (pilote) => {
  it('shows a file only once committed, whole, and then not as a temp', async () => {
    const storage = await pilote.nouveau();
    const temp = storage.createTemp();
    temp.stream.write(Buffer.from('Bonjour '));
    temp.stream.end(Buffer.from('le quartier'));
    expect(await storage.exists('demande/doc/livret-1-a.pdf')).toBe(false);
    expect(await cles(storage)).toEqual([]);
    await temp.commit('demande/doc/livret-1-a.pdf');
    expect(await storage.exists('demande/doc/livret-1-a.pdf')).toBe(true);
    expect((await lire(storage, 'demande/doc/livret-1-a.pdf')).toString('utf8')).toBe('Bonjour le quartier');
    expect(await cles(storage)).toEqual(['demande/doc/livret-1-a.pdf']);
    expect(await storage.temps()).toEqual([]);
    // Committed: discarding it now changes nothing, committing it again is refused.
    await temp.discard();
    expect(await storage.exists('demande/doc/livret-1-a.pdf')).toBe(true);
    await expect(temp.commit('autre/cle.pdf')).rejects.toThrow('déjà traité');
  });

  it('leaves nothing of a discarded file, whether cut in the middle or written whole', async () => {
    const storage = await pilote.nouveau();
    const coupe = storage.createTemp();
    coupe.stream.write(randomBytes(64 * 1024));
    await coupe.discard();
    const entier = storage.createTemp();
    // Larger than what the local disk holds in memory until the commit (ecriture.ts): on disk as a temp.
    entier.stream.end(randomBytes(EN_MEMOIRE_MAX + 1));
    await vi.waitFor(async () => expect(await storage.temps()).toHaveLength(1), { timeout: 5000 });
    await entier.discard();
    expect(await storage.temps()).toEqual([]);
    expect(await cles(storage)).toEqual([]);
    await expect(entier.commit('trop/tard.pdf')).rejects.toThrow('déjà traité');
  });

  it('commits nothing under the key when the write failed, and the temp is still discarded', async () => {
    const storage = await pilote.nouveau();
    const temp = storage.createTemp();
    const source = Readable.from(
      (async function* () {
        yield randomBytes(256 * 1024);
        throw new Error('connexion du client coupée');
      })(),
    );
    await expect(pipeline(source, temp.stream)).rejects.toThrow('connexion du client coupée');
    await expect(temp.commit('demande/doc/coupe.pdf')).rejects.toThrow();
    expect(await storage.exists('demande/doc/coupe.pdf')).toBe(false);
    expect(await cles(storage)).toEqual([]);
    await temp.discard();
    expect(await storage.temps()).toEqual([]);

    // A writer that stops without an error (the stream destroyed half-way) commits nothing either.
    const coupe = storage.createTemp();
    coupe.stream.write(randomBytes(64 * 1024));
    coupe.stream.destroy();
    await expect(coupe.commit('demande/doc/moitie.pdf')).rejects.toThrow();
    expect(await cles(storage)).toEqual([]);
    await coupe.discard();
    expect(await storage.temps()).toEqual([]);
  });

  it('commits nothing under the key when the move into place fails, and the temp is still discarded', async () => {
    const storage = await pilote.nouveau();
    const temp = storage.createTemp();
    temp.stream.end(Buffer.from('contenu'));
    // A name longer than the file system allows (255 bytes): the rename fails on disk, the copy fails in the
    // S3 server (s3rver keeps each object in a file named after its key).
    const cle = `demande/${'n'.repeat(300)}.pdf`;
    await expect(temp.commit(cle)).rejects.toThrow();
    expect(await cles(storage)).toEqual([]);
    expect(await storage.temps()).toHaveLength(1);
    await temp.discard();
    expect(await storage.temps()).toEqual([]);
    expect(await cles(storage)).toEqual([]);
  });

  it('errors like a missing file (code ENOENT) when reading a key that is not there', async () => {
    const storage = await pilote.nouveau();
    await expect(lire(storage, 'demande/doc/absent.pdf')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('removes a file (and a missing one without complaint), after which it neither exists nor reads', async () => {
    const storage = await pilote.nouveau();
    const temp = storage.createTemp();
    temp.stream.end(Buffer.from('à retirer'));
    await temp.commit('r/d/other-1-x.pdf');
    expect(await storage.exists('r/d/other-1-x.pdf')).toBe(true);
    await storage.remove('r/d/other-1-x.pdf');
    expect(await storage.exists('r/d/other-1-x.pdf')).toBe(false);
    await expect(lire(storage, 'r/d/other-1-x.pdf')).rejects.toMatchObject({ code: 'ENOENT' });
    await storage.remove('r/d/other-1-x.pdf');
    expect(await cles(storage)).toEqual([]);
  });

  it('lists committed keys in keys() and the temps in temps(), each apart, and removes a temp by name', async () => {
    const storage = await pilote.nouveau();
    for (const key of ['a/1/livret-1-a.pdf', 'a/2/salary-1-b.pdf', 'avatars/u/v.webp']) {
      const t = storage.createTemp();
      t.stream.end(Buffer.from(key));
      await t.commit(key);
    }
    const enAttente = storage.createTemp();
    enAttente.stream.end(Buffer.concat([Buffer.from('pas encore rangé'), randomBytes(EN_MEMOIRE_MAX)]));
    await vi.waitFor(async () => expect(await storage.temps()).toHaveLength(1), { timeout: 5000 });
    expect(await cles(storage)).toEqual(['a/1/livret-1-a.pdf', 'a/2/salary-1-b.pdf', 'avatars/u/v.webp']);
    const [temp] = await storage.temps();
    expect(temp!.modifiedAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    await expect(storage.removeTemp('../a/1/livret-1-a.pdf')).rejects.toThrow('refusé');
    await storage.removeTemp(temp!.name);
    expect(await storage.temps()).toEqual([]);
    expect(await cles(storage)).toHaveLength(3);
  });

  it('streams a 12 MB file in and out byte for byte (S3: a multipart upload)', async () => {
    const storage = await pilote.nouveau();
    const contenu = randomBytes(12 * 1024 * 1024);
    const partiesAvant = pilote.parties();
    const temp = storage.createTemp();
    // In 64 KB pieces, as a multipart request body arrives.
    await pipeline(
      Readable.from(
        (function* () {
          for (let at = 0; at < contenu.length; at += 64 * 1024) yield contenu.subarray(at, at + 64 * 1024);
        })(),
      ),
      temp.stream,
    );
    await temp.commit('grand/fichier.pdf');
    expect(sha256(await lire(storage, 'grand/fichier.pdf'))).toBe(sha256(contenu));
    // S3: in three parts of 5 MiB (the last one smaller), never the whole file in one request.
    if (partiesAvant !== null) expect(pilote.parties()! - partiesAvant).toBe(3);
  });

  it('keeps two storages apart (two folders, or two prefixes of one bucket)', async () => {
    const a = await pilote.nouveau();
    const b = await pilote.nouveau();
    const t = a.createTemp();
    t.stream.end(Buffer.from('de A'));
    await t.commit('meme/cle.pdf');
    const u = b.createTemp();
    u.stream.end(Buffer.from('de B'));
    await u.commit('autre/cle.pdf');
    expect(await cles(a)).toEqual(['meme/cle.pdf']);
    expect(await cles(b)).toEqual(['autre/cle.pdf']);
    expect(await b.exists('meme/cle.pdf')).toBe(false);
    await expect(lire(b, 'meme/cle.pdf')).rejects.toMatchObject({ code: 'ENOENT' });
    await b.remove('meme/cle.pdf');
    expect((await lire(a, 'meme/cle.pdf')).toString()).toBe('de A');
  });

  it('refuses keys that leave it or reach into its temps', async () => {
    const storage = await pilote.nouveau();
    for (const cle of ['../dehors.pdf', 'a/../../dehors.pdf', '/etc/passwd', '.tmp/x']) {
      expect(() => storage.read(cle), cle).toThrow('refusée');
      await expect(storage.remove(cle), cle).rejects.toThrow('refusée');
      const t = storage.createTemp();
      t.stream.end('x');
      await expect(t.commit(cle), cle).rejects.toThrow('refusée');
      await t.discard();
    }
    expect(await storage.temps()).toEqual([]);
  });

  it('says whether it can be written now (verifier)', async () => {
    const storage = await pilote.nouveau();
    await expect(storage.verifier()).resolves.toBeUndefined();
    await expect(pilote.injoignable().verifier()).rejects.toThrow();
    // Checking creates nothing.
    expect(fs.existsSync(path.join(racine, 'jamais-cree'))).toBe(false);
  });
});

describe('local storage', () => {
  it('is not ready once its temp folder is gone', async () => {
    const root = path.join(racine, 'sans-tmp');
    const storage = new LocalStorage(root);
    await storage.init();
    await expect(storage.verifier()).resolves.toBeUndefined();
    await fsp.rm(path.join(root, '.tmp'), { recursive: true });
    await expect(storage.verifier()).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('S3 storage', () => {
  it('keeps each prefix’s objects under it in the bucket, and its temps under <prefix>.tmp/', async () => {
    const uploads = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'uploads-x/' });
    const photos = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'photos-x/' });
    const t = uploads.createTemp();
    t.stream.end(Buffer.from('document'));
    await t.commit('r/d/livret-1-a.pdf');
    const p = photos.createTemp();
    p.stream.end(Buffer.from('photo'));
    await p.commit('s/p.jpg');
    const attente = photos.createTemp();
    attente.stream.end(Buffer.from('en cours'));
    await vi.waitFor(async () => expect(await s3.objets('photos-x/.tmp/')).toHaveLength(1), { timeout: 5000 });
    expect(await s3.objets('uploads-x/')).toEqual(['uploads-x/r/d/livret-1-a.pdf']);
    expect((await s3.objets('photos-x/')).filter((k) => !k.startsWith('photos-x/.tmp/'))).toEqual(['photos-x/s/p.jpg']);
    await attente.discard();
    expect(await s3.objets('photos-x/.tmp/')).toEqual([]);
  });

  it('names the bucket and the reason when it cannot be reached, and never the secret', async () => {
    const echec = (storage: Storage) =>
      storage.verifier().then(
        () => null,
        (e: unknown) => e as Error & { cause?: unknown },
      );
    const absent = await echec(new S3Storage({ client: s3.client, bucket: 'bucket-absent', prefix: 'uploads/' }));
    expect(absent?.message).toBe('le bucket S3 « bucket-absent » est introuvable ou inaccessible (HTTP 404)');
    // Nothing listens on port 9 of loopback.
    const client = clientS3({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', credentials: { accessKeyId: 'cle', secretAccessKey: 'secret-a-ne-jamais-montrer' }, forcePathStyle: true });
    try {
      const ferme = await echec(new S3Storage({ client, bucket: s3.bucket, prefix: 'uploads/' }));
      expect(ferme?.message).toBe('le bucket S3 « quartier-vivant » est introuvable ou inaccessible (ECONNREFUSED)');
      expect(JSON.stringify(ferme) + String(ferme?.cause) + JSON.stringify(ferme?.cause)).not.toContain('secret-a-ne-jamais-montrer');
    } finally {
      client.destroy();
    }
  });

  it('reads lazily: no request before the stream is read, and a missing object is an ENOENT error only then', async () => {
    const storage = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'paresseux/' });
    const flux = storage.read('absent.pdf');
    let erreur: unknown = null;
    flux.on('error', (e) => (erreur = e));
    await new Promise((r) => setTimeout(r, 100));
    expect(erreur).toBeNull();
    await expect(lire(storage, 'absent.pdf')).rejects.toMatchObject({ code: 'ENOENT', message: 'Fichier absent du stockage : absent.pdf' });
    flux.destroy();
  });

  it('refuses a prefix that is not a folder', () => {
    expect(() => new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'uploads' })).toThrow('Préfixe');
    expect(() => new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '/uploads/' })).toThrow('Préfixe');
  });
});
