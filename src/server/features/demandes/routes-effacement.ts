import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { isGestionnaire } from '../../../domain/compte.js';
import { numeroUniqueParamsSchema } from '../../../domain/demande.js';
import { MESSAGE_RENVOI_LIEN } from '../../../domain/effacement.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { fichier, reponses, zipStream } from '../../http.js';
import { InstructionRepository } from '../instruction/repository.js';
import { demandeEnAccesComplet, demandeOu404, demandePourLeDemandeur } from './access.js';
import { ajouterDemande } from './donnees.js';
import { effacerDemande, supprimerDocument } from './effacement.js';
import { DUREE_MINIMALE_RENVOI_MS, renvoyerLien } from './renvoi-lien.js';
import type { DemandesRepository } from './repository.js';

const documentParams = numeroUniqueParamsSchema.extend({ id: z.uuid({ error: "Ce document n’existe pas pour cette demande." }) });
const renvoiBody = z.object({
  email: z.string({ error: "L’adresse e-mail est obligatoire." }).max(320, { error: "L’adresse e-mail est trop longue." }),
});
const fait = () => reponses(200, z.object({ data: z.object({ message: z.string() }) }));

export const MESSAGE_RETRAIT = 'Votre demande a été retirée : vos informations et vos documents ont été supprimés.';
export const MESSAGE_EFFACEMENT = 'La demande a été effacée : ses informations et ses documents ont été supprimés.';

/**
 * Withdrawal, deletion of a document, a new private link, the request's data in a zip: routes anyone may
 * call, each checking who asks (the private key or the owner, as for uploads).
 */
export function routesEffacementPubliques(deps: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository } = deps;
    const { storage, mailer, bus, config, rateLimits, now } = app.deps;
    const journal = new InstructionRepository(app.deps.db);

    const loadWithFullAccess = (request: FastifyRequest, numeroUnique: string) => demandeEnAccesComplet(repository, request, numeroUnique);
    const loadForRequester = (request: FastifyRequest, numeroUnique: string) => demandePourLeDemandeur(repository, request, numeroUnique);

    // « Retirer ma demande »: the request becomes an anonymous tombstone; its numéro is free again.
    app.post(
      '/logement/:numeroUnique/retirer',
      { schema: { params: numeroUniqueParamsSchema, response: fait() } },
      async (request) => {
        const row = await loadForRequester(request, request.params.numeroUnique);
        const user = await compteDe(request);
        await effacerDemande({ repository, storage, mailer, bus }, row.id, 'retrait', user?.id ?? null, now());
        return { data: { message: MESSAGE_RETRAIT } };
      },
    );

    app.delete('/logement/:numeroUnique/documents/:id', { schema: { params: documentParams, response: reponses(204, z.null()) } }, async (request, reply) => {
      const row = await loadForRequester(request, request.params.numeroUnique);
      await supprimerDocument({ repository, storage }, row, request.params.id, now());
      return reply.status(204).send(null);
    });

    // "Renvoyer mon lien privé": limited per address and per numéro; one answer, one shape of timing.
    // The per-numéro count is a second limiter, checked by hand: the plugin runs one limiter per request.
    const limiteNumero = rateLimits.renvoiLienNumero
      ? app.createRateLimit({ ...rateLimits.renvoiLienNumero, keyGenerator: (request) => `renvoi-lien:${(request.params as { numeroUnique: string }).numeroUnique}` })
      : undefined;
    const parNumero = limiteNumero
      ? async (request: FastifyRequest) => {
          const verdict = await limiteNumero(request);
          if (!verdict.isAllowed && verdict.isExceeded) throw new ApiError(429, 'RATE_LIMITED', MESSAGES.tropDeTentatives);
        }
      : undefined;
    app.post(
      '/logement/:numeroUnique/renvoyer-lien',
      {
        config: { rateLimit: rateLimits.renvoiLien },
        ...(parNumero ? { preHandler: parNumero } : {}),
        schema: { params: numeroUniqueParamsSchema, body: renvoiBody, response: reponses(202, z.object({ data: z.object({ message: z.string() }) })) },
      },
      async (request, reply) => {
        const started = Date.now();
        await renvoyerLien({ repository, mailer, publicUrl: config.publicUrl }, request.params.numeroUnique, request.body.email);
        await sleep(Math.max(0, DUREE_MINIMALE_RENVOI_MS - (Date.now() - started)));
        return reply.status(202).send({ data: { message: MESSAGE_RENVOI_LIEN } });
      },
    );

    // « Télécharger mes données » for one request (private key or owner): demande.json and its documents.
    app.get('/logement/:numeroUnique/export.zip', { schema: { params: numeroUniqueParamsSchema, response: fichier() } }, async (request, reply) => {
      const row = await loadWithFullAccess(request, request.params.numeroUnique);
      // A manager's download goes in the audit (features/instruction); the applicant's own does not.
      const user = await compteDe(request);
      if (user && isGestionnaire(user.userType)) await journal.journaliser({ housingRequestId: row.id, acteurUserId: user.id, action: 'donnees-zip', le: now().toISOString() });
      const archive = zipStream(request, reply, `demande-${row.numeroUnique}-donnees.zip`);
      await ajouterDemande(archive, { repository, storage }, row);
      void archive.finalize();
      return reply.send(archive);
    });
  };
}

/** A manager erases a request at the person's request (registered in the managers' scope, see index.ts). */
export function routesEffacementGestion(deps: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository } = deps;
    const { storage, mailer, bus, now } = app.deps;

    app.delete('/logement/:numeroUnique', { schema: { params: numeroUniqueParamsSchema, response: fait() } }, async (request) => {
      const actor = (await compteDe(request))!;
      const row = await demandeOu404(repository, request.params.numeroUnique);
      await effacerDemande({ repository, storage, mailer, bus }, row.id, 'gestionnaire', actor.id, now());
      // The trace names the request by its internal id and the manager, never the person.
      request.log.info({ by: actor.id, demande: row.id }, 'demande effacée à la demande de la personne');
      return { data: { message: MESSAGE_EFFACEMENT } };
    });
  };
}
