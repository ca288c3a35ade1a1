import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../config.js';
import { LocalStorage, type Storage } from './index.js';
import { clientS3, S3Storage } from './s3.js';

/**
 * The app's two stores of files: `uploads` (the housing requests' documents and the profile pictures) and
 * `photos-signalements` (the technical reports' photos, kept apart: the documents' sweep removes whatever no
 * document references). With STORAGE=disk each is a folder of DATA_DIR; with STORAGE=s3 each is a prefix
 * (`uploads/`, `photos-signalements/`) of the one bucket.
 */
export type Espace = 'uploads' | 'photos-signalements';

/** The Storage of one espace, as the configuration says; `client` shares one S3 client between espaces. */
export function choisirStockage(config: Pick<Config, 'dataDir' | 'stockage'>, espace: Espace, client?: S3Client): Storage {
  const { stockage } = config;
  if (stockage.type === 'disque') return new LocalStorage(path.join(config.dataDir, espace));
  return new S3Storage({ client: client ?? clientS3(stockage.connexion), bucket: stockage.bucket, prefix: `${espace}/` });
}

export interface Stockages {
  uploads: Storage;
  photosSignalements: Storage;
  /** Closes the S3 client's connections (the app's onClose). */
  fermer(): void;
}

/** The app's storages, built once (app.ts), sharing one S3 client when in S3. */
export function stockagesDeLApp(config: Pick<Config, 'dataDir' | 'stockage'>): Stockages {
  const client = config.stockage.type === 's3' ? clientS3(config.stockage.connexion) : undefined;
  return {
    uploads: choisirStockage(config, 'uploads', client),
    photosSignalements: choisirStockage(config, 'photos-signalements', client),
    fermer: () => client?.destroy(),
  };
}
