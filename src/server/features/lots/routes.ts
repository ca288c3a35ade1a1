import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { etatLotSchema, nouveauLotSchema } from '../../../domain/lots.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { reponses } from '../../http.js';
import type { LotsService } from './service.js';

/** Bulk actions on the list (a scope reserved to managers): start one, read its progress. */
export function routesLots({ service }: { service: LotsService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();

    app.post('/lots', { schema: { body: nouveauLotSchema, response: reponses(202, z.object({ data: etatLotSchema })) } }, async (request, reply) => {
      const etat = await service.lancer((await compteDe(request))!.id, request.body, request.log);
      return reply.code(202).send({ data: etat });
    });

    app.get(
      '/lots/:id',
      { schema: { params: z.object({ id: z.uuid({ error: 'Ce traitement par lot n’existe pas ou plus.' }) }), response: reponses(200, z.object({ data: etatLotSchema })) } },
      async (request) => ({ data: await service.etat(request.params.id, (await compteDe(request))!.id) }),
    );
  };
}
