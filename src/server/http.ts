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
