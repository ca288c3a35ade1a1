import type { FastifyInstance } from 'fastify';
import { DemandesRepository } from '../demandes/repository.js';
import { InstructionRepository } from '../instruction/repository.js';
import { MessagesRepository } from './repository.js';
import { routesMessages } from './routes.js';
import { MessagesService } from './service.js';

/** Messages between the town hall and the applicant (issue 12 point 5), one thread per request. */
export default async function messages(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config, now } = app.deps;
  const demandes = new DemandesRepository(db, dbKind, now);
  const service = new MessagesService({ repository: new MessagesRepository(db), suivi: new InstructionRepository(db), demandes, mailer, bus, config, now });
  await app.register(routesMessages({ demandes, service }));
}
