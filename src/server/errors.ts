import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { MESSAGES, type CodeErreur, type CorpsErreur } from '../domain/erreurs.js';
import { OPEN311_CHEMIN } from '../domain/open311.js';

/** An error meant for the person: a status, a stable code and a French message (docs/api.md errors). */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: CodeErreur,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export function errorBody(code: string, message: string, fields?: Record<string, string>): CorpsErreur {
  return { error: fields ? { code, message, fields } : { code, message } };
}

interface Known {
  status: number;
  code: CodeErreur;
  message: string;
}

/** French messages for the framework's and plugins' own client errors. */
const KNOWN: Record<string, Known> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'INVALID_JSON', message: "Le contenu envoyé n’est pas un JSON valide." },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: 'INVALID_JSON', message: 'Le contenu envoyé est vide.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: "Ce type de contenu n’est pas accepté." },
  FST_ERR_CTP_INVALID_TYPE: { status: 400, code: 'BAD_REQUEST', message: "Le type de contenu annoncé n’est pas valide." },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'TOO_LARGE', message: 'Le contenu envoyé est trop volumineux.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'BAD_REQUEST', message: 'La taille annoncée du contenu est incorrecte.' },
  FST_ERR_BAD_URL: { status: 400, code: 'BAD_REQUEST', message: "L’adresse demandée est mal formée." },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'URI_TOO_LONG', message: "L’adresse demandée est trop longue." },
  FST_ERR_ASYNC_CONSTRAINT: { status: 400, code: 'BAD_REQUEST', message: MESSAGES.requeteIncorrecte },
  FST_INVALID_MULTIPART_CONTENT_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Les fichiers doivent être envoyés en multipart/form-data.',
  },
  FST_PARTS_LIMIT: { status: 413, code: 'TOO_MANY_PARTS', message: 'Le formulaire envoyé contient trop de parties.' },
  FST_FIELDS_LIMIT: { status: 413, code: 'TOO_MANY_PARTS', message: 'Le formulaire envoyé contient trop de champs.' },
  FST_PROTO_VIOLATION: { status: 400, code: 'BAD_REQUEST', message: 'Nom de champ refusé.' },
};

const BAD_MULTIPART: Known = { status: 400, code: 'BAD_REQUEST', message: "L’envoi des fichiers est incomplet ou mal formé. Réessayez." };

/** busboy's own errors (no code): a multipart body without boundary, cut short, or with a broken header. */
function isMultipartError(error: Error): boolean {
  return /^(Multipart: |Malformed part header|Unexpected end of |Part terminated early)/u.test(error.message);
}

/**
 * Codes that say the disk is full (507) or that the data cannot be written at all (503), from Node's file
 * system (errno), SQLite (better-sqlite3's extended codes) or PostgreSQL (SQLSTATE). A single-letter code
 * is no errno: EACCES and EPERM count only from a file-system call (`syscall`), never from a library.
 */
const DISQUE_PLEIN = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'SQLITE_FULL', '53100']);
const INDISPONIBLE = new Set(['EROFS', 'EIO', 'SQLITE_CANTOPEN', '25006', '58030']);
const INDISPONIBLE_PREFIXES = ['SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN'];
const REFUS_DU_SYSTEME = new Set(['EACCES', 'EPERM']);

export type ProblemeDeStockage = 'plein' | 'indisponible' | 'distant';

/**
 * Whether an error, or one of its causes, says the server's storage is full or cannot be written.
 * Looks through `cause` and AggregateError's `errors` (a few levels, no cycles).
 */
export function problemeDeStockage(error: unknown): ProblemeDeStockage | undefined {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 20) {
    const current = queue.shift();
    if (typeof current !== 'object' || current === null || seen.has(current)) continue;
    seen.add(current);
    const { code, syscall, cause, errors, $metadata } = current as { code?: unknown; syscall?: unknown; cause?: unknown; errors?: unknown; $metadata?: unknown };
    // The S3 bucket's service (STORAGE=s3): the AWS SDK gives each of its errors, network ones included, its
    // `$metadata`. No answer, a failure (5xx) or our keys refused (403): the documents cannot be stored or read
    // for now. A 404 is a missing file, which the S3 storage reports as such (ENOENT).
    if (typeof $metadata === 'object' && $metadata !== null) {
      const status = ($metadata as { httpStatusCode?: unknown }).httpStatusCode;
      if (typeof status !== 'number' || status >= 500 || status === 403) return 'distant';
    }
    if (typeof code === 'string') {
      if (DISQUE_PLEIN.has(code)) return 'plein';
      if (INDISPONIBLE.has(code) || INDISPONIBLE_PREFIXES.some((p) => code.startsWith(p))) return 'indisponible';
      if (REFUS_DU_SYSTEME.has(code) && typeof syscall === 'string') return 'indisponible';
    }
    queue.push(cause);
    if (Array.isArray(errors)) queue.push(...(errors as unknown[]));
  }
  return undefined;
}

const STOCKAGE: Record<ProblemeDeStockage, Known> = {
  plein: { status: 507, code: 'DISK_FULL', message: MESSAGES.disquePlein },
  indisponible: { status: 503, code: 'STORAGE_UNAVAILABLE', message: MESSAGES.stockageIndisponible },
  distant: { status: 503, code: 'STORAGE_UNAVAILABLE', message: MESSAGES.stockageDistantIndisponible },
};

const JOURNAL_DE_STOCKAGE: Record<ProblemeDeStockage, string> = {
  plein: 'stockage plein : envoi refusé',
  indisponible: 'stockage en lecture seule ou indisponible : envoi refusé',
  distant: 'stockage S3 injoignable ou en échec : requête refusée',
};

interface ValidationItem {
  instancePath: string;
  message: string;
  params?: { params?: { code?: unknown } };
}

/**
 * A schema validation failure as the person should read it: per-field messages; a form body gets the
 * form's message, a path or query parameter its own. A refinement may name its code
 * (`params: { code: 'INVALID_NUMERO' }`).
 */
function validationError(error: FastifyError & { validation: ValidationItem[]; validationContext?: string }): ApiError {
  const fields: Record<string, string> = {};
  let code: CodeErreur = 'VALIDATION';
  for (const item of error.validation) {
    const key = item.instancePath.split('/')[1] || '_';
    fields[key] ??= item.message;
    const named = item.params?.params?.code;
    if (typeof named === 'string') code = named as CodeErreur;
  }
  const first = Object.values(fields)[0] ?? MESSAGES.requeteInvalide;
  const message = error.validationContext === 'body' && Object.keys(fields).some((k) => k !== '_') ? MESSAGES.validation : first;
  return new ApiError(400, code, message, fields);
}

/** Maps any error to the documented `{ error: { code, message, fields? } }` with its status. Never a stack trace. */
export function toApiError(error: FastifyError | Error, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastifyError)) return validationError(fastifyError as never);
  const known = fastifyError.code ? KNOWN[fastifyError.code] : undefined;
  if (known) return new ApiError(known.status, known.code, known.message);
  if (isMultipartError(error)) return new ApiError(BAD_MULTIPART.status, BAD_MULTIPART.code, BAD_MULTIPART.message);
  if (fastifyError.validation) return new ApiError(400, 'VALIDATION', MESSAGES.requeteInvalide);
  const stockage = problemeDeStockage(error);
  if (stockage) {
    // The operator must see it: the disk is full or read-only, every write fails until it is fixed.
    request.log.error({ err: error }, JOURNAL_DE_STOCKAGE[stockage]);
    const { status, code, message } = STOCKAGE[stockage];
    return new ApiError(status, code, message);
  }
  if (fastifyError.statusCode === 429) return new ApiError(429, 'RATE_LIMITED', MESSAGES.tropDeTentatives);
  if (fastifyError.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    request.log.info({ err: error }, 'client error');
    return new ApiError(fastifyError.statusCode, 'BAD_REQUEST', MESSAGES.requeteIncorrecte);
  }
  if (isResponseSerializationError(fastifyError as never)) {
    request.log.error({ err: error, cause: (error as { cause?: unknown }).cause }, 'answer does not match its schema');
  } else {
    request.log.error({ err: error }, 'unexpected error');
  }
  return new ApiError(500, 'INTERNAL', MESSAGES.inattendue);
}

function sendError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const api = toApiError(error, request);
  if (api.statusCode === 503) reply.header('Retry-After', '120');
  return reply.status(api.statusCode).send(errorBody(api.code, api.message, api.fields));
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler(sendError);
}

/**
 * Fastify's router errors (a malformed URL, a path parameter too long) in the documented shape; under Open311's
 * path (features/open311), which Fastify has not routed yet, in GeoReport v2's `[{ code, description }]`.
 */
export function frameworkErrors(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const chemin = request.url.split('?')[0]!;
  if (chemin !== OPEN311_CHEMIN && !chemin.startsWith(`${OPEN311_CHEMIN}/`)) return sendError(error, request, reply);
  const api = toApiError(error, request);
  return reply.status(api.statusCode).send([{ code: api.statusCode, description: api.message }]);
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers over 16 KB, a broken request
 * line, a client too slow): the same JSON shape, written on the socket.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message]: [number, CodeErreur, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'HEADERS_TOO_LARGE', 'Les en-têtes de la requête sont trop volumineux.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'TIMEOUT', "La requête a mis trop de temps à arriver. Réessayez."]
        : [400, 'BAD_REQUEST', MESSAGES.requeteIncorrecte];
  if (socket.writable) {
    const body = JSON.stringify(errorBody(code, message));
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** True when a JSON text carries a NUL character (PostgreSQL refuses them in text; we refuse them first). */
export function hasNulByte(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNulByte);
  if (value && typeof value === 'object') return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNulByte(v));
  return false;
}

export const nulByteError = () => new ApiError(400, 'NUL_BYTE', MESSAGES.octetNul);
