import { createHash, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Writable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import {
  CATEGORIE_PIECE,
  CATEGORIE_VALUES,
  extensionOf,
  isCategorie,
  isTypeAccepte,
  MAX_FICHIERS_PAR_ENVOI,
  nomDeFichierCategorie,
  REFUS_FICHIER,
  typeFromExtension,
  type Categorie,
  type TypeAccepte,
} from '../../../domain/documents.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { PIECES_PAR_MESSAGE_MAX } from '../../../domain/messages.js';
import type { Db } from '../../db/index.js';
import type { DemandeRow, DocumentRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { AVATARS_PREFIX, filesOf, type Storage, type TempFile } from '../../storage/index.js';
import { aCeder, enArrierePlanCedant } from '../../worker/index.js';
import type { DemandesRepository } from './repository.js';
import type { DocumentVueRow } from './lecture-statut.js';
import type { VerdictPdf } from './pdf.js';

/** Enough leading bytes for file-type to recognise PDF, JPEG and PNG. */
const SNIFF_BYTES = 4100;
const NAME_STEM_MAX = 80;
/**
 * And in bytes (UTF-8): a disk takes names of 255 bytes at most, the stored name adds the block before it (`identity-`)
 * and the extension after; 80 letters of 4 bytes (a script outside the first plane, « fancy » letters pasted from a
 * web site: 𝐀𝐁𝐂) passed, and the file could not be written.
 */
const NAME_STEM_MAX_OCTETS = 180;

/** The longest start of `stem` within NAME_STEM_MAX letters and NAME_STEM_MAX_OCTETS bytes. */
function debutDuNom(stem: string): string {
  let octets = 0;
  let out = '';
  for (const lettre of [...stem].slice(0, NAME_STEM_MAX)) {
    octets += Buffer.byteLength(lettre);
    if (octets > NAME_STEM_MAX_OCTETS) break;
    out += lettre;
  }
  return out;
}

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
  return `${debutDuNom(stem).replace(/[._-]+$/u, '') || 'document'}${ext.slice(0, 10)}`;
}

/**
 * The documents' file names in a zip (« Tout télécharger », the data export): the category in French, the
 * document's position in it, then its stored safe name (`piece-identite-1-cni.pdf`); each unique in the zip,
 * whatever the case (a `-2` before the extension otherwise). Keyed by document id.
 */
export function nomsDansLeZip(docs: readonly Pick<DocumentRow, 'id' | 'category' | 'position' | 'storageKey'>[]): Map<string, string> {
  const noms = new Map<string, string>();
  const pris = new Set<string>();
  for (const doc of docs) {
    // Stored as `<category>-<safe name>`, or `<category>-<position>-<safe name>` for a file kept before positions were
    // given in the recording transaction.
    const stocke = doc.storageKey.split('/').pop() ?? '';
    const prefixe = [`${doc.category}-${doc.position}-`, `${doc.category}-`].find((p) => stocke.startsWith(p)) ?? '';
    const nom = `${nomDeFichierCategorie(doc.category)}-${doc.position}-${safeFileName(stocke.slice(prefixe.length))}`;
    const extension = extensionOf(nom);
    let unique = nom;
    for (let n = 2; pris.has(unique.toLowerCase()); n += 1) unique = `${nom.slice(0, nom.length - extension.length)}-${n}${extension}`;
    pris.add(unique.toLowerCase());
    noms.set(doc.id, unique);
  }
  return noms;
}

/** The name as the person gave it, for display: no path, no control characters, bounded. */
export function displayName(original: string): string {
  const base = original.normalize('NFC').split(/[\\/]/u).pop() ?? '';
  const cleaned = base.replace(/\p{Cc}/gu, '').trim();
  return [...cleaned].slice(0, 200).join('') || 'document';
}

/** The per-request quota (docs/produit.md « Documents ») and what a call may still add under it. */
export interface Quota {
  fichiers: number;
  octets: number;
}

const quotaFichiers = (quota: Quota, deja: number) => new ApiError(413, 'QUOTA_FICHIERS', REFUS_FICHIER.quotaFichiers(quota.fichiers, deja));

const quotaOctets = (quota: Quota, deja: number) => new ApiError(413, 'QUOTA_OCTETS', REFUS_FICHIER.quotaOctets(quota.octets, deja));

/** What the call may still add: files and bytes left under the quota, and the totals it started from. */
interface Budget {
  quota: Quota;
  deja: Quota;
  octetsRestants: number;
}

/**
 * Counts, hashes and keeps the first bytes of what streams through, without holding the file (a PDF is
 * held, up to the per-file maximum, to be inspected). Refuses the chunk that would pass what the request's
 * quota has left.
 */
class Inspector {
  readonly hash = createHash('sha256');
  size = 0;
  private head: Buffer[] = [];
  private headSize = 0;
  private readonly whole: Buffer[] | undefined;

  constructor(
    private readonly budget: Budget,
    keepWhole: boolean,
  ) {
    this.whole = keepWhole ? [] : undefined;
  }

  /** Takes one chunk, or answers why it is refused. */
  lire(chunk: Buffer): ApiError | null {
    if (this.size + chunk.length > this.budget.octetsRestants) return quotaOctets(this.budget.quota, this.budget.deja.octets);
    this.hash.update(chunk);
    this.size += chunk.length;
    this.whole?.push(chunk);
    if (this.headSize < SNIFF_BYTES) {
      const take = chunk.subarray(0, SNIFF_BYTES - this.headSize);
      this.head.push(Buffer.from(take));
      this.headSize += take.length;
    }
    return null;
  }

  headBytes(): Buffer {
    return Buffer.concat(this.head);
  }

  /**
   * The whole file (a PDF) in an ArrayBuffer of its own (never Buffer's shared pool: it may be handed over to another
   * thread); the chunks are let go.
   */
  wholeBytes(): Uint8Array<ArrayBuffer> {
    const whole = aCeder(this.whole ?? [], this.size);
    this.whole?.splice(0);
    return whole;
  }
}

/**
 * Until `destination` emits `event` (its room back, or its end), or rejects with its error; a close first is an error
 * too, as is a stream already failed or closed (its events are past).
 */
function attendre(destination: Writable, event: 'drain' | 'finish'): Promise<void> {
  return new Promise((resolve, reject) => {
    if (destination.errored || destination.destroyed) {
      reject(destination.errored ?? new Error('Fichier temporaire fermé avant la fin de son écriture'));
      return;
    }
    const fini = (error?: Error) => {
      destination.off(event, ok);
      destination.off('error', ko);
      destination.off('close', ferme);
      if (error) reject(error);
      else resolve();
    };
    const ok = () => fini();
    const ko = (error: Error) => fini(error);
    const ferme = () => fini(destination.errored ?? new Error('Fichier temporaire fermé avant la fin de son écriture'));
    destination.once(event, ok);
    destination.once('error', ko);
    destination.once('close', ferme);
  });
}

/**
 * A file part's bytes through the inspector to its temp file, by a loop: `stream.pipeline` cost ~4 % of the main
 * thread under the mixed load of bench/charge.ts (an AbortController for each call, aborted at its end with a
 * DOMException and its stack). The first error (the part's, the inspector's refusal, the temp file's) is thrown, and
 * the loop's exit destroys the part; the temp file is the caller's to discard. Settles once the temp file has taken
 * every byte.
 */
async function verser(source: AsyncIterable<Buffer>, inspector: Inspector, destination: Writable): Promise<void> {
  for await (const chunk of source) {
    if (destination.errored) throw destination.errored;
    const refus = inspector.lire(chunk);
    if (refus) throw refus;
    if (!destination.write(chunk)) await attendre(destination, 'drain');
  }
  const fin = attendre(destination, 'finish');
  destination.end();
  await fin;
}

/** Where a file goes: one of the request's blocks, or a message's attachments. */
type Rangement = Categorie | typeof CATEGORIE_PIECE;

interface Staged {
  temp: TempFile;
  /** A PDF left to check with its placing (TempFile.verifiePdf), in commitDocuments. */
  verifierPdf: boolean;
  category: Rangement;
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
    REFUS_FICHIER.taille(name, maxBytes),
  );

/** Why a PDF is refused (docs/decisions/0012), in words the resident can act on; the reason logged. */
function pdfRefused(name: string, verdict: Exclude<VerdictPdf, { ok: true }>, log: FastifyRequest['log']): ApiError {
  log.info({ raison: verdict.raison, detail: 'detail' in verdict ? verdict.detail : undefined }, 'PDF refusé');
  const { raison } = verdict;
  const refaire = "Imprimez-le en PDF (menu Imprimer, puis « Enregistrer au format PDF ») ou scannez de nouveau le document papier, puis envoyez ce nouveau fichier.";
  if (raison === 'actif') {
    return new ApiError(
      415,
      'PDF_ACTIVE_CONTENT',
      `Le fichier « ${name} » contient du contenu actif (script, action automatique ou fichier joint) : il est refusé par sécurité. ${refaire}`,
    );
  }
  if (raison === 'motDePasse') {
    return new ApiError(
      415,
      'PDF_PROTECTED',
      `Le fichier « ${name} » est protégé par un mot de passe : la mairie annexe ne pourrait pas l’ouvrir. Enregistrez-le sans mot de passe, ou ${refaire.charAt(0).toLowerCase()}${refaire.slice(1)}`,
    );
  }
  return new ApiError(415, 'PDF_UNREADABLE', `Le fichier « ${name} » n’a pas pu être vérifié. ${refaire}`);
}

const badType = (name: string) =>
  new ApiError(415, 'UNSUPPORTED_FILE_TYPE', REFUS_FICHIER.type(name));

async function stageFile(
  part: { file: NodeJS.ReadableStream & { truncated?: boolean }; filename: string | undefined },
  category: Rangement,
  storage: Storage,
  maxBytes: number,
  staged: Staged[],
  budget: Budget,
  log: FastifyRequest['log'],
): Promise<void> {
  if (!part.filename) {
    part.file.resume();
    throw new ApiError(400, 'NO_FILE', 'Un fichier a été envoyé sans nom : choisissez-le de nouveau.');
  }
  const originalName = displayName(part.filename);
  const announced = typeFromExtension(originalName);
  if (!announced) throw badType(originalName);
  // One more file than the request has room for: refused before its bytes are read.
  if (budget.deja.fichiers + staged.length >= budget.quota.fichiers) throw quotaFichiers(budget.quota, budget.deja.fichiers);

  const temp = storage.createTemp();
  const entry: Partial<Staged> & { temp: TempFile } = { temp };
  staged.push(entry as Staged);
  // A PDF is held whole here only when it must be checked before its commit (S3).
  const inspector = new Inspector(budget, announced === 'application/pdf' && !temp.verifiePdf);
  try {
    await verser(part.file as AsyncIterable<Buffer>, inspector, temp.stream);
  } catch (error) {
    if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(maxBytes, originalName);
    throw error;
  }
  budget.octetsRestants -= inspector.size;
  if (part.file.truncated) throw tooLarge(maxBytes, originalName);
  if (inspector.size === 0) throw new ApiError(400, 'EMPTY_FILE', REFUS_FICHIER.vide(originalName));

  // file-type loads with the first upload.
  const { fileTypeFromBuffer } = await import('file-type');
  const detected = (await fileTypeFromBuffer(inspector.headBytes()))?.mime;
  if (!isTypeAccepte(detected)) throw badType(originalName);
  if (detected !== announced) {
    throw new ApiError(
      415,
      'FILE_TYPE_MISMATCH',
      REFUS_FICHIER.contenu(originalName),
    );
  }
  const verifierPdf = detected === 'application/pdf' && temp.verifiePdf;
  if (detected === 'application/pdf' && !verifierPdf) {
    // On the background thread: a large PDF's objects are read and decompressed there, not on the event loop.
    // Handed over, not copied: the file is not held twice.
    const pdf = inspector.wholeBytes();
    const verdict = await enArrierePlanCedant('inspecterPdf', [pdf.buffer], pdf);
    if (!verdict.ok) throw pdfRefused(originalName, verdict, log);
  }
  Object.assign(entry, {
    verifierPdf,
    category,
    originalName,
    safeName: safeFileName(originalName),
    contentType: detected,
    size: inspector.size,
    sha256: inspector.hash.digest('hex'),
  } satisfies Omit<Staged, 'temp'>);
}

type Deps = { repository: DemandesRepository; storage: Storage; maxBytes: number; quota: Quota; now: () => Date };

/**
 * Streams the multipart parts of one call: each file to a temp file, checked (type, content, size, the
 * request's quota); `rangement` says where a file field goes (or throws), `champ` takes the text fields. On
 * any refusal every temp file is discarded; nothing is recorded here.
 */
async function stagerLesParties(
  request: FastifyRequest,
  deps: Deps,
  row: Pick<DemandeRow, 'id'>,
  options: { fichiersMax: number; rangement: (fieldname: string) => Rangement; champ?: (name: string, value: unknown) => void },
): Promise<Staged[]> {
  // A request already at its quota is refused before a byte of the body is read.
  const deja = await deps.repository.totauxDocuments(row.id);
  if (deja.fichiers >= deps.quota.fichiers) throw quotaFichiers(deps.quota, deja.fichiers);
  if (deja.octets >= deps.quota.octets) throw quotaOctets(deps.quota, deja.octets);
  const budget: Budget = { quota: deps.quota, deja, octetsRestants: deps.quota.octets - deja.octets };

  const staged: Staged[] = [];
  try {
    const parts = request.parts({
      limits: { fileSize: deps.maxBytes, files: options.fichiersMax, fields: 20, fieldSize: 16 * 1024, parts: options.fichiersMax + 20 },
    });
    for await (const part of parts) {
      if (part.type !== 'file') {
        options.champ?.(part.fieldname, part.value);
        continue;
      }
      await stageFile(part, options.rangement(part.fieldname), deps.storage, deps.maxBytes, staged, budget, request.log);
    }
  } catch (error) {
    await Promise.all(staged.map((s) => s.temp.discard()));
    if ((error as { code?: string }).code === 'FST_FILES_LIMIT') {
      throw new ApiError(413, 'TOO_MANY_FILES', REFUS_FICHIER.nombre(options.fichiersMax));
    }
    throw error;
  }
  return staged;
}

/**
 * Receives the multipart files of one call. The call is all-or-nothing: every file is streamed to a
 * temp file and checked; only when all pass are they moved into place and recorded in one transaction.
 * Answers the request's documents once they are recorded (every one, by block and position).
 */
export async function receiveDocuments(request: FastifyRequest, deps: Deps, row: Pick<DemandeRow, 'id'>): Promise<DocumentVueRow[]> {
  const staged = await stagerLesParties(request, deps, row, {
    fichiersMax: MAX_FICHIERS_PAR_ENVOI,
    rangement: (fieldname) => {
      if (isCategorie(fieldname)) return fieldname;
      throw new ApiError(400, 'UNKNOWN_CATEGORY', `Catégorie de document inconnue « ${fieldname} » (attendu : ${CATEGORIE_VALUES.join(', ')}).`);
    },
  });
  if (staged.length === 0) throw new ApiError(400, 'NO_FILE', 'Aucun fichier reçu : choisissez au moins un fichier.');
  return (await commitDocuments(deps, row, staged, request.log)).tous;
}

/** A message's attachments, checked and waiting in temp files, with its text; `enregistrer` records them with the message. */
export interface PiecesRecues {
  texte: unknown;
  fichiers: number;
  /** The files' names as the person gave them. */
  noms: string[];
  /**
   * Moves the files into place and, in one transaction, runs `avec(trx)` (which records the message and
   * answers its id) and records the files as that message's attachments; on any failure, nothing stays.
   */
  enregistrer(avec: (trx: Db) => Promise<string>): Promise<DocumentRow[]>;
  abandonner(): Promise<void>;
}

/**
 * A message sent as multipart: its text (field `texte`, before the files) and up to PIECES_PAR_MESSAGE_MAX
 * files (field `pieces`), each checked like a document and counted in the request's quota.
 */
export async function recevoirPieces(request: FastifyRequest, deps: Deps, row: DemandeRow): Promise<PiecesRecues> {
  let texte: unknown;
  const staged = await stagerLesParties(request, deps, row, {
    fichiersMax: PIECES_PAR_MESSAGE_MAX,
    rangement: (fieldname) => {
      if (fieldname === 'pieces') return CATEGORIE_PIECE;
      throw new ApiError(400, 'BAD_REQUEST', `Champ de fichier inconnu « ${fieldname} » : les pièces jointes d’un message vont dans « pieces ».`);
    },
    champ: (name, value) => {
      if (name === 'texte') texte = value;
    },
  });
  return {
    texte,
    fichiers: staged.length,
    noms: staged.map((f) => f.originalName),
    enregistrer: async (avec) => (await commitDocuments(deps, row, staged, request.log, avec)).nouveaux,
    abandonner: async () => {
      await Promise.all(staged.map((s) => s.temp.discard()));
    },
  };
}

/**
 * Moves the staged files into place (a PDF left to check is checked there: one refused, and none of the call stays),
 * then records them (their positions given under the request's lock, insertDocumentsChecked): `nouveaux` the documents
 * of this call, `tous` every document the request then holds.
 */
async function commitDocuments(
  deps: { repository: DemandesRepository; storage: Storage; quota: Quota; now: () => Date },
  row: Pick<DemandeRow, 'id'>,
  staged: Staged[],
  log: FastifyRequest['log'],
  message?: (trx: Db) => Promise<string>,
): Promise<{ nouveaux: DocumentRow[]; tous: DocumentVueRow[] }> {
  const uploadedAt = deps.now().toISOString();
  const rows: DocumentRow[] = staged.map((s) => {
    const id = randomUUID();
    return {
      id,
      housingRequestId: row.id,
      category: s.category,
      // Given in the transaction that records it.
      position: 0,
      // Its own folder (its id) makes the key unique; the file keeps its block and name.
      storageKey: `${row.id}/${id}/${s.category}-${s.safeName}`,
      originalName: s.originalName,
      contentType: s.contentType,
      size: s.size,
      sha256: s.sha256,
      uploadedAt,
      avis: null,
      avisMotif: null,
      avisPar: null,
      avisLe: null,
      messageId: null,
    };
  });

  const committed: string[] = [];
  try {
    for (const [i, s] of staged.entries()) {
      const verdict = await s.temp.commit(rows[i]!.storageKey, { verifierPdf: s.verifierPdf });
      if (verdict && !verdict.ok) throw pdfRefused(s.originalName, verdict, log);
      committed.push(rows[i]!.storageKey);
    }
    // Checked again where it counts: another upload to the same request may have landed meanwhile.
    const fichiers = rows.length;
    const octets = rows.reduce((n, r) => n + r.size, 0);
    const tous = await deps.repository.insertDocumentsChecked(
      row.id,
      rows,
      uploadedAt,
      (totaux) => {
        if (totaux.fichiers + fichiers > deps.quota.fichiers) throw quotaFichiers(deps.quota, totaux.fichiers);
        if (totaux.octets + octets > deps.quota.octets) throw quotaOctets(deps.quota, totaux.octets);
      },
      message
        ? async (trx) => {
            const messageId = await message(trx);
            for (const r of rows) r.messageId = messageId;
          }
        : undefined,
    );
    // Erased while its files came: they are removed below, as for any refusal.
    if (!tous) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
    return { nouveaux: rows, tous };
  } catch (error) {
    // Put things back as they were: no file without its record.
    await Promise.all(staged.map((s) => s.temp.discard()));
    await Promise.all(committed.map((key) => deps.storage.remove(key)));
    throw error;
  }
}

/** One leftover of a write cut short: its kind, its name, and its last change when it was seen. */
interface Leftover {
  kind: 'temp' | 'orphan' | 'stub';
  name: string;
  modifiedAt: number;
}

export interface Balayage {
  repository: DemandesRepository;
  storage: Storage;
  /** The folder of `.eml` files (mail without SMTP), whose `.name.tmp` stubs are leftovers too. */
  mailDir: string;
}

/** What one sweep removed. */
export interface Balayes {
  temp: number;
  orphans: number;
  stubs: number;
}

const isStub = (name: string) => name.startsWith('.') && name.endsWith('.tmp');

/**
 * The leftovers last changed before `before` (epoch ms): upload temp files, stored files that no document
 * references (a crash between rename and commit), mail stubs. Profile pictures (avatars/) are never
 * candidates: they are referenced by the user's `image`, not by a document.
 */
async function leftovers(deps: Balayage, before: number, tempsBefore: number): Promise<Leftover[]> {
  const out: Leftover[] = [];
  for (const t of await deps.storage.temps()) {
    if (t.modifiedAt.getTime() < tempsBefore) out.push({ kind: 'temp', name: t.name, modifiedAt: t.modifiedAt.getTime() });
  }
  for await (const { key, modifiedAt } of deps.storage.keys()) {
    if (key.startsWith(`${AVATARS_PREFIX}/`) || modifiedAt.getTime() >= before) continue;
    if (!(await deps.repository.isDocumentKey(key))) out.push({ kind: 'orphan', name: key, modifiedAt: modifiedAt.getTime() });
  }
  for (const stub of await filesOf(deps.mailDir, isStub)) {
    if (stub.modifiedAt.getTime() < before) out.push({ kind: 'stub', name: stub.name, modifiedAt: stub.modifiedAt.getTime() });
  }
  return out;
}

async function removeLeftovers(deps: Balayage, found: Leftover[]): Promise<Balayes> {
  const removed: Balayes = { temp: 0, orphans: 0, stubs: 0 };
  for (const item of found) {
    if (item.kind === 'temp') {
      await deps.storage.removeTemp(item.name);
      removed.temp += 1;
    } else if (item.kind === 'orphan') {
      // Looked up again right before: a row may have come since the listing.
      if (await deps.repository.isDocumentKey(item.name)) continue;
      await deps.storage.remove(item.name);
      removed.orphans += 1;
    } else {
      await fsp.rm(path.join(deps.mailDir, item.name), { force: true });
      removed.stubs += 1;
    }
  }
  return removed;
}

/**
 * Removes the leftovers of interrupted writes last changed more than `olderThanMs` ago (docs/operations.md
 * « Après un arrêt brutal »), temp files more than `tempsOlderThanMs` ago (by default the same). With
 * `secondLookAfterMs`, only what is still a leftover, unchanged, on a second look that much later goes: a stored
 * file gets its document within moments of its rename. A temp file may wait, unchanged, as long as its upload lasts
 * (a call's first file while the next ones arrive, an S3 object once written): another instance's are spared by
 * `tempsOlderThanMs`, the longest a request may last.
 */
export async function sweepLeftovers(
  deps: Balayage,
  options: { olderThanMs: number; tempsOlderThanMs?: number; secondLookAfterMs?: number; wait?: (ms: number) => Promise<void> },
): Promise<Balayes> {
  const avant = () => [Date.now() - options.olderThanMs, Date.now() - (options.tempsOlderThanMs ?? options.olderThanMs)] as const;
  const first = await leftovers(deps, ...avant());
  if (!options.secondLookAfterMs || first.length === 0) return removeLeftovers(deps, first);
  await (options.wait ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(options.secondLookAfterMs);
  const again = new Map((await leftovers(deps, ...avant())).map((l) => [`${l.kind}:${l.name}`, l]));
  return removeLeftovers(
    deps,
    first.filter((l) => again.get(`${l.kind}:${l.name}`)?.modifiedAt === l.modifiedAt),
  );
}
