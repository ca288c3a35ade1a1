import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { evenementsRoutes } from './evenements.js';
import { routesGestion } from './gestion.js';
import { DemandesRepository } from './repository.js';
import { routesCompte, routesPubliques } from './routes.js';
import { DemandesService } from './service.js';
import { sweepOrphans } from './upload.js';

/**
 * Housing requests, one feature: public routes (submit, look up, documents), the account's own requests,
 * the managers' routes (list, status, export) in a scope reserved to managers, and live events.
 */
export default async function demandes(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config } = app.deps;
  const repository = new DemandesRepository(db, dbKind);
  // Files a crash left without their document record (docs/decisions/0003), removed at start.
  const swept = await sweepOrphans(repository, app.deps.storage);
  if (swept > 0) app.log.warn({ swept }, 'fichiers sans document supprimés');
  const service = new DemandesService({ repository, mailer, bus, config });
  await app.register(reserve('gestionnaire', routesGestion({ repository, service })));
  await app.register(reserve('compte', routesCompte({ repository })));
  await app.register(routesPubliques({ repository, service }));
  await app.register(evenementsRoutes({ repository }));
}
