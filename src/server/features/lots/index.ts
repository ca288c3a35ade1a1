import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { DemandesRepository } from '../demandes/repository.js';
import { DemandesService } from '../demandes/service.js';
import { InstructionRepository } from '../instruction/repository.js';
import { InstructionService } from '../instruction/service.js';
import { routesLots } from './routes.js';
import { LotsService } from './service.js';

/** Bulk work on the managers' list (issue 12 point 7): a status or « Suivre » for many requests at once. */
export default async function lots(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config, now } = app.deps;
  const repository = new DemandesRepository(db, dbKind, now);
  const service = new LotsService({
    repository,
    demandes: new DemandesService({ repository, mailer, bus, config, now }),
    instruction: new InstructionService({ repository: new InstructionRepository(db), now }),
    log: app.log,
  });
  app.addHook('onClose', async () => service.fermer());
  await app.register(reserve('gestionnaire', routesLots({ service })));
}
