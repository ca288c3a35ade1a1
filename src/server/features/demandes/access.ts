import { hash, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { isGestionnaire } from '../../../domain/compte.js';
import { estCloturee } from '../../../domain/cycleDeVie.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { compteDe } from '../../auth/guards.js';
import type { DemandeRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { DemandeStatutRow } from './lecture-statut.js';
import type { DemandesRepository } from './repository.js';

/** Header that carries a request's private key on API calls (docs/produit.md « Confidentialité »). */
export const ACCESS_KEY_HEADER = 'x-access-key';

/** 256 random bits, URL-safe. */
export function newAccessKey(): string {
  return randomBytes(32).toString('base64url');
}

export function hashAccessKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function privateLink(publicUrl: string, numeroUnique: string, accessKey: string): string {
  // The key rides in the fragment: browsers never send it to a server, a log or a Referer.
  return `${publicUrl}/logement/${encodeURIComponent(numeroUnique)}#cle=${accessKey}`;
}

/** What decides who sees a request in full: its private key's hash and its owner. */
export type AccesRow = Pick<DemandeRow, 'accessKeyHash' | 'ownerUserId'>;

/** How many keys that opened a request `CLES_RETENUES` remembers with their hash (~2 MB at most); past it, it starts again empty. */
export const CLES_RETENUES = 10_000;

/**
 * The hash of keys that matched a request, so that a resident's next calls with their link (each page asks several)
 * do not hash it again (SHA-256 and its hex: ~3 µs of the lookup's ~60 on the private-key path, issue 11). A pure
 * function's results: a key given again is hashed again only after the memo was emptied; a new key for the request
 * (« renvoyer le lien ») has a new hash, which the old key's does not match. Keys that matched nothing are not kept.
 */
const clesRetenues = new Map<string, string>();

/**
 * Whether `presented` is the request's key: its hash against the stored hash. Hashes, not keys, are compared (as the
 * session's token is found by its hash in SQL), so the comparison's time tells nothing usable about the key.
 */
function keyMatches(row: AccesRow, presented: string): boolean {
  const retenu = clesRetenues.get(presented);
  if (retenu !== undefined) return retenu === row.accessKeyHash;
  const calcule = hashAccessKey(presented);
  if (calcule !== row.accessKeyHash) return false;
  if (clesRetenues.size >= CLES_RETENUES) clesRetenues.clear();
  // A copy: a slice of the header's string would keep the whole header in memory.
  clesRetenues.set(Buffer.from(presented, 'utf8').toString('utf8'), calcule);
  return true;
}

/** Whether the request's private key rides on this HTTP request. */
export function holdsPrivateKey(request: FastifyRequest, row: AccesRow): boolean {
  const header = request.headers[ACCESS_KEY_HEADER];
  const presented = Array.isArray(header) ? header[0] : header;
  return typeof presented === 'string' && presented.length > 0 && presented.length <= 128 && keyMatches(row, presented);
}

/** Whether this HTTP request carries neither a private key nor a cookie: then nobody asks, it sees the status only. */
export function sansJustificatif(request: FastifyRequest): boolean {
  return request.headers[ACCESS_KEY_HEADER] === undefined && request.headers.cookie === undefined;
}

/**
 * Whether this HTTP request may see the housing request in full (docs/produit.md « Confidentialité »):
 * the holder of its private link, its owner, managers and admins.
 */
export async function hasFullAccess(request: FastifyRequest, row: AccesRow): Promise<boolean> {
  return holdsPrivateKey(request, row) || accesParCompte(request, row);
}

/**
 * hasFullAccess without the private key: whether the signed-in account is the request's owner, a manager or an admin.
 * For a caller that checked the key itself, synchronously (the status lookup), so that a wrong key is not hashed twice.
 */
export async function accesParCompte(request: FastifyRequest, row: AccesRow): Promise<boolean> {
  const user = await compteDe(request);
  return user !== null && (user.id === row.ownerUserId || isGestionnaire(user.userType));
}

/**
 * Whether this HTTP request comes from the requester: the holder of the private key or the owning account.
 * Managers see the request in full but act in nobody's name (they erase on request, recorded as theirs).
 */
export async function estDemandeur(request: FastifyRequest, row: AccesRow): Promise<boolean> {
  if (holdsPrivateKey(request, row)) return true;
  const user = await compteDe(request);
  return user !== null && user.id === row.ownerUserId;
}

/** 409 DEMANDE_CLOSE on a closed request (Attribué, Refusé, Radiée), in French; `suite` says what it no longer takes. */
export function exigerOuverte(row: Pick<DemandeRow, 'statutDeLaDemande'>, suite: string): void {
  if (estCloturee(row.statutDeLaDemande)) throw new ApiError(409, 'DEMANDE_CLOSE', `Cette demande est close (${row.statutDeLaDemande}) : ${suite}`);
}

/** The request of this numéro (withdrawn and erased ones excluded), or 404 in French. */
export async function demandeOu404(repository: DemandesRepository, numeroUnique: string): Promise<DemandeRow> {
  const row = await repository.findByNumero(numeroUnique);
  if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
  return row;
}

/** The status lookup's columns of the request of this numéro (erased ones excluded), or 404 in French. */
export async function statutOu404(repository: DemandesRepository, numeroUnique: string): Promise<DemandeStatutRow> {
  const row = await repository.findStatut(numeroUnique);
  if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
  return row;
}

/** The request of this numéro for one who may see it in full (hasFullAccess), else 404 or 403 in French. */
export async function demandeEnAccesComplet(repository: DemandesRepository, request: FastifyRequest, numeroUnique: string): Promise<DemandeRow> {
  const row = await demandeOu404(repository, numeroUnique);
  if (!(await hasFullAccess(request, row))) throw new ApiError(403, 'FORBIDDEN', MESSAGES.accesComplet);
  return row;
}

/** The same with the status lookup's few columns (statutOu404), for a route that needs no more (an upload). */
export async function statutEnAccesComplet(repository: DemandesRepository, request: FastifyRequest, numeroUnique: string): Promise<DemandeStatutRow> {
  const row = await statutOu404(repository, numeroUnique);
  if (!(await hasFullAccess(request, row))) throw new ApiError(403, 'FORBIDDEN', MESSAGES.accesComplet);
  return row;
}

/** The request of this numéro for its requester (estDemandeur), else 404 or 403 in French. */
export async function demandePourLeDemandeur(repository: DemandesRepository, request: FastifyRequest, numeroUnique: string): Promise<DemandeRow> {
  const row = await demandeOu404(repository, numeroUnique);
  if (!(await estDemandeur(request, row))) throw new ApiError(403, 'FORBIDDEN', MESSAGES.accesComplet);
  return row;
}
