import type { FastifyInstance } from 'fastify';
import { reserve } from '../../auth/guards.js';
import { DemandesRepository } from '../demandes/repository.js';
import { InstructionRepository } from '../instruction/repository.js';
import { CorrectionsRepository } from './repository.js';
import { routesCorrectionsDemandeur, routesCorrectionsGestion } from './routes.js';
import { CorrectionsService } from './service.js';

/**
 * Requests for corrections and the review of documents (issue 12 points 3–4): managers ask and review, the
 * applicant answers through the private link or the owning account.
 */
export default async function corrections(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config, now } = app.deps;
  const demandes = new DemandesRepository(db, dbKind, now);
  const service = new CorrectionsService({ repository: new CorrectionsRepository(db), demandes, journal: new InstructionRepository(db), mailer, bus, config, now });
  await app.register(reserve('gestionnaire', routesCorrectionsGestion({ demandes, service })));
  await app.register(routesCorrectionsDemandeur({ demandes, service }));
}
