import { aLaPremiereUtilisation } from '../../../domain/paresseux.js';
import type { Db } from '../../db/index.js';

/**
 * The desk's own columns of the managers' export (« Étiquettes », « Suivie par »), read for a batch of the
 * streamed requests at a time: one query for their labels, one for their followers' names. The stream holds no
 * connection between its batches (SQLite: repository.ts `stream`; PostgreSQL: its cursor has a connection of its
 * own), so these go through Kysely as any read, committed data only.
 */

const ordreFrancais = aLaPremiereUtilisation(() => new Intl.Collator('fr', { sensitivity: 'base', numeric: true }));

/** Each request's labels' names, in French alphabetical order; a request without labels is absent. */
export async function etiquettesDesDemandes(db: Db, ids: readonly string[]): Promise<Map<string, string[]>> {
  const parDemande = new Map<string, string[]>();
  if (ids.length === 0) return parDemande;
  // Lower-case aliases: the naming plugin leaves them as they are on both databases.
  const poses = await db
    .selectFrom('demandeEtiquettes')
    .innerJoin('etiquettes', 'etiquettes.id', 'demandeEtiquettes.etiquetteId')
    .select(['demandeEtiquettes.housingRequestId as demande', 'etiquettes.nom as nom'])
    .where('demandeEtiquettes.housingRequestId', 'in', [...ids])
    .execute();
  for (const { demande, nom } of poses) {
    const noms = parDemande.get(demande);
    if (noms) noms.push(nom);
    else parDemande.set(demande, [nom]);
  }
  for (const noms of parDemande.values()) noms.sort(ordreFrancais().compare);
  return parDemande;
}

/** The managers' names, « Prénom Nom », by account id; an account gone is absent. */
export async function nomsDesGestionnaires(db: Db, userIds: readonly string[]): Promise<Map<string, string>> {
  const noms = new Map<string, string>();
  const uniques = [...new Set(userIds)];
  if (uniques.length === 0) return noms;
  for (const u of await db.selectFrom('user').select(['id', 'prenom', 'nom', 'name']).where('id', 'in', uniques).execute()) {
    noms.set(u.id, `${u.prenom} ${u.nom}`.trim() || u.name);
  }
  return noms;
}
