import type { Kysely } from 'kysely';
import { cleEtiquette } from '../../../domain/etiquettes.js';

/**
 * Labels: `nom_cle`, the name with its case folded (domain cleEtiquette), unique. Names were unique by `lower(nom)`
 * checked before the insert, but SQLite's lower() folds ASCII only: « École » twice passed the check and broke the
 * unique constraint on `nom` (a 500), and « École » beside « école » was let in. The key is computed in JavaScript
 * for every database alike; two labels that already share one keep both, the later one's key marked with its id
 * (an admin renames or deletes it; nothing is lost).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('etiquettes').addColumn('nom_cle', 'text').execute();
  const rows = await db.selectFrom('etiquettes').select(['id', 'nom']).orderBy('cree_le').orderBy('id').execute();
  const prises = new Set<string>();
  for (const row of rows as { id: string; nom: string }[]) {
    const cle = cleEtiquette(row.nom);
    await db
      .updateTable('etiquettes')
      .set({ nom_cle: prises.has(cle) ? `${cle}#${row.id}` : cle })
      .where('id', '=', row.id)
      .execute();
    prises.add(cle);
  }
  await db.schema.createIndex('etiquettes_nom_cle_uq').unique().on('etiquettes').column('nom_cle').execute();
}
