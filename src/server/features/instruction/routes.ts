import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MESSAGES } from '../../../domain/erreurs.js';
import { numeroUniqueParamsSchema } from '../../../domain/demande.js';
import {
  confierSchema,
  entreeJournalSchema,
  exportJournaliseSchema,
  gestionnaireSchema,
  noteSchema,
  nouvelleNoteSchema,
  suiviSchema,
  suiviVueSchema,
} from '../../../domain/instruction.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { reponses } from '../../http.js';
import type { InstructionRepository } from './repository.js';
import type { InstructionService } from './service.js';

/** The managers' handling of one request; registered in a scope that refuses everyone else (index.ts). */
export function routesInstruction(deps: { repository: InstructionRepository; service: InstructionService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { repository, service } = deps;
    const demande = async (numeroUnique: string) => {
      const id = await repository.demandeId(numeroUnique);
      if (!id) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
      return id;
    };

    app.get(
      '/logement/:numeroUnique/notes',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: z.array(noteSchema) })) } },
      async (request) => ({ data: await repository.notes(await demande(request.params.numeroUnique)) }),
    );

    app.post(
      '/logement/:numeroUnique/notes',
      { schema: { params: numeroUniqueParamsSchema, body: nouvelleNoteSchema, response: reponses(201, z.object({ data: noteSchema })) } },
      async (request, reply) => {
        const id = await demande(request.params.numeroUnique);
        const note = await service.ajouterNote(id, (await compteDe(request))!.id, request.body.texte);
        return reply.code(201).send({ data: note });
      },
    );

    app.get(
      '/logement/:numeroUnique/suivi',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: suiviVueSchema })) } },
      async (request) => {
        const suiviePar = await repository.suivi(await demande(request.params.numeroUnique));
        return { data: { suiviePar, moi: suiviePar?.id === (await compteDe(request))!.id } };
      },
    );

    app.put(
      '/logement/:numeroUnique/suivi',
      { schema: { params: numeroUniqueParamsSchema, body: suiviSchema, response: reponses(200, z.object({ data: suiviVueSchema })) } },
      async (request) => {
        const id = await demande(request.params.numeroUnique);
        return { data: await service.changerSuivi(id, (await compteDe(request))!.id, request.body.suivre) };
      },
    );

    // « Confier à… » a colleague (a manager or an admin): they follow the request, and are told by e-mail.
    app.post(
      '/logement/:numeroUnique/confier',
      { schema: { params: numeroUniqueParamsSchema, body: confierSchema, response: reponses(200, z.object({ data: suiviVueSchema })) } },
      async (request) => {
        const id = await demande(request.params.numeroUnique);
        return { data: (await service.confier(id, (await compteDe(request))!.id, request.body.gestionnaireId)).vue };
      },
    );

    // Whom a request may be given to: every manager and admin, « Prénom Nom », never an e-mail.
    // Not under /logement/: a word there may be a numéro unique.
    app.get('/gestionnaires', { schema: { response: reponses(200, z.object({ data: z.array(gestionnaireSchema) })) } }, async () => ({
      data: await repository.gestionnaires(),
    }));

    app.get(
      '/logement/:numeroUnique/journal',
      { schema: { params: numeroUniqueParamsSchema, response: reponses(200, z.object({ data: z.array(entreeJournalSchema) })) } },
      async (request) => ({ data: await repository.journal(await demande(request.params.numeroUnique)) }),
    );

    // « Derniers exports » of the list (docs/produit.md « Instruction »): the latest 20, newest first.
    // Not under /logement/: a word of 6 letters or more there is a possible numéro unique (« exports » is one).
    app.get('/exports/journal', { schema: { response: reponses(200, z.object({ data: z.array(exportJournaliseSchema) })) } }, async () => ({
      data: await repository.derniersExports(),
    }));
  };
}
