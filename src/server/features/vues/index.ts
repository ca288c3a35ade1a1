import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { VuesRepository } from './repository.js';
import { routesVues } from './routes.js';

/** The managers' saved views of the list (issue 12 point 2). Managers only. */
export default async function vues(app: FastifyInstance): Promise<void> {
  await app.register(reserve('gestionnaire', routesVues({ repository: new VuesRepository(app.deps.db), now: app.deps.now })));
}
