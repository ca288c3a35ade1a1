import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { DemandesRepository } from '../demandes/repository.js';
import { DemandesService } from '../demandes/service.js';
import { EtiquettesRepository } from '../etiquettes/repository.js';
import { EtiquettesService } from '../etiquettes/service.js';
import { InstructionRepository } from '../instruction/repository.js';
import { InstructionService } from '../instruction/service.js';
import { LotsRepository } from './repository.js';
import { routesLots } from './routes.js';
import { LotsService } from './service.js';

/** Bulk work on the managers' list (issue 12 point 7): a status, « Suivre » or a label for many requests at once. */
export default async function lots(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config, now } = app.deps;
  const repository = new DemandesRepository(db, dbKind, now);
  const etiquettes = new EtiquettesRepository(db, dbKind);
  const service = new LotsService({
    repository,
    lots: new LotsRepository(db, dbKind),
    demandes: new DemandesService({ repository, mailer, bus, config, now }),
    instruction: new InstructionService({ repository: new InstructionRepository(db), now, envoi: { mailer, publicUrl: config.publicUrl }, bus, log: app.log }),
    etiquettes: { service: new EtiquettesService({ repository: etiquettes, journal: new InstructionRepository(db), now }), repository: etiquettes },
    log: app.log,
  });
  app.addHook('onClose', async () => service.fermer());
  await app.register(reserve('gestionnaire', routesLots({ service })));
}
