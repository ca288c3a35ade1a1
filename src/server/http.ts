import { corpsErreurSchema } from '../domain/erreurs.js';
import { z } from '../domain/zod.js';

/** A route's answers: its success body, and the documented error body for every 4xx and 5xx. */
export function reponses<S extends number, T extends z.ZodType>(status: S, ok: T) {
  return { [status]: ok, '4xx': corpsErreurSchema, '5xx': corpsErreurSchema } as { [K in S]: T } & {
    '4xx': typeof corpsErreurSchema;
    '5xx': typeof corpsErreurSchema;
  };
}

/** The answers of a route whose success is not JSON (a file, a stream, sent as is): only its errors are JSON. */
export function erreurs() {
  return { 200: z.unknown().describe('un fichier ou un flux'), '4xx': corpsErreurSchema, '5xx': corpsErreurSchema };
}
