import type { Kysely } from 'kysely';

/**
 * Who sees a resident's name and photo (docs/produit.md « Comptes », « Qui voit mon profil ») :
 * 'voisins' (default: the accounts they follow or that follow them), 'quartier' (also the signed-in
 * residents of their quartier, and the quartier's inhabitants list), 'tous' (anyone with their link).
 * Existing accounts take the most private choice.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('user').addColumn('visibilite', 'text', (c) => c.notNull().defaultTo('voisins')).execute();
}
