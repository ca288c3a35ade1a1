import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { numeroUniqueParamSchema, QUOI_GESTION } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { z } from '../../../domain/zod.js';
import { isGestionnaire } from '../../../domain/compte.js';
import { compteDe, encoreGestionnaire, garde } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { fluxEnDirect } from '../../events/flux.js';
import { fichier } from '../../http.js';
import type { DemandesRepository } from './repository.js';

const evenementsQuery = z.object({ numero: numeroUniqueParamSchema.optional() });

/**
 * Live status changes (Server-Sent Events, docs/decisions/0006): managers hear every change; anyone
 * may follow one existing request's status by its numéro. Each stream holds a connection for as long as
 * the page stays open, so streams are capped in all and per client address (SSE_MAX_CONNEXIONS,
 * SSE_MAX_PAR_IP); a stream's place is given back when it ends, whichever side ends it.
 */
export function evenementsRoutes({ repository }: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { bus } = app.deps;
    const flux = fluxEnDirect();
    // Counted in /metrics, ended first when the app closes (exploitation/).
    app.deps.flux.set('logement', flux);
    app.addHook('onClose', async () => flux.fermer());
    const gestionnaire = garde('gestionnaire');

    app.get(
      '/evenements',
      {
        schema: { querystring: evenementsQuery, response: fichier() },
        preHandler: async (request, reply) => {
          const { numero } = request.query;
          // Every change of every request is for managers only.
          if (numero === undefined) await gestionnaire.call(app, request, reply);
          // A numéro that does not exist gets no stream (one indexed lookup, before any connection is held).
          else if (!(await repository.findByNumero(numero))) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
        },
      },
      async (request, reply) => {
        const only = request.query.numero;
        // The handling's changes (who follows the request) to managers only: a request's own stream is open to anyone
        // who knows its numéro.
        const compte = only === undefined ? null : await compteDe(request);
        const gestion = only === undefined || (compte !== null && isGestionnaire(compte.userType));
        flux.ouvrir(app, request, reply, {
          nom: 'statut',
          complet: 'Le suivi en direct est complet pour le moment. Réessayez dans une minute ; en attendant, rechargez la page pour voir le statut.',
          abonner: (envoyer) =>
            bus.subscribe((event) => {
              if (only !== undefined && event.numeroUnique !== only) return;
              if (!gestion && event.quoi !== undefined && QUOI_GESTION.includes(event.quoi)) return;
              envoyer(event);
            }),
          // A manager's stream ends with the manager's session or role (a request's public stream has nothing to check).
          ...(gestion ? { autorise: () => encoreGestionnaire(request) } : {}),
        });
      },
    );
  };
}
