import type { EtatLot } from '../../../domain/lots.js';
import type { Db, DbKind } from '../../db/index.js';
import type { LotTable } from '../../db/schema.js';

/** What one request of a bulk action did: changed, already so, left as it was (10 labels already), failed. */
export type Issue = 'faits' | 'inchanges' | 'completes' | 'echecs';

/**
 * Bulk actions' progress in the database (migration 0023), so that any instance answers a manager's poll. The
 * instance that runs an action writes its counts after each request and moves its lease (`bail_jusqua`) forward;
 * an action whose lease has passed without its end was cut short (its instance stopped): it reads as finished and
 * interrupted. Times are ISO strings of the real clock (as the outbox's claims).
 */
export class LotsRepository {
  constructor(
    private readonly db: Db,
    private readonly kind: DbKind,
  ) {}

  /**
   * Records the action unless this manager already has one under way (its lease not passed): answers whether it
   * did. The check and the insert are one transaction; on PostgreSQL the manager's account row is locked first, so
   * that two starts at once (two tabs, a double click) run one after the other and the second sees the first.
   * SQLite writes one transaction at a time already.
   */
  async creerSiLibre(etat: EtatLot, proprietaire: string, bailJusqua: string, now: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (this.kind === 'postgres') await trx.selectFrom('user').select('id').where('id', '=', proprietaire).forUpdate().execute();
      if (await this.enCours(proprietaire, now, trx)) return false;
      await trx
        .insertInto('lots')
        .values({ id: etat.id, proprietaire, total: etat.total, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: 0, interrompu: 0, bailJusqua, creeLe: now })
        .execute();
      return true;
    });
  }

  /** One request done: its count, and the lease moved forward. */
  async compter(id: string, issue: Issue, bailJusqua: string): Promise<void> {
    await this.db
      .updateTable('lots')
      .set((eb) => ({ [issue]: eb(issue, '+', 1), bailJusqua }))
      .where('id', '=', id)
      .execute();
  }

  /** The end: every request done, or stopped between two (`interrompu`, the app closed). */
  async finir(id: string, interrompu: boolean): Promise<void> {
    await this.db
      .updateTable('lots')
      .set({ fini: 1, interrompu: interrompu ? 1 : 0 })
      .where('id', '=', id)
      .execute();
  }

  async lire(id: string): Promise<LotTable | undefined> {
    return this.db.selectFrom('lots').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Whether this manager has an action running now (not finished, its lease not passed), on any instance. */
  async enCours(proprietaire: string, now: string, trx: Db = this.db): Promise<boolean> {
    const row = await trx
      .selectFrom('lots')
      .select('id')
      .where('proprietaire', '=', proprietaire)
      .where('fini', '=', 0)
      .where('bailJusqua', '>=', now)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Actions started before `avant`, finished or cut short long ago: their progress is no longer asked for. */
  async oublier(avant: string, now: string): Promise<void> {
    await this.db
      .deleteFrom('lots')
      .where('creeLe', '<', avant)
      .where((eb) => eb.or([eb('fini', '=', 1), eb('bailJusqua', '<', now)]))
      .execute();
  }
}

/** A row as the API shows it: a lease passed without the end reads as finished, interrupted. */
export function etatDuLot(row: LotTable, now: string): EtatLot {
  const coupe = row.fini === 0 && row.bailJusqua < now;
  const interrompu = row.interrompu === 1 || coupe;
  return {
    id: row.id,
    total: Number(row.total),
    faits: Number(row.faits),
    inchanges: Number(row.inchanges),
    completes: Number(row.completes),
    echecs: Number(row.echecs),
    fini: row.fini === 1 || coupe,
    ...(interrompu ? { interrompu: true } : {}),
  };
}
