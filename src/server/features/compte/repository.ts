import { slugify } from '../../../domain/normalise.js';
import type { Role } from '../../../domain/compte.js';
import type { Db } from '../../db/index.js';
import type { UserRow, UserTable } from '../../db/schema.js';

/** Slugs of a user's quartier and ville: inhabitants lists are queries on them (docs/produit.md « Comptes »). */
export function placeSlugs(ville: string, quartier: string): { villeSlug: string; quartierSlug: string } {
  return { villeSlug: slugify(ville), quartierSlug: slugify(quartier) };
}

/** Every SQL statement on accounts, their profiles and their follows. */
export class CompteRepository {
  constructor(private readonly db: Db) {}

  findById(uid: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('user').selectAll().where('id', '=', uid).executeTakeFirst();
  }

  async update(uid: string, values: Partial<Omit<UserTable, 'id'>>): Promise<void> {
    await this.db.updateTable('user').set(values).where('id', '=', uid).execute();
  }

  /** Sets a role by id or by e-mail; false when no account matched. */
  async setRole(where: { id: string } | { email: string }, role: Role): Promise<boolean> {
    const query = this.db.updateTable('user').set({ userType: role });
    const result = await ('id' in where ? query.where('id', '=', where.id) : query.where('email', '=', where.email)).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Newest first. */
  listAll(): Promise<UserRow[]> {
    return this.db.selectFrom('user').selectAll().orderBy('createdAt', 'desc').execute();
  }

  async inhabitants(column: 'quartierSlug' | 'villeSlug', slug: string): Promise<string[]> {
    const rows = await this.db.selectFrom('user').select('id').where(column, '=', slug).orderBy('createdAt').execute();
    return rows.map((r) => r.id);
  }

  /** After an invitation, the new user and the inviter follow each other (no-op for an unknown inviter). */
  async followEachOther(newUserId: string, inviterId: string): Promise<void> {
    if (newUserId === inviterId) return;
    if (!(await this.findById(inviterId))) return;
    const createdAt = new Date().toISOString();
    await this.db
      .insertInto('follows')
      .values([
        { followerId: newUserId, followeeId: inviterId, createdAt },
        { followerId: inviterId, followeeId: newUserId, createdAt },
      ])
      .onConflict((oc) => oc.doNothing())
      .execute();
  }

  /** The other side of a user's follows: who follows them (`followers`), whom they follow (`following`). */
  related(uid: string, side: 'followers' | 'following'): Promise<UserRow[]> {
    const [me, other] = side === 'followers' ? (['followeeId', 'followerId'] as const) : (['followerId', 'followeeId'] as const);
    return this.db
      .selectFrom('follows')
      .innerJoin('user', 'user.id', `follows.${other}`)
      .selectAll('user')
      .where(`follows.${me}`, '=', uid)
      .orderBy('follows.createdAt')
      .execute();
  }
}
