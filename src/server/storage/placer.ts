import fsp from 'node:fs/promises';
import path from 'node:path';
import { syncDir } from './index.js';

/**
 * A written temp file moved to its place under `root` and made durable there: its folder created, the rename, then
 * the folder and the parent of each folder just created synced, all at once (each must reach the disk before the
 * caller records the file, in no particular order). Run on the background thread (storage/index.ts `commit`): under
 * load each of these steps waited for a turn of the busy event loop (issue 11, decision 0014). On a failure, the
 * caller removes whatever reached the key (the commit's one clean-up, also when the thread itself ended).
 */
export async function placer(tmpPath: string, target: string, root: string): Promise<void> {
  const dir = path.dirname(target);
  const firstCreated = await fsp.mkdir(dir, { recursive: true });
  await fsp.rename(tmpPath, target);
  // Each document has a folder of its own; a request's first creates two.
  const stop = firstCreated ? path.dirname(firstCreated) : dir;
  const dossiers: string[] = [];
  for (let d = dir; ; d = path.dirname(d)) {
    dossiers.push(d);
    if (d === stop || !d.startsWith(root)) break;
  }
  await Promise.all(dossiers.map(syncDir));
}

/**
 * A file held in memory until its commit (ecriture.ts): written to its temp file, its data flushed to the disk, then
 * put in place as above. A failure leaves the temp file (or what of it was written) to the caller's discard.
 */
export async function placerOctets(octets: Uint8Array, tmpPath: string, target: string, root: string): Promise<void> {
  // 'w': the temp's name is ours alone (a random UUID), and a commit tried again after a failure writes it again.
  await fsp.writeFile(tmpPath, octets, { flag: 'w', flush: true });
  await placer(tmpPath, target, root);
}
