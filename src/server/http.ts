import { createRequire } from 'node:module';
import type archiverType from 'archiver';
import contentDisposition from 'content-disposition';
import type { IncomingMessage, ServerResponse } from 'node:http';
import multipart from '@fastify/multipart';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from '../domain/zod.js';

/**
 * A route's success answer. Error answers are not declared route by route: every one is built by the one
 * error handler (src/server/errors.ts) in the documented shape (`corpsErreurSchema`), which the route-table
 * walk checks on every route. Declaring `4xx`/`5xx` schemas on each route cost 20 % of the status lookup's
 * throughput in `npm run bench` (docs/decisions/0010).
 */
export function reponses<S extends number, T extends z.ZodType>(status: S, ok: T) {
  return { [status]: ok } as { [K in S]: T };
}

/** The answer of a route whose success is not JSON (a file, a stream, sent as is). */
export function fichier() {
  return { 200: z.unknown().describe('un fichier ou un flux') };
}

/**
 * Headers of every user file (a document, the zip): the browser renders it in a sandbox with no script,
 * no plugin of the page's and no subresource, never guesses another type, never keeps a copy, and no
 * page may frame it. Chromium still previews a PDF or an image opened directly under this policy
 * (docs/decisions/0012).
 */
export const USER_FILE_HEADERS = {
  'Content-Security-Policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'private, no-store',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

/**
 * A zip streamed as it is written (no compression: PDF and JPEG already are), with the headers of every
 * user file (never cached, never rendered as a page of the site).
 */
export function zipStream(request: FastifyRequest, reply: FastifyReply, fileName: string): archiverType.Archiver {
  // archiver loads with the first zip asked for.
  const archiver = createRequire(import.meta.url)('archiver') as typeof archiverType;
  const archive = archiver('zip', { store: true });
  archive.on('warning', (error) => request.log.warn({ err: error }, 'zip'));
  // A file that cannot be read (gone from the disk or the bucket): the download stops with an error rather than
  // waiting for ever, and the error is the log's, never the process's.
  archive.on('error', (error) => {
    request.log.error({ err: error }, 'zip interrompu : un fichier n’a pas pu être lu');
    reply.raw.destroy();
  });
  reply.headers(USER_FILE_HEADERS).header('Content-Type', 'application/zip').header('Content-Disposition', contentDisposition(fileName));
  return archive;
}

/**
 * A scope whose routes take files (multipart/form-data): @fastify/multipart's parser, decorators and hooks there only.
 * Registered for the whole app, its two hooks (an async one at each request's start, which also listens to the
 * answer's close, and one at its end) ran for every route, the status lookup included (issue 11). Elsewhere a
 * multipart body is refused as any content type no route takes (415).
 */
export function avecFichiers(
  routes: (scope: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>) => void | Promise<void>,
): (scope: FastifyInstance) => Promise<void> {
  return async (scope) => {
    await scope.register(multipart);
    await routes(scope.withTypeProvider<ZodTypeProvider>());
  };
}
