import contentDisposition from 'content-disposition';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { isGestionnaire } from '../../../domain/compte.js';
import { cycleDeVieSchema } from '../../../domain/cycleDeVie.js';
import { numeroUniqueParamsSchema } from '../../../domain/demande.js';
import { STATUTS } from '../../../domain/statut.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { fichier, reponses } from '../../http.js';
import { InstructionRepository } from '../instruction/repository.js';
import { demandeEnAccesComplet, exigerOuverte } from './access.js';
import { attestationHorsBoucle, nomAttestation } from './attestation.js';
import { reactiver, renouveler, vueCycleDeVie } from './cycleDeVie.js';
import type { DemandesRepository } from './repository.js';
import { USER_FILE_HEADERS } from '../../http.js';

/**
 * The request's validity, « Renouveler », « Réactiver » and the attestation d'enregistrement: for those who
 * see the request in full (its private key, its owner, the managers at the counter), as for uploads.
 */
export function routesCycleDeVie(deps: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository } = deps;
    const { config, rateLimits, bus, now } = app.deps;
    // A manager's download of the attestation goes in the audit of their handling (features/instruction).
    const journal = new InstructionRepository(app.deps.db);

    const loadWithFullAccess = (request: FastifyRequest, numeroUnique: string) => demandeEnAccesComplet(repository, request, numeroUnique);

    app.get(
      '/logement/:numeroUnique/cycle-de-vie',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: cycleDeVieSchema })) } },
      async (request) => ({ data: vueCycleDeVie(await loadWithFullAccess(request, request.params.numeroUnique), config) }),
    );

    app.post(
      '/logement/:numeroUnique/renouveler',
      {
        config: { rateLimit: rateLimits.cycleDeVie },
        schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: cycleDeVieSchema })) },
      },
      async (request) => {
        const row = await loadWithFullAccess(request, request.params.numeroUnique);
        return { data: await renouveler({ repository, config, now }, row) };
      },
    );

    app.post(
      '/logement/:numeroUnique/reactiver',
      {
        config: { rateLimit: rateLimits.cycleDeVie },
        schema: {
          params: numeroUniqueParamsSchema,
          response: reponses(200, z.object({ data: z.object({ statutDeLaDemande: z.enum(STATUTS), cycleDeVie: cycleDeVieSchema }) })),
        },
      },
      async (request) => {
        const row = await loadWithFullAccess(request, request.params.numeroUnique);
        const user = await compteDe(request);
        const { statut, cycleDeVie } = await reactiver({ repository, config, now, bus, log: request.log }, row, user?.id ?? null);
        return { data: { statutDeLaDemande: statut, cycleDeVie } };
      },
    );

    // A dated PDF composed on demand (issue 10 point 8).
    app.get('/logement/:numeroUnique/attestation.pdf', { schema: { params: numeroUniqueParamsSchema, response: fichier() } }, async (request, reply) => {
      const row = await loadWithFullAccess(request, request.params.numeroUnique);
      // It says until when the request is valid: a closed one is valid no longer (one struck off, once reactivated, has it again).
      exigerOuverte(row, 'l’attestation d’enregistrement n’est délivrée que pour une demande en cours.');
      const pdf = await attestationHorsBoucle(row, now());
      // Recorded for managers only (the applicant's own download is not): who and when, nothing of the person.
      const user = await compteDe(request);
      if (user && isGestionnaire(user.userType)) await journal.journaliser({ housingRequestId: row.id, acteurUserId: user.id, action: 'attestation', le: now().toISOString() });
      return reply
        .headers(USER_FILE_HEADERS)
        .header('Content-Type', 'application/pdf')
        .header('Content-Disposition', contentDisposition(nomAttestation(row.numeroUnique), { type: 'attachment' }))
        .send(pdf);
    });
  };
}
