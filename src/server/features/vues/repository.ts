import { randomUUID } from 'node:crypto';
import type { Vue } from '../../../domain/vues.js';
import type { Db } from '../../db/index.js';

/** The SQL of the managers' saved views (migration 0014). */
export class VuesRepository {
  constructor(private readonly db: Db) {}

  list(userId: string): Promise<Vue[]> {
    return this.db.selectFrom('vuesEnregistrees').select(['id', 'nom', 'requete']).where('userId', '=', userId).orderBy('creeLe').orderBy('id').execute();
  }

  /** Adds a view unless the manager has `max` already (checked in the same transaction); answers it, or null. */
  async ajouter(userId: string, nom: string, requete: string, le: string, max: number): Promise<Vue | null> {
    return this.db.transaction().execute(async (trx) => {
      const { n } = await trx
        .selectFrom('vuesEnregistrees')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('userId', '=', userId)
        .executeTakeFirstOrThrow();
      if (Number(n) >= max) return null;
      const id = randomUUID();
      await trx.insertInto('vuesEnregistrees').values({ id, userId, nom, requete, creeLe: le }).execute();
      return { id, nom, requete };
    });
  }

  /** Deletes one of the manager's views; answers whether there was one. */
  async supprimer(userId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('vuesEnregistrees').where('id', '=', id).where('userId', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
