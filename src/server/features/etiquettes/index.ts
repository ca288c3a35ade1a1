import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { DemandesRepository } from '../demandes/repository.js';
import { InstructionRepository } from '../instruction/repository.js';
import { EtiquettesRepository } from './repository.js';
import { routesEtiquettesAdmin, routesEtiquettesGestion } from './routes.js';
import { EtiquettesService } from './service.js';

/** Labels (issue 12 point 6): admins keep the set, managers put them on requests and filter the list on them. */
export default async function etiquettes(app: FastifyInstance): Promise<void> {
  const { db, dbKind, now } = app.deps;
  const repository = new EtiquettesRepository(db, dbKind);
  const service = new EtiquettesService({ repository, journal: new InstructionRepository(db), now });
  await app.register(reserve('gestionnaire', routesEtiquettesGestion({ demandes: new DemandesRepository(db, dbKind, now), repository, service })));
  await app.register(reserve('admin', routesEtiquettesAdmin({ service })));
}
