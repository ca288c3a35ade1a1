import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { InstructionRepository } from './repository.js';
import { routesInstruction } from './routes.js';
import { InstructionService } from './service.js';

/** The managers' handling of requests (issue 12): private notes, « Suivie par », « Confier à… », the audit. Managers only. */
export default async function instruction(app: FastifyInstance): Promise<void> {
  const repository = new InstructionRepository(app.deps.db);
  const service = new InstructionService({
    repository,
    now: app.deps.now,
    envoi: { mailer: app.deps.mailer, publicUrl: app.deps.config.publicUrl },
    bus: app.deps.bus,
    log: app.log,
  });
  await app.register(reserve('gestionnaire', routesInstruction({ repository, service })));
}
