import { createHash, randomUUID } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { fileTypeFromBuffer } from 'file-type';
import {
  CATEGORIE_VALUES,
  extensionOf,
  isCategorie,
  isTypeAccepte,
  MAX_FICHIERS_PAR_ENVOI,
  typeFromExtension,
  type Categorie,
  type TypeAccepte,
} from '../../../domain/documents.js';
import type { DemandeRow, DocumentRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { AVATARS_PREFIX, STALE_MS, type Storage, type TempFile } from '../../storage/index.js';
import type { DemandesRepository } from './repository.js';

/** Enough leading bytes for file-type to recognise PDF, JPEG and PNG. */
const SNIFF_BYTES = 4100;
const NAME_STEM_MAX = 80;

/** A file name safe on any disk: no path, no control or shell characters, letters of any script kept. */
export function safeFileName(original: string): string {
  const base = original.normalize('NFC').split(/[\\/]/u).pop() ?? '';
  const ext = extensionOf(base).replace(/[^a-z0-9.]/gu, '');
  const stem = base
    .slice(0, base.length - extensionOf(base).length)
    .replace(/[^\p{L}\p{N}._-]+/gu, '_')
    .replace(/\.{2,}/gu, '.')
    .replace(/_+/gu, '_')
    .replace(/^[._-]+|[._-]+$/gu, '');
  return `${[...stem].slice(0, NAME_STEM_MAX).join('') || 'document'}${ext}`;
}

/** The name as the person gave it, for display: no path, no control characters, bounded. */
export function displayName(original: string): string {
  const base = original.normalize('NFC').split(/[\\/]/u).pop() ?? '';
  const cleaned = base.replace(/\p{Cc}/gu, '').trim();
  return [...cleaned].slice(0, 200).join('') || 'document';
}

/** Counts, hashes and keeps the first bytes of what streams through, without holding the file. */
class Inspector extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  private head: Buffer[] = [];
  private headSize = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    this.size += chunk.length;
    if (this.headSize < SNIFF_BYTES) {
      const take = chunk.subarray(0, SNIFF_BYTES - this.headSize);
      this.head.push(Buffer.from(take));
      this.headSize += take.length;
    }
    done(null, chunk);
  }

  headBytes(): Buffer {
    return Buffer.concat(this.head);
  }
}

interface Staged {
  temp: TempFile;
  category: Categorie;
  originalName: string;
  safeName: string;
  contentType: TypeAccepte;
  size: number;
  sha256: string;
}

const tooLarge = (maxBytes: number, name: string) =>
  new ApiError(
    413,
    'FILE_TOO_LARGE',
    `Le fichier « ${name} » dépasse la taille maximale de ${Math.round(maxBytes / (1024 * 1024))} Mo.`,
  );

const badType = (name: string) =>
  new ApiError(415, 'UNSUPPORTED_FILE_TYPE', `Le fichier « ${name} » n'est pas accepté : seuls les PDF, JPEG et PNG le sont.`);

async function stageFile(
  part: { file: NodeJS.ReadableStream & { truncated?: boolean }; filename: string | undefined },
  category: Categorie,
  storage: Storage,
  maxBytes: number,
  staged: Staged[],
): Promise<void> {
  if (!part.filename) {
    part.file.resume();
    throw new ApiError(400, 'NO_FILE', 'Un fichier a été envoyé sans nom : choisissez-le de nouveau.');
  }
  const originalName = displayName(part.filename);
  const announced = typeFromExtension(originalName);
  if (!announced) throw badType(originalName);

  const temp = storage.createTemp();
  const entry: Partial<Staged> & { temp: TempFile } = { temp };
  staged.push(entry as Staged);
  const inspector = new Inspector();
  try {
    await pipeline(part.file, inspector, temp.stream);
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes, originalName);
    throw error;
  }
  if (part.file.truncated) throw tooLarge(maxBytes, originalName);
  if (inspector.size === 0) throw new ApiError(400, 'EMPTY_FILE', `Le fichier « ${originalName} » est vide.`);

  const detected = (await fileTypeFromBuffer(inspector.headBytes()))?.mime;
  if (!isTypeAccepte(detected)) throw badType(originalName);
  if (detected !== announced) {
    throw new ApiError(
      415,
      'FILE_TYPE_MISMATCH',
      `Le contenu du fichier « ${originalName} » ne correspond pas à son extension ${extensionOf(originalName)}.`,
    );
  }
  Object.assign(entry, {
    category,
    originalName,
    safeName: safeFileName(originalName),
    contentType: detected,
    size: inspector.size,
    sha256: inspector.hash.digest('hex'),
  } satisfies Omit<Staged, 'temp'>);
}

/**
 * Receives the multipart files of one call. The call is all-or-nothing: every file is streamed to a
 * temp file and checked; only when all pass are they moved into place and recorded in one transaction.
 */
export async function receiveDocuments(
  request: FastifyRequest,
  deps: { repository: DemandesRepository; storage: Storage; maxBytes: number; now: () => Date },
  row: DemandeRow,
): Promise<DocumentRow[]> {
  const staged: Staged[] = [];
  try {
    const parts = request.parts({
      limits: { fileSize: deps.maxBytes, files: MAX_FICHIERS_PAR_ENVOI, fields: 20, fieldSize: 1024, parts: MAX_FICHIERS_PAR_ENVOI + 20 },
    });
    for await (const part of parts) {
      if (part.type !== 'file') continue;
      if (!isCategorie(part.fieldname)) {
        throw new ApiError(
          400,
          'UNKNOWN_CATEGORY',
          `Catégorie de document inconnue « ${part.fieldname} » (attendu : ${CATEGORIE_VALUES.join(', ')}).`,
        );
      }
      await stageFile(part, part.fieldname, deps.storage, deps.maxBytes, staged);
    }
  } catch (error) {
    await Promise.all(staged.map((s) => s.temp.discard()));
    if ((error as { code?: string }).code === 'FST_FILES_LIMIT') {
      throw new ApiError(413, 'TOO_MANY_FILES', `Vous pouvez envoyer au plus ${MAX_FICHIERS_PAR_ENVOI} fichiers à la fois.`);
    }
    throw error;
  }
  if (staged.length === 0) throw new ApiError(400, 'NO_FILE', 'Aucun fichier reçu : choisissez au moins un fichier.');
  return commitDocuments(deps, row, staged);
}

async function commitDocuments(
  deps: { repository: DemandesRepository; storage: Storage; now: () => Date },
  row: DemandeRow,
  staged: Staged[],
): Promise<DocumentRow[]> {
  const uploadedAt = deps.now().toISOString();
  const next = await deps.repository.lastPositions(row.id);

  const rows: DocumentRow[] = staged.map((s) => {
    const index = (next.get(s.category) ?? 0) + 1;
    next.set(s.category, index);
    const id = randomUUID();
    return {
      id,
      housingRequestId: row.id,
      category: s.category,
      position: index,
      storageKey: `${row.id}/${id}/${s.category}-${index}-${s.safeName}`,
      originalName: s.originalName,
      contentType: s.contentType,
      size: s.size,
      sha256: s.sha256,
      uploadedAt,
    };
  });

  const committed: string[] = [];
  try {
    for (const [i, s] of staged.entries()) {
      await s.temp.commit(rows[i]!.storageKey);
      committed.push(rows[i]!.storageKey);
    }
    await deps.repository.insertDocuments(row.id, rows, uploadedAt);
  } catch (error) {
    // Put things back as they were: no file without its record.
    await Promise.all(staged.map((s) => s.temp.discard()));
    await Promise.all(committed.map((key) => deps.storage.remove(key)));
    throw error;
  }
  return rows;
}

/**
 * Removes stored files that no document references (a crash between rename and commit).
 * Files younger than `olderThanMs` are left alone: they may belong to an upload under way elsewhere.
 */
export async function sweepOrphans(repository: DemandesRepository, storage: Storage, olderThanMs = STALE_MS): Promise<number> {
  let removed = 0;
  const limit = Date.now() - olderThanMs;
  for await (const { key, modifiedAt } of storage.keys()) {
    // Only documents live under a request's folder; profile pictures have their own (avatars/).
    if (key.startsWith(`${AVATARS_PREFIX}/`) || modifiedAt.getTime() > limit) continue;
    if (!(await repository.isDocumentKey(key))) {
      await storage.remove(key);
      removed += 1;
    }
  }
  return removed;
}
