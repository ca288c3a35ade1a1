import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { avisDocumentSchema, correctionSchema, nouvelleCorrectionSchema } from '../../../domain/corrections.js';
import { demandeCompleteSchema, demandeModificationSchema, numeroUniqueParamsSchema } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { documentInfoSchema } from '../../../domain/documents.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { reponses } from '../../http.js';
import { demandeOu404, demandePourLeDemandeur } from '../demandes/access.js';
import type { DemandesRepository } from '../demandes/repository.js';
import { groupDocuments, toComplete } from '../demandes/vues.js';
import type { CorrectionsService } from './service.js';

const documentParams = numeroUniqueParamsSchema.extend({ id: z.uuid({ error: "Ce document n’existe pas pour cette demande." }) });

/** The managers' side: ask for corrections, close them, review each document (a scope reserved to managers). */
export function routesCorrectionsGestion(deps: { demandes: DemandesRepository; service: CorrectionsService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { demandes, service } = deps;

    app.post(
      '/logement/:numeroUnique/corrections',
      { schema: { params: numeroUniqueParamsSchema, body: nouvelleCorrectionSchema, response: reponses(201, z.object({ data: correctionSchema })) } },
      async (request, reply) => {
        const row = await demandeOu404(demandes, request.params.numeroUnique);
        const correction = await service.demander(row.id, (await compteDe(request))!.id, request.body, request.log);
        return reply.code(201).send({ data: correction });
      },
    );

    app.post(
      '/logement/:numeroUnique/corrections/cloture',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(204, z.null()) } },
      async (request, reply) => {
        const row = await demandeOu404(demandes, request.params.numeroUnique);
        await service.clore(row.id, (await compteDe(request))!.id, request.log);
        return reply.code(204).send(null);
      },
    );

    app.put(
      '/logement/:numeroUnique/documents/:id/avis',
      { schema: { params: documentParams, body: avisDocumentSchema, response: reponses(200, z.object({ data: documentInfoSchema })) } },
      async (request) => {
        const row = await demandeOu404(demandes, request.params.numeroUnique);
        const { body } = request;
        const doc = await service.donnerAvis(row.id, request.params.id, (await compteDe(request))!.id, body.avis, body.avis === 'a-remplacer' ? body.motif : null);
        const groupes = groupDocuments(row.numeroUnique, [doc]);
        return { data: Object.values(groupes).flat()[0]! };
      },
    );
  };
}

/** The applicant's side: their corrections to the fields, « J'ai fait les corrections »; by the private key or the owning account. */
export function routesCorrectionsDemandeur(deps: { demandes: DemandesRepository; service: CorrectionsService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { demandes, service } = deps;
    const { rateLimits } = app.deps;

    app.put(
      '/logement/:numeroUnique',
      {
        config: { rateLimit: rateLimits.cycleDeVie },
        schema: { params: numeroUniqueParamsSchema, body: demandeModificationSchema, response: reponses(200, z.object({ data: demandeCompleteSchema })) },
      },
      async (request) => {
        const row = await demandePourLeDemandeur(demandes, request, request.params.numeroUnique);
        await service.modifier(row.id, request.body, request.log);
        const complete = await demandes.findComplete(row.id);
        if (!complete) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
        return { data: toComplete(complete.row, complete.documents, complete.correction) };
      },
    );

    app.post(
      '/logement/:numeroUnique/corrections/faites',
      {
        config: { rateLimit: rateLimits.cycleDeVie },
        schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: correctionSchema })) },
      },
      async (request) => {
        const row = await demandePourLeDemandeur(demandes, request, request.params.numeroUnique);
        return { data: await service.marquerFaite(row.id, request.log) };
      },
    );
  };
}
