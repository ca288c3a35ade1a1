import path from 'node:path';
import type { Config } from '../config.js';
import { LocalStorage, type Storage } from './index.js';

/**
 * The app's two stores of files: `uploads` (the housing requests' documents and the profile pictures) and
 * `photos-signalements` (the technical reports' photos, kept apart: the documents' sweep removes whatever no
 * document references). With STORAGE=disk each is a folder of DATA_DIR; with STORAGE=s3 each is a prefix
 * (`uploads/`, `photos-signalements/`) of the one bucket.
 */
export type Espace = 'uploads' | 'photos-signalements';

export interface Stockages {
  uploads: Storage;
  photosSignalements: Storage;
  /** Closes the S3 client's connections (the app's onClose). */
  fermer(): void;
}

/**
 * The app's storages, built once (app.ts): folders of DATA_DIR, or prefixes of the one bucket sharing one S3 client.
 * The S3 SDK (some 5 MB of memory once loaded) is loaded only when the files are in S3.
 */
export async function stockagesDeLApp(config: Pick<Config, 'dataDir' | 'stockage'>): Promise<Stockages> {
  const { stockage } = config;
  if (stockage.type === 'disque') {
    const dossier = (espace: Espace) => new LocalStorage(path.join(config.dataDir, espace));
    return { uploads: dossier('uploads'), photosSignalements: dossier('photos-signalements'), fermer: () => undefined };
  }
  const { clientS3, S3Storage } = await import('./s3.js');
  const client = clientS3(stockage.connexion);
  const prefixe = (espace: Espace) => new S3Storage({ client, bucket: stockage.bucket, prefix: `${espace}/` });
  return { uploads: prefixe('uploads'), photosSignalements: prefixe('photos-signalements'), fermer: () => client.destroy() };
}
