import { CamelCasePlugin, type Kysely } from 'kysely';
import { texteDeRecherche } from '../../../domain/demande.js';
import { toComplete } from '../../features/demandes/vues.js';
import type { DemandeRow } from '../schema.js';

/**
 * The managers' search finds N'Diaye from « ndiaye » and 06 12 34 56 78 from « 0612 » (issue 12 point 1):
 * texteDeRecherche now adds the names and the phone number with letters and digits only, and folds every
 * apostrophe to '. The stored search texts are recomputed with that rule, 500 requests at a time (the
 * search index follows through its triggers). Withdrawn and erased requests keep their empty text.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  const camel = db.withPlugin(new CamelCasePlugin());
  let after = '';
  for (;;) {
    const rows = (await camel
      .selectFrom('housingRequests')
      .selectAll()
      .where('id', '>', after)
      .where('effaceeLe', 'is', null)
      .where('searchText', '!=', '')
      .orderBy('id')
      .limit(500)
      .execute()) as DemandeRow[];
    if (rows.length === 0) return;
    // PostgreSQL runs each migration in a transaction already; SQLite does not: one per batch.
    const batch = async (trx: typeof camel) => {
      for (const row of rows) {
        const searchText = texteDeRecherche(toComplete(row, []));
        if (searchText !== row.searchText) await trx.updateTable('housingRequests').set({ searchText }).where('id', '=', row.id).execute();
      }
    };
    if (camel.isTransaction) await batch(camel);
    else await camel.transaction().execute(batch);
    after = rows[rows.length - 1]!.id;
  }
}
