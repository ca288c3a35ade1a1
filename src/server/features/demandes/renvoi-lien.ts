import { createHash, timingSafeEqual } from 'node:crypto';
import { normaliseEmail } from '../../../domain/normalise.js';
import type { Mailer } from '../../mail/index.js';
import { hashAccessKey, newAccessKey, privateLink } from './access.js';
import { mailNouveauLien } from './mails.js';
import type { DemandesRepository } from './repository.js';

/**
 * The shortest time the answer takes, whatever happened: a match (a write and a queued mail) and a miss
 * (nothing) answer alike, so that timing does not tell whether an address belongs to a request.
 */
export const DUREE_MINIMALE_RENVOI_MS = 400;

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Whether two addresses are the same once trimmed and lowercased, compared in constant time. */
function memeAdresse(stored: string, presented: string): boolean {
  return stored.length > 0 && timingSafeEqual(digest(normaliseEmail(stored)), digest(normaliseEmail(presented)));
}

/**
 * "Renvoyer mon lien privé": when `email` is the request's address, a new private key replaces the old one
 * (which stops working at once) and the new link is queued to that address, in one transaction. Otherwise
 * nothing changes and nothing is sent. The caller answers the same in both cases.
 */
export async function renvoyerLien(deps: { repository: DemandesRepository; mailer: Mailer; publicUrl: string }, numeroUnique: string, email: string): Promise<void> {
  const { repository, mailer, publicUrl } = deps;
  const accessKey = newAccessKey();
  const accessKeyHash = hashAccessKey(accessKey);
  await repository.transaction(async (trx) => {
    const row = await repository.findForUpdate(numeroUnique, '', trx);
    if (!row || !memeAdresse(row.email, email)) return;
    await repository.setAccessKeyHash(row.id, accessKeyHash, trx);
    await mailer.enqueue(mailNouveauLien(row, privateLink(publicUrl, row.numeroUnique, accessKey)), { trx, demandeId: row.id });
  });
}
