// Shared by the tests of the managers' search: generated requests with other names, and FTS5's own check.
import { sql } from 'kysely';
import { generatedRequest } from '../bench/seed.js';
import { texteDeRecherche, type DemandeCreation } from '../src/domain/demande.js';
import { foldForSearch } from '../src/domain/normalise.js';
import type { Db } from '../src/server/db/index.js';
import type { NewDemande } from '../src/server/db/schema.js';

/** Generated request n with another name (and its search text, as the app writes it). */
export function demandeNommee(n: number, prenom: string, nom: string, statut = generatedRequest(n).statutDeLaDemande!): NewDemande {
  const base = generatedRequest(n);
  const creation = { ...base, prenom, nom, quartierSouhaite: JSON.parse(base.quartierSouhaite as string) } as unknown as DemandeCreation;
  return {
    ...base,
    prenom,
    nom,
    statutDeLaDemande: statut,
    nomTri: foldForSearch(nom),
    prenomTri: foldForSearch(prenom),
    searchText: texteDeRecherche({ ...creation, dateDEnregistrement: base.dateDEnregistrement!, statutDeLaDemande: statut as never }),
  };
}

/**
 * SQLite: FTS5's own check that the index holds exactly the text of housing_requests (external content), once the rows
 * noted by the writes are in it: the index is brought up to date at the end of a write's turn (docs/decisions/0024),
 * which may come after the answer that made the write (at most 1 s waited, then the check fails).
 */
export async function ftsIntegre(db: Db, kind: string): Promise<void> {
  if (kind !== 'sqlite') return;
  for (let i = 0; i < 200; i += 1) {
    const { n } = (await sql<{ n: number }>`select count(*) as n from housing_search_pending`.execute(db)).rows[0]!;
    if (Number(n) === 0) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  await sql`insert into housing_search (housing_search, rank) values ('integrity-check', 1)`.execute(db);
}
