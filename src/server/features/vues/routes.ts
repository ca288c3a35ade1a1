import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { nouvelleVueSchema, vueSchema, VUES_MAX } from '../../../domain/vues.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { reponses } from '../../http.js';
import type { VuesRepository } from './repository.js';

const vueParams = z.object({ id: z.uuid({ error: "Cette vue n’existe pas." }) });

/** A manager's saved views of the list; registered in a scope that refuses everyone else (index.ts). */
export function routesVues(deps: { repository: VuesRepository; now: () => Date }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository } = deps;

    app.get('/vues', { schema: { response: reponses(200, z.object({ data: z.array(vueSchema) })) } }, async (request) => ({
      data: await repository.list((await compteDe(request))!.id),
    }));

    app.post('/vues', { schema: { body: nouvelleVueSchema, response: reponses(201, z.object({ data: vueSchema })) } }, async (request, reply) => {
      const vue = await repository.ajouter((await compteDe(request))!.id, request.body.nom, request.body.requete, deps.now().toISOString(), VUES_MAX);
      if (!vue) throw new ApiError(409, 'TROP_DE_VUES', `Vous avez déjà ${VUES_MAX} vues enregistrées : supprimez-en une pour en ajouter une autre.`);
      return reply.code(201).send({ data: vue });
    });

    app.delete('/vues/:id', { schema: { params: vueParams } }, async (request, reply) => {
      if (!(await repository.supprimer((await compteDe(request))!.id, request.params.id))) throw new ApiError(404, 'NOT_FOUND', "Cette vue n’existe pas.");
      return reply.code(204).send();
    });
  };
}
