import { slugify } from '../../../domain/normalise.js';
import type { Db } from '../../db/index.js';

/** SPEC §7: after an invitation, the new user and the inviter follow each other. */
export async function followEachOther(db: Db, newUserId: string, inviterId: string): Promise<void> {
  if (newUserId === inviterId) return;
  const inviter = await db.selectFrom('user').select('id').where('id', '=', inviterId).executeTakeFirst();
  if (!inviter) return;
  const createdAt = new Date().toISOString();
  await db
    .insertInto('follows')
    .values([
      { followerId: newUserId, followeeId: inviterId, createdAt },
      { followerId: inviterId, followeeId: newUserId, createdAt },
    ])
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Slugs of a user's quartier and ville: inhabitants lists are queries on them (SPEC §3 relations). */
export function placeSlugs(ville: string, quartier: string): { villeSlug: string; quartierSlug: string } {
  return { villeSlug: slugify(ville), quartierSlug: slugify(quartier) };
}
