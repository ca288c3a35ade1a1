import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MESSAGES } from '../../../domain/erreurs.js';
import { numeroSignalementSchema, QUOI_PRIVES, type EvenementSignalement } from '../../../domain/signalements.js';
import { z } from '../../../domain/zod.js';
import { encoreGestionnaire } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { fluxEnDirect } from '../../events/flux.js';
import { fichier } from '../../http.js';
import type { SignalementsRepository } from './repository.js';

const evenementsQuery = z.object({ numero: numeroSignalementSchema.optional() });

/**
 * The live streams of technical reports, public and managers', sharing one cap (SSE_MAX_CONNEXIONS,
 * SSE_MAX_PAR_IP, a budget apart from the housing streams'). Made once by the feature, handed to both routes:
 * `ouvrir` opens a stream of the bus's « signalement » topic for a request, keeping what `garder` accepts.
 */
export function fluxSignalements() {
  const flux = fluxEnDirect();
  return {
    /** `autorise`: a reserved stream's check of its reader (flux.ts). */
    ouvrir(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, garder: (event: EvenementSignalement) => boolean, autorise?: () => Promise<boolean>): void {
      flux.ouvrir(app, request, reply, {
        nom: 'signalement',
        complet: 'Le suivi en direct est complet pour le moment. Réessayez dans une minute ; en attendant, rechargez la page.',
        abonner: (envoyer) =>
          app.deps.bus.subscribeSignalements((event) => {
            if (garder(event)) envoyer(event);
          }),
        ...(autorise ? { autorise } : {}),
      });
    },
    fermer: flux.fermer,
    ouverts: flux.ouverts,
  };
}
export type FluxSignalements = ReturnType<typeof fluxSignalements>;

/**
 * Live events of technical reports (Server-Sent Events, `event: signalement`, data EvenementSignalement): every
 * new report and every public change, for the public map and list; `?numero=` for one report's page. What they
 * carry is public (number, state, time, what kind of change); the managers' own events (QUOI_PRIVES: a note was
 * added) never reach this stream.
 */
export function evenementsSignalements({ repository, flux }: { repository: SignalementsRepository; flux: FluxSignalements }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.addHook('onClose', async () => flux.fermer());

    app.get(
      '/technique/evenements',
      {
        schema: { querystring: evenementsQuery, response: fichier() },
        preHandler: async (request) => {
          const { numero } = request.query;
          if (numero !== undefined && !(await repository.parNumero(numero))) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
        },
      },
      async (request, reply) => {
        const seul = request.query.numero;
        flux.ouvrir(app, request, reply, (event) => !(event.quoi !== undefined && QUOI_PRIVES.includes(event.quoi)) && (seul === undefined || event.numero === seul));
      },
    );
  };
}

/**
 * The managers' stream (`GET /technique/gestion/evenements`, registered in their guarded scope): every event of the
 * topic, the managers' own included (`quoi: "note"`), for their list and a report's page; `?numero=` for one report.
 * The events carry no more personal data than the public ones: the list reads the rest from its own route.
 */
export function evenementsGestion({ repository, flux }: { repository: SignalementsRepository; flux: FluxSignalements }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    app.addHook('onClose', async () => flux.fermer());

    app.get(
      '/technique/gestion/evenements',
      {
        schema: { querystring: evenementsQuery, response: fichier() },
        preHandler: async (request) => {
          const { numero } = request.query;
          if (numero !== undefined && !(await repository.parNumero(numero))) throw new ApiError(404, 'NOT_FOUND', MESSAGES.signalementIntrouvable);
        },
      },
      async (request, reply) => {
        const seul = request.query.numero;
        // The managers' notes: the stream ends with the manager's session or role.
        flux.ouvrir(app, request, reply, (event) => seul === undefined || event.numero === seul, () => encoreGestionnaire(request));
      },
    );
  };
}
