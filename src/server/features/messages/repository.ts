import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { CATEGORIE_PIECE } from '../../../domain/documents.js';
import type { Db } from '../../db/index.js';
import type { DocumentRow, MessageTable } from '../../db/schema.js';

export type Cote = 'mairie' | 'demandeur';
export type MessageLu = MessageTable & { prenom: string | null; nom: string | null };

/** The SQL of the requests' message threads (migration 0017). */
export class MessagesRepository {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  liste(housingRequestId: string, trx: Db = this.db): Promise<MessageLu[]> {
    return trx
      .selectFrom('messages')
      .leftJoin('user', 'user.id', 'messages.auteurUserId')
      .selectAll('messages')
      .select(['user.prenom', 'user.nom'])
      .where('messages.housingRequestId', '=', housingRequestId)
      .orderBy('messages.le')
      .orderBy('messages.id')
      .execute();
  }

  /** The attachments of the request's messages, in upload order. */
  pieces(housingRequestId: string, trx: Db = this.db): Promise<DocumentRow[]> {
    return trx
      .selectFrom('documents')
      .selectAll()
      .where('housingRequestId', '=', housingRequestId)
      .where('category', '=', CATEGORIE_PIECE)
      .orderBy('position')
      .execute();
  }

  async ajouter(m: { housingRequestId: string; de: Cote; auteurUserId: string | null; texte: string; le: string }, trx: Db): Promise<MessageTable> {
    const row: MessageTable = { id: randomUUID(), ...m, luLe: null };
    await trx.insertInto('messages').values(row).execute();
    if (m.de === 'demandeur') {
      await trx.updateTable('housingRequests').set({ messagesNonLus: sql<number>`messages_non_lus + 1` }).where('id', '=', m.housingRequestId).execute();
    }
    return row;
  }

  /**
   * The messages written by `de` are read by the other side now; answers whether any was unread. The list's count
   * goes down by as many as were marked, not to 0: on PostgreSQL, a message written meanwhile (not yet committed, so
   * not marked here) has raised it, and the update waits for that row and counts from its new value.
   */
  async marquerLus(housingRequestId: string, de: Cote, le: string, trx: Db): Promise<boolean> {
    const result = await trx.updateTable('messages').set({ luLe: le }).where('housingRequestId', '=', housingRequestId).where('de', '=', de).where('luLe', 'is', null).executeTakeFirst();
    const marques = Number(result.numUpdatedRows);
    if (de === 'demandeur' && marques > 0) {
      await trx
        .updateTable('housingRequests')
        .set({ messagesNonLus: sql<number>`case when messages_non_lus > ${marques} then messages_non_lus - ${marques} else 0 end` })
        .where('id', '=', housingRequestId)
        .execute();
    }
    return marques > 0;
  }
}
