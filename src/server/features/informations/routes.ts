import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { informationsLegalesSchema, type InformationsLegales } from '../../../domain/informations.js';
import { z } from '../../../domain/zod.js';
import { SESSION_LIMITS } from '../../auth/sessions.js';
import { reponses } from '../../http.js';
import { KEEP_SENT_MS } from '../../mail/index.js';

const JOUR_MS = 24 * 3600_000;

/**
 * The publisher and the retention periods, as the legal pages show them, and the police municipale's contact for
 * the « Sécurité » page, only its configured parts, absent when none is (public, the same for everyone).
 */
export default async function informationsRoutes(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { legal, policeMunicipale } = app.deps.config;
  const data: InformationsLegales = {
    ...legal,
    ...(policeMunicipale && { policeMunicipale }),
    durees: {
      sessionHabitantJours: SESSION_LIMITS.habitant.idleMs / JOUR_MS,
      sessionHabitantMaxJours: SESSION_LIMITS.habitant.absoluteMs / JOUR_MS,
      sessionGestionMinutes: SESSION_LIMITS.gestion.idleMs / 60_000,
      sessionGestionMaxHeures: SESSION_LIMITS.gestion.absoluteMs / 3600_000,
      traceMailJours: KEEP_SENT_MS / JOUR_MS,
    },
  };
  app.get('/informations-legales', { schema: { response: reponses(200, z.object({ data: informationsLegalesSchema })) } }, async (_request, reply) =>
    reply.header('Cache-Control', 'public, max-age=300').send({ data }),
  );
}
