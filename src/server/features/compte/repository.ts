import { sql } from 'kysely';
import { slugify } from '../../../domain/normalise.js';
import { isGestionnaire, roleExigeAdresseConfirmee, VISIBILITES_LISTEES, type Role } from '../../../domain/compte.js';
import type { Db } from '../../db/index.js';
import type { UserRow, UserTable } from '../../db/schema.js';

/** Slugs of a user's quartier and ville: inhabitants lists are queries on them (docs/produit.md « Comptes »). */
export function placeSlugs(ville: string, quartier: string): { villeSlug: string; quartierSlug: string } {
  return { villeSlug: slugify(ville), quartierSlug: slugify(quartier) };
}

export type ChangementDeRole =
  | { ok: true }
  | { ok: false; raison: 'introuvable' }
  | { ok: false; raison: 'dernier-admin' }
  | { ok: false; raison: 'adresse-non-confirmee'; email: string };

/** Every SQL statement on accounts, their profiles and their follows. */
export class CompteRepository {
  constructor(private readonly db: Db) {}

  findById(uid: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('user').selectAll().where('id', '=', uid).executeTakeFirst();
  }

  /** Whether an account has this address (better-auth keeps them in lower case). */
  async adressePrise(email: string): Promise<boolean> {
    return (await this.db.selectFrom('user').select('id').where('email', '=', email.toLowerCase()).executeTakeFirst()) !== undefined;
  }

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /** The password hash of the account's e-mail-and-password sign-in, or null (Google only). */
  async passwordHash(uid: string): Promise<string | null> {
    const row = (await this.db.selectFrom('account').selectAll().where('userId', '=', uid).where('providerId', '=', 'credential').executeTakeFirst()) as
      | { password?: string | null }
      | undefined;
    return row?.password ?? null;
  }

  /**
   * Every row of an account: its sessions, its ways of signing in, its follows both ways, its pending e-mail
   * links (reset, change of address) and the account itself. Its housing requests stay (the town hall's file)
   * without their owner; they remain reachable by their private links. Answers how many requests were kept, or null
   * when the account was no longer there.
   */
  async supprimer(uid: string, trx: Db = this.db): Promise<number | null> {
    // Withdrawn requests have no owner already (demandes/effacement.ts): these are the requests kept.
    const kept = await trx.updateTable('housingRequests').set({ ownerUserId: null }).where('ownerUserId', '=', uid).executeTakeFirst();
    await trx.deleteFrom('session').where('userId', '=', uid).execute();
    await trx.deleteFrom('account').where('userId', '=', uid).execute();
    await trx.deleteFrom('follows').where((eb) => eb.or([eb('followerId', '=', uid), eb('followeeId', '=', uid)])).execute();
    // Saved views of the list (a search in one may hold a name; features/vues).
    await trx.deleteFrom('vuesEnregistrees').where('userId', '=', uid).execute();
    await sql`delete from verification where value = ${uid}`.execute(trx);
    const supprime = await trx.deleteFrom('user').where('id', '=', uid).executeTakeFirst();
    // Deleted meanwhile (two deletions at once): nothing to answer for; the caller rolls back what it did.
    if (Number(supprime.numDeletedRows) === 0) return null;
    return Number(kept.numUpdatedRows);
  }

  async update(uid: string, values: Partial<Omit<UserTable, 'id'>>): Promise<void> {
    await this.db.updateTable('user').set(values).where('id', '=', uid).execute();
  }

  /**
   * Sets a role by id or by e-mail, the one place that does (admin page and CLI): manager and admin only
   * for a confirmed e-mail address, checked in the same statement as the change. With `garderUnAdmin` (the admin
   * page), the last admin keeps the role: every admin's row is locked first (a no-op update: PostgreSQL row locks;
   * SQLite writes one transaction at a time), so that two admins taking each other's role at once cannot both pass.
   * An account that is no longer a manager stops following the requests it followed.
   */
  async setRole(where: { id: string } | { email: string }, role: Role, options: { garderUnAdmin?: boolean } = {}): Promise<ChangementDeRole> {
    return this.db.transaction().execute(async (trx) => {
      if (options.garderUnAdmin && role !== 'admin') {
        await trx
          .updateTable('user')
          .set((eb) => ({ userType: eb.ref('userType') }))
          .where('userType', '=', 'admin')
          .execute();
        const admins = await trx.selectFrom('user').select(['id', 'email']).where('userType', '=', 'admin').execute();
        const cible = admins.find((a) => ('id' in where ? a.id === where.id : a.email === where.email));
        if (cible && admins.length === 1) return { ok: false, raison: 'dernier-admin' };
      }
      let query = trx.updateTable('user').set({ userType: role });
      query = 'id' in where ? query.where('id', '=', where.id) : query.where('email', '=', where.email);
      // `is true`: a literal, read alike by PostgreSQL's boolean and SQLite's 0/1.
      if (roleExigeAdresseConfirmee(role)) query = query.where('emailVerified', 'is', true);
      const result = await query.executeTakeFirst();
      if (Number(result.numUpdatedRows) > 0) {
        // No longer a manager: no longer the one who follows requests (the list's « Suivie par », the notices).
        if (!isGestionnaire(role)) {
          const qui = 'id' in where ? where.id : trx.selectFrom('user').select('id').where('email', '=', where.email);
          await trx.updateTable('housingRequests').set({ suiviePar: null }).where('suiviePar', '=', qui).execute();
        }
        return { ok: true };
      }
      let select = trx.selectFrom('user').select(['email', 'emailVerified']);
      select = 'id' in where ? select.where('id', '=', where.id) : select.where('email', '=', where.email);
      const user = await select.executeTakeFirst();
      return user ? { ok: false, raison: 'adresse-non-confirmee', email: user.email } : { ok: false, raison: 'introuvable' };
    });
  }

  /** Newest first. */
  listAll(): Promise<UserRow[]> {
    return this.db.selectFrom('user').selectAll().orderBy('createdAt', 'desc').execute();
  }

  /** The inhabitants of a place who chose to be listed (VISIBILITES_LISTEES), oldest account first. */
  async inhabitants(column: 'quartierSlug' | 'villeSlug', slug: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('user')
      .select('id')
      .where(column, '=', slug)
      .where('visibilite', 'in', [...VISIBILITES_LISTEES])
      .orderBy('createdAt')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  /** Whether one of the two follows the other (they are « voisins »). */
  async areNeighbours(a: string, b: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('follows')
      .select('followerId')
      .where((eb) =>
        eb.or([eb.and([eb('followerId', '=', a), eb('followeeId', '=', b)]), eb.and([eb('followerId', '=', b), eb('followeeId', '=', a)])]),
      )
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** After an invitation, the new user and the inviter follow each other (no-op for an unknown inviter). */
  async followEachOther(newUserId: string, inviterId: string): Promise<void> {
    if (newUserId === inviterId) return;
    if (!(await this.findById(inviterId))) return;
    const createdAt = new Date().toISOString();
    try {
      await this.db
        .insertInto('follows')
        .values([
          { followerId: newUserId, followeeId: inviterId, createdAt },
          { followerId: inviterId, followeeId: newUserId, createdAt },
        ])
        .onConflict((oc) => oc.doNothing())
        .execute();
    } catch (error) {
      // The inviter deleted their account meanwhile (PostgreSQL, another instance): the foreign key refuses the rows,
      // and the invitation is an unknown inviter's, as if it had come a moment later.
      if (!(await this.findById(inviterId))) return;
      throw error;
    }
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
