import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { numeroUniqueParamsSchema } from '../../../domain/demande.js';
import { messageSchema, nouveauMessageSchema } from '../../../domain/messages.js';
import { fieldMessages, MESSAGES } from '../../../domain/erreurs.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import type { DemandeRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import { avecFichiers, reponses } from '../../http.js';
import { demandeEnAccesComplet, estDemandeur } from '../demandes/access.js';
import type { DemandesRepository } from '../demandes/repository.js';
import { recevoirPieces, type PiecesRecues } from '../demandes/upload.js';
import type { Cote } from './repository.js';
import type { MessagesService } from './service.js';

/**
 * The thread of a request, for those who see it in full: its applicant (private key or owning account) writes
 * as « demandeur », a manager as « mairie ». Anyone else: 403, as for the full view.
 */
export function routesMessages(deps: { demandes: DemandesRepository; service: MessagesService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { demandes, service } = deps;
    const { rateLimits, storage, config } = app.deps;
    const acces = async (request: FastifyRequest, numeroUnique: string): Promise<{ row: DemandeRow; cote: Cote; userId: string | null }> => {
      const row = await demandeEnAccesComplet(demandes, request, numeroUnique);
      const user = await compteDe(request);
      return { row, cote: (await estDemandeur(request, row)) ? 'demandeur' : 'mairie', userId: user?.id ?? null };
    };

    app.get(
      '/logement/:numeroUnique/messages',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: z.array(messageSchema) })) } },
      async (request) => {
        const { row, cote } = await acces(request, request.params.numeroUnique);
        return { data: await service.lire(row, cote) };
      },
    );

    // The page showed the thread: the other side's messages are read. A POST, so that a link followed from another
    // site (a GET) cannot clear a manager's unread count.
    app.post(
      '/logement/:numeroUnique/messages/lus',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(204, z.null()) } },
      async (request, reply) => {
        const { row, cote } = await acces(request, request.params.numeroUnique);
        await service.marquerLus(row, cote, request.log);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/logement/:numeroUnique/messages',
      {
        config: { rateLimit: rateLimits.cycleDeVie },
        schema: { params: numeroUniqueParamsSchema, body: nouveauMessageSchema, response: reponses(201, z.object({ data: messageSchema })) },
      },
      async (request, reply) => {
        const { row, cote, userId } = await acces(request, request.params.numeroUnique);
        return reply.code(201).send({ data: await service.ecrire(row, cote, cote === 'mairie' ? userId : null, request.body.texte, request.log) });
      },
    );

    // The same, with attachments: multipart, `texte` first, then up to PIECES_PAR_MESSAGE_MAX files in `pieces`.
    // Files: multipart in this route's scope only (http.ts avecFichiers).
    await app.register(
      avecFichiers((fichiers) => {
        fichiers.post(
          '/logement/:numeroUnique/messages/avec-pieces',
          {
            config: { rateLimit: rateLimits.upload },
            schema: { params: numeroUniqueParamsSchema, response: reponses(201, z.object({ data: messageSchema })) },
          },
          async (request, reply) => {
            const { row, cote, userId } = await acces(request, request.params.numeroUnique);
            if (!request.isMultipart()) throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Un message avec des pièces jointes est envoyé en multipart/form-data.');
            let pieces: PiecesRecues;
            try {
              pieces = await recevoirPieces(request, { repository: demandes, storage, maxBytes: config.uploadMaxBytes, quota: config.uploadQuota, now: app.deps.now }, row);
            } catch (error) {
              // A refused upload may leave most of its body unread: the connection closes after the answer.
              reply.header('Connection', 'close');
              throw error;
            }
            const texte = nouveauMessageSchema.safeParse({ texte: pieces.texte });
            if (!texte.success) {
              await pieces.abandonner();
              throw new ApiError(400, 'VALIDATION', MESSAGES.validation, fieldMessages(texte.error));
            }
            const message = await service.ecrire(row, cote, cote === 'mairie' ? userId : null, texte.data.texte, request.log, pieces);
            return reply.code(201).send({ data: message });
          },
        );
      }),
    );
  };
}
