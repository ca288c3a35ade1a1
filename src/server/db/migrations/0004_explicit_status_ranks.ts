import { sql, type Kysely } from 'kysely';

/**
 * Statuses carry an explicit sort rank (src/domain/statut.ts) instead of their place in a list, so that
 * a status inserted later takes a free rank without shifting the stored ones (docs/decisions/0008).
 * The ranks are written here as they were decided, not read from the domain: a migration stays as it ran.
 */
const RANKS: Record<string, number> = {
  'En attente des documents': 10,
  'En cours de traitement': 20,
  'Demande envoyée': 30,
  'En attente': 40,
  'Passage CAL': 50,
  Attribué: 60,
  Refusé: 90,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  for (const [statut, rank] of Object.entries(RANKS)) {
    await sql`update housing_requests set statut_rang = ${rank} where statut_de_la_demande = ${statut}`.execute(db);
  }
}
