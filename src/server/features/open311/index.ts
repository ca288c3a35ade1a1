import type { FastifyInstance } from 'fastify';
import { authSecret } from '../../auth/secret.js';
import { reserve } from '../../auth/guards.js';
import { SignalementsRepository } from '../signalements/repository.js';
import { SignalementsService } from '../signalements/service.js';
import { Open311Repository } from './repository.js';
import { routesOpen311 } from './routes.js';
import { routesClesOpen311 } from './routes-cles.js';

/**
 * Open311 GeoReport v2 (issue 14 point 6; docs/api.md « Open311 GeoReport v2 »): registered at the site's root
 * with the prefix OPEN311_CHEMIN (`/open311/v2`), outside the app's API and its cookie-based rules. New reports
 * go through the technical reports' own service, built here as features/signalements builds it (same
 * perimeter, same outbox mails, same live events; its photo storage is not written by Open311).
 */
export default async function open311(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config, territory, now, rateLimits } = app.deps;
  const signalements = new SignalementsRepository(db, dbKind);
  const service = new SignalementsService({
    repository: signalements,
    storage: app.deps.photosSignalements,
    mailer,
    bus,
    config,
    secret: authSecret(config),
    perimetre: territory.perimetre,
    now,
  });
  await app.register(routesOpen311({ repository: new Open311Repository(db), signalements, service, limites: { parIp: rateLimits.open311, parCle: rateLimits.open311Cle } }));
}

/** The admins' Open311 API keys, under the app's API (`/app/api/open311/cles`): admins only. */
export async function clesOpen311(app: FastifyInstance): Promise<void> {
  await app.register(reserve('admin', routesClesOpen311({ repository: new Open311Repository(app.deps.db), now: app.deps.now })));
}
