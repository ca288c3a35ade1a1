/**
 * Cross-site request forgery (docs/api.md « Accounts »): a state-changing request that carries the
 * session cookie must come from the site's own pages. Browsers send `Origin` on every POST, PUT, PATCH
 * and DELETE (same-origin ones included); when a privacy setting strips it, `Referer` stands in.
 * `Origin: null` (a sandboxed frame, a file://, a cross-origin redirect) is refused.
 *
 * Requests without the cookie are not concerned: anonymous calls change nothing that belongs to someone
 * else, and the private key of a housing request travels in the X-Access-Key header, which no other site
 * can make a browser send.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { MESSAGES } from '../../domain/erreurs.js';
import { ApiError } from '../errors.js';

const METHODES_SURES = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a request must be refused: it changes state, carries a session cookie and comes from elsewhere. */
export function origineRefusee(method: string, headers: IncomingHttpHeaders, publicOrigin: string): boolean {
  if (METHODES_SURES.has(method)) return false;
  // The cookie's name is `qv.session_token`, or `__Host-qv.session_token` behind HTTPS.
  const cookie = headers.cookie;
  if (!cookie || !cookie.includes('session_token')) return false;
  const origin = headers.origin;
  if (origin !== undefined) return origin !== publicOrigin;
  const referer = headers.referer;
  return !(typeof referer === 'string' && referer.startsWith(`${publicOrigin}/`));
}

export const origineRefuseeError = () => new ApiError(403, 'ORIGIN_REFUSED', MESSAGES.origineRefusee);
