// What `npm run backup` and `npm run restore` must know of each table (docs/operations.md « Sauvegarder »).
import { avatarKey } from '../features/compte/avatar.js';
import { DOSSIER_PHOTOS_SIGNALEMENTS } from '../features/compte/donnees-signalements.js';
import { pictureVersion } from '../features/compte/vues.js';

/**
 * The folders of DATA_DIR whose files the archive carries, each under its own prefix in the archive. A restore
 * replaces each of them whole (an archive made before a folder existed empties it: its rows are not in the
 * restored database either). `uploads`: the housing requests' documents and the profile pictures;
 * `photos-signalements`: the technical reports' photos (kept out of `uploads`, whose sweep removes any file
 * that is not a document).
 */
export const DOSSIERS = {
  uploads: 'fichiers/',
  [DOSSIER_PHOTOS_SIGNALEMENTS]: 'photos-signalements/',
} as const;
export type Dossier = keyof typeof DOSSIERS;
export const DOSSIER_PAR_DEFAUT: Dossier = 'uploads';
export const estDossier = (nom: string): nom is Dossier => Object.hasOwn(DOSSIERS, nom);

type Row = Record<string, unknown>;

/**
 * A file a row references: its folder, its key under it, and what the database recorded of its content at
 * upload (SHA-256 and/or size, null when nothing): the backup notes a file that no longer matches.
 */
export interface FichierReference {
  dossier: Dossier;
  key: string;
  sha256: string | null;
  size: number | null;
}

/** How a table's rows name their files: one query (snake_case, read in the snapshot), one file per row or none. */
export interface Fichiers {
  requete: string;
  fichier(row: Row): FichierReference | null;
}

export interface Table {
  /**
   * `donnees`: rows that people or the town hall wrote (requests, accounts, reports, notes, keys…): a restore
   * over a database where one of them has a row refuses without --force. They are empty on a server that has
   * just started (test/sauvegarde.test.ts checks it).
   * `technique`: rows that migrations or the server write by themselves (migrations' bookkeeping, seeded lists,
   * counters, leases, search indexes, rate limits): never a reason to refuse.
   */
  contenu: 'donnees' | 'technique';
  /** Words of the summaries (« 12 demandes »), for the tables people count first. */
  resume?: readonly [singulier: string, pluriel: string];
  /** The files the table's rows reference, copied into the archive and checked. */
  fichiers?: Fichiers;
  /** A table that only one database has (SQLite's full-text index, a PostgreSQL counter). */
  seulement?: 'sqlite' | 'postgres';
}

/**
 * EVERY table of the database, in the order of the summaries. The database itself is always copied whole
 * (SQLite's backup API, pg_dump): a table missing here is still in the archive, but the backup warns, and
 * test/sauvegarde.test.ts fails until it is added. Adding a table is one line here; a table whose rows name
 * files needs `fichiers` too (a column named `storage_key` without it also makes the backup warn).
 */
export const TABLES: Record<string, Table> = {
  housing_requests: { contenu: 'donnees', resume: ['demande', 'demandes'] },
  documents: {
    contenu: 'donnees',
    resume: ['document', 'documents'],
    fichiers: {
      requete: 'select storage_key, sha256, size from documents order by storage_key',
      fichier: (r) => ({ dossier: 'uploads', key: String(r.storage_key), sha256: String(r.sha256), size: Number(r.size) }),
    },
  },
  status_events: { contenu: 'donnees', resume: ['changement de statut', 'changements de statut'] },
  user: {
    contenu: 'donnees',
    resume: ['compte', 'comptes'],
    fichiers: {
      requete: 'select id, image from "user" where image is not null order by id',
      fichier: (r) => {
        const version = pictureVersion({ id: String(r.id), image: String(r.image) });
        return version ? { dossier: 'uploads', key: avatarKey(String(r.id), version), sha256: null, size: null } : null;
      },
    },
  },
  mail_outbox: { contenu: 'donnees', resume: ['e-mail', 'e-mails'] },
  signalements: { contenu: 'donnees', resume: ['signalement', 'signalements'] },
  signalement_photos: {
    contenu: 'donnees',
    resume: ['photo de signalement', 'photos de signalements'],
    fichiers: {
      // No checksum is recorded at upload: the size (`taille`, the stored JPEG's bytes) is what is checked.
      requete: 'select storage_key, taille from signalement_photos order by storage_key',
      fichier: (r) => ({ dossier: DOSSIER_PHOTOS_SIGNALEMENTS, key: String(r.storage_key), sha256: null, size: Number(r.taille) }),
    },
  },
  // Housing requests (0001-0018).
  corrections: { contenu: 'donnees' },
  demande_etiquettes: { contenu: 'donnees' },
  etiquettes: { contenu: 'donnees' },
  journal_gestion: { contenu: 'donnees' },
  messages: { contenu: 'donnees' },
  notes_internes: { contenu: 'donnees' },
  housing_requests_total: { contenu: 'technique', seulement: 'postgres' },
  housing_search: { contenu: 'technique', seulement: 'sqlite' },
  housing_search_config: { contenu: 'technique', seulement: 'sqlite' },
  housing_search_data: { contenu: 'technique', seulement: 'sqlite' },
  housing_search_docsize: { contenu: 'technique', seulement: 'sqlite' },
  housing_search_idx: { contenu: 'technique', seulement: 'sqlite' },
  housing_search_pending: { contenu: 'technique', seulement: 'sqlite' },
  // Accounts (better-auth and the app).
  account: { contenu: 'donnees' },
  session: { contenu: 'donnees' },
  verification: { contenu: 'donnees' },
  follows: { contenu: 'donnees' },
  vues_enregistrees: { contenu: 'donnees' },
  auth_throttle: { contenu: 'technique' },
  rate_limit: { contenu: 'technique' },
  // Technical reports (0019).
  signalement_mises_a_jour: { contenu: 'donnees' },
  signalement_suiveurs: { contenu: 'donnees' },
  signalement_alertes: { contenu: 'donnees' },
  // Seeded by 0019 (the town hall may then set the services' addresses): never a reason to refuse a restore.
  signalement_categories: { contenu: 'technique' },
  signalement_compteurs: { contenu: 'technique' },
  // The managers' side of reports (0020): notes, moderation log, the search index (SQLite's FTS5 and its tables).
  signalement_notes: { contenu: 'donnees' },
  signalement_moderations: { contenu: 'donnees' },
  signalements_recherche: { contenu: 'technique', seulement: 'sqlite' },
  signalements_recherche_config: { contenu: 'technique', seulement: 'sqlite' },
  signalements_recherche_data: { contenu: 'technique', seulement: 'sqlite' },
  signalements_recherche_docsize: { contenu: 'technique', seulement: 'sqlite' },
  signalements_recherche_idx: { contenu: 'technique', seulement: 'sqlite' },
  signalements_total: { contenu: 'technique', seulement: 'postgres' },
  // Open311 (0021): the API keys admins issued.
  open311_cles: { contenu: 'donnees' },
  // The server's own.
  taches: { contenu: 'technique' },
  // Shared by the instances (0023): rate-limit counters on PostgreSQL without Redis, bulk actions' progress.
  limites_frequence: { contenu: 'technique' },
  lots: { contenu: 'technique' },
  kysely_migration: { contenu: 'technique' },
  kysely_migration_lock: { contenu: 'technique' },
};

/** A column that names a stored file, by the app's convention. */
export const COLONNE_DE_FICHIER = /(^|_)storage_key$/u;
