import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { reserve } from '../../auth/guards.js';
import { authSecret } from '../../auth/secret.js';
import { sousVerrouDeDemarrage, type Db, type DbKind } from '../../db/index.js';
import { STALE_MS, type Storage } from '../../storage/index.js';
import { evenementsGestion, evenementsSignalements, fluxSignalements } from './evenements.js';
import { SignalementsRepository } from './repository.js';
import { GestionSignalementsRepository } from './repository-gestion.js';
import { routesSignalements } from './routes.js';
import { routesCategoriesAdmin, routesGestionSignalements } from './routes-gestion.js';
import { SignalementsService } from './service.js';
import { GestionSignalementsService } from './service-gestion.js';

/** How often leftovers of interrupted photo uploads are looked for. */
const BALAYAGE_MS = 10 * 60_000;

/**
 * Technical reports (issue 14; docs/produit.md « Signalements techniques »): the public routes (report, look,
 * photos, follow, alerts, « Toujours pas résolu ») and their live events; the managers' routes (list, a report in
 * full, public updates, notes, moderation, every photo, their stream) in a scope reserved to managers and admins;
 * the categories as admins keep them, in a scope reserved to admins. Open311 is built on the same repository and
 * service.
 *
 * Photos live in a Storage of their own, `app.deps.photosSignalements` (`DATA_DIR/photos-signalements`, or the
 * bucket's `photos-signalements/` prefix: storage/choix.ts): the housing requests' sweep removes every file of
 * `uploads` that no document references, and a report's photo is no document.
 */
export default async function signalements(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config, territory, now, photosSignalements: storage } = app.deps;
  const repository = new SignalementsRepository(db, dbKind);
  const service = new SignalementsService({ repository, storage, mailer, bus, config, secret: authSecret(config), perimetre: territory.perimetre, now });
  const gestion = new GestionSignalementsRepository(db, dbKind);
  const serviceGestion = new GestionSignalementsService({ repository, gestion, bus, now });
  await indexDeRecherche(app, db, dbKind);
  balayerLesRestes(app, repository, storage);
  const flux = fluxSignalements();
  // Counted in /metrics, ended first when the app closes (exploitation/).
  app.deps.flux.set('signalements', flux);
  await app.register(routesSignalements({ repository, service, storage, perimetre: { perimetre: territory.perimetre, centre: territory.centre, approximatif: territory.perimetreApproximatif } }));
  await app.register(evenementsSignalements({ repository, flux }));
  await app.register(reserve('gestionnaire', routesGestionSignalements({ repository, gestion, service, serviceGestion, storage })));
  await app.register(reserve('gestionnaire', evenementsGestion({ repository, flux })));
  await app.register(reserve('admin', routesCategoriesAdmin({ gestion, serviceGestion })));
}

/**
 * PostgreSQL: the managers' search (`recherche LIKE '%…%'`) through a pg_trgm index, created at start when migration
 * 0020 could not (the extension came later, from optimiseSearch; docs/decisions/0007). Where it cannot be made, the
 * search still works, reading the table, and the start says so.
 */
async function indexDeRecherche(app: FastifyInstance, db: Db, kind: DbKind): Promise<void> {
  if (kind !== 'postgres') return;
  try {
    // One instance after the other when several start together (db/index.ts sousVerrouDeDemarrage).
    await sousVerrouDeDemarrage(db, kind, (conn) => sql`create index if not exists signalements_recherche_trgm_idx on signalements using gin (recherche gin_trgm_ops)`.execute(conn));
  } catch (error) {
    app.log.warn({ reason: error instanceof Error ? error.message : String(error) }, 'index trigramme des signalements non créé : la recherche des gestionnaires lira toute la table');
  }
}

/**
 * Leftovers of photo uploads cut short (a crash between the file and its row): temp files and stored photos
 * no row references, once older than STALE_MS (an upload under way is younger), at start then every 10 minutes.
 */
function balayerLesRestes(app: FastifyInstance, repository: SignalementsRepository, storage: Storage): void {
  let closing = false;
  const balayer = async () => {
    try {
      const avant = Date.now() - STALE_MS;
      let supprimes = 0;
      for (const temp of await storage.temps()) {
        if (closing || temp.modifiedAt.getTime() >= avant) continue;
        await storage.removeTemp(temp.name);
        supprimes += 1;
      }
      for await (const { key, modifiedAt } of storage.keys()) {
        if (closing || modifiedAt.getTime() >= avant || (await repository.estClePhoto(key))) continue;
        await storage.remove(key);
        supprimes += 1;
      }
      if (supprimes > 0 && !closing) app.log.warn({ supprimes }, 'restes d’envois de photos interrompus supprimés');
    } catch (error) {
      if (!closing) app.log.error({ err: error }, 'le nettoyage des restes d’envois de photos a échoué');
    }
  };
  void balayer();
  const every = setInterval(() => void balayer(), BALAYAGE_MS);
  every.unref();
  app.addHook('onClose', async () => {
    closing = true;
    clearInterval(every);
  });
}
