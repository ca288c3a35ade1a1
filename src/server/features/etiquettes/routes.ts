import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { numeroUniqueParamsSchema } from '../../../domain/demande.js';
import { etiquetteSchema, etiquettesDemandeSchema, nouvelleEtiquetteSchema } from '../../../domain/etiquettes.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { reponses } from '../../http.js';
import { demandeOu404 } from '../demandes/access.js';
import type { DemandesRepository } from '../demandes/repository.js';
import type { EtiquettesRepository } from './repository.js';
import type { EtiquettesService } from './service.js';

const idParams = z.object({ id: z.uuid({ error: 'Cette étiquette n’existe pas.' }) });
const idsSchema = z.object({ data: z.array(z.string()) });

/** Reading labels and putting them on requests: managers (and admins). */
export function routesEtiquettesGestion(deps: { demandes: DemandesRepository; repository: EtiquettesRepository; service: EtiquettesService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { demandes, repository, service } = deps;

    app.get('/etiquettes', { schema: { response: reponses(200, z.object({ data: z.array(etiquetteSchema) })) } }, async () => ({ data: await repository.liste() }));

    app.get('/logement/:numeroUnique/etiquettes', { schema: { params: numeroUniqueParamsSchema, response: reponses(200, idsSchema) } }, async (request) => ({
      data: await repository.deDemande((await demandeOu404(demandes, request.params.numeroUnique)).id),
    }));

    app.put(
      '/logement/:numeroUnique/etiquettes',
      { schema: { params: numeroUniqueParamsSchema, body: etiquettesDemandeSchema, response: reponses(200, idsSchema) } },
      async (request) => {
        const row = await demandeOu404(demandes, request.params.numeroUnique);
        return { data: await service.changer(row.id, request.body.ids, (await compteDe(request))!.id) };
      },
    );
  };
}

/** Keeping the set of labels: admins. */
export function routesEtiquettesAdmin(deps: { service: EtiquettesService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { service } = deps;

    app.post('/etiquettes', { schema: { body: nouvelleEtiquetteSchema, response: reponses(201, z.object({ data: etiquetteSchema })) } }, async (request, reply) =>
      reply.code(201).send({ data: await service.creer(request.body) }),
    );

    app.put(
      '/etiquettes/:id',
      { schema: { params: idParams, body: nouvelleEtiquetteSchema, response: reponses(200, z.object({ data: etiquetteSchema })) } },
      async (request) => ({ data: await service.modifier(request.params.id, request.body) }),
    );

    app.delete('/etiquettes/:id', { schema: { params: idParams, response: reponses(204, z.null()) } }, async (request, reply) => {
      await service.supprimer(request.params.id);
      return reply.code(204).send(null);
    });
  };
}
