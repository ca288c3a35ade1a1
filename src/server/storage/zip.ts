import type archiverType from 'archiver';
import type { Storage } from './index.js';

/**
 * Appends a stored file to a zip being streamed; a read that fails (the file gone from the disk or the bucket)
 * becomes the archive's error, which ends the download (features/demandes/donnees.ts zipStream) instead of leaving
 * it waiting for ever.
 */
export function ajouterFichier(archive: archiverType.Archiver, storage: Storage, key: string, entree: { name: string; date: Date }): void {
  const source = storage.read(key);
  source.once('error', (error) => archive.emit('error', error));
  archive.append(source, entree);
}
