import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MOT_DE_PASSE_MAX } from '../../../domain/compte.js';
import { z } from '../../../domain/zod.js';
import { compteDe } from '../../auth/guards.js';
import { reponses } from '../../http.js';
import type { CompteService } from './service.js';

const suppressionBody = z.object({
  motDePasse: z.string().max(MOT_DE_PASSE_MAX, { error: 'Le mot de passe est trop long.' }).optional(),
});

export const MESSAGE_COMPTE_SUPPRIME = 'Votre compte a été supprimé. Un e-mail de confirmation vous a été envoyé.';

/**
 * « Supprimer mon compte » (registered in the signed-in scope): CompteService.supprimerCompte. The app's own
 * route rather than better-auth's /delete-user: one transaction over the app's tables (follows, requests'
 * owner link), French messages, the avatar file and the throttle rows.
 */
export function suppressionRoutes(deps: { service: CompteService }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { service } = deps;
    const { config } = app.deps;

    app.post(
      '/user/me/supprimer',
      // A rare act, limited like the sign-up: guessing the password through a stolen session stays slow.
      { config: { rateLimit: app.deps.rateLimits.inscription }, schema: { body: suppressionBody, response: reponses(200, z.object({ data: z.object({ message: z.string() }) })) } },
      async (request, reply) => {
        const uid = (await compteDe(request))!.id;
        await service.supprimerCompte(uid, request.body.motDePasse);
        request.log.info({ uid }, 'compte supprimé par son titulaire');
        // The session is gone: the browser forgets its cookie too.
        for (const name of ['session_token', 'session_data', 'dont_remember']) {
          const secure = config.publicUrl.startsWith('https://');
          reply.header('set-cookie', `${secure ? '__Host-' : ''}qv.${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
        }
        return { data: { message: MESSAGE_COMPTE_SUPPRIME } };
      },
    );
  };
}
