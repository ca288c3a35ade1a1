import { fromNodeHeaders } from 'better-auth/node';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MOT_DE_PASSE_COURANT, MOT_DE_PASSE_COURT, MOT_DE_PASSE_LONG } from '../../domain/compte.js';
import { MESSAGES } from '../../domain/erreurs.js';
import { z } from '../../domain/zod.js';
import { errorBody, hasNulByte, nulByteError } from '../errors.js';

/** better-auth's error codes, as people should read them (docs/produit.md « Messages »: errors reach people). */
const FRENCH: Record<string, { status?: number; message: string }> = {
  INVALID_EMAIL_OR_PASSWORD: { status: 401, message: 'E-mail ou mot de passe incorrect' },
  INVALID_EMAIL: { message: "L'adresse e-mail n'est pas valide." },
  INVALID_PASSWORD: { status: 401, message: 'Mot de passe incorrect' },
  PASSWORD_TOO_SHORT: { message: MOT_DE_PASSE_COURT },
  PASSWORD_TOO_LONG: { message: MOT_DE_PASSE_LONG },
  PASSWORD_TOO_COMMON: { message: MOT_DE_PASSE_COURANT },
  USER_ALREADY_EXISTS: { status: 409, message: 'Un compte existe déjà avec cette adresse e-mail.' },
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: { status: 409, message: 'Un compte existe déjà avec cette adresse e-mail.' },
  EMAIL_NOT_VERIFIED: { message: "Confirmez d'abord votre adresse e-mail grâce au lien reçu." },
  INVALID_TOKEN: { message: "Ce lien n'est plus valide. Demandez-en un nouveau." },
  TOKEN_EXPIRED: { message: 'Ce lien a expiré. Demandez-en un nouveau.' },
  EMAIL_CAN_NOT_BE_UPDATED: { message: "L'adresse e-mail ne peut pas être modifiée." },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { message: "Ce compte n'a pas de mot de passe : connectez-vous avec Google." },
  MISSING_OR_NULL_ORIGIN: { message: 'Requête refusée : origine inconnue.' },
  INVALID_ORIGIN: { message: 'Requête refusée : origine inconnue.' },
  FAILED_TO_GET_SESSION: { message: 'Session introuvable : reconnectez-vous.' },
};

/** What better-auth answers without a JSON body (an unknown path, a wrong method), in the app's words. */
const BY_STATUS: Record<number, { code: string; message: string }> = {
  404: { code: 'NOT_FOUND', message: MESSAGES.apiIntrouvable },
  405: { code: 'METHOD_NOT_ALLOWED', message: "Cette méthode n'est pas acceptée à cette adresse." },
};

/** A NUL character in a JSON body (PostgreSQL refuses them in text: they are refused here first). */
function bodyHasNul(body: Buffer): boolean {
  const text = body.toString('utf8');
  if (!text.includes('\\u0000') && !text.includes('\0')) return false;
  try {
    return hasNulByte(JSON.parse(text));
  } catch {
    return text.includes('\0');
  }
}

/**
 * Mounts better-auth at /app/api/auth/* (its official Fastify pattern: a web Request in, a Response
 * out), with its errors rewritten in the app's format and in French.
 */
export default async function authRoutes(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { auth, config } = app.deps;
  const origin = new URL(config.publicUrl).origin;

  // better-auth reads the body itself: hand it the raw bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, body, done) => done(null, body));

  app.route({
    method: ['GET', 'POST'],
    url: '/auth/*',
    // The path and body are better-auth's to read; the path is bounded here.
    schema: { params: z.object({ '*': z.string().max(200, { error: "L'adresse demandée est trop longue." }) }) },
    async handler(request, reply) {
      if (Buffer.isBuffer(request.body) && bodyHasNul(request.body)) throw nulByteError();
      const headers = fromNodeHeaders(request.headers);
      headers.set('x-qv-client-ip', request.ip); // rate-limit key; Fastify's trustProxy decides it
      const hasBody = request.method === 'POST' && Buffer.isBuffer(request.body);
      const response = await auth.handler(
        new Request(new URL(request.url, origin), {
          method: request.method,
          headers,
          body: hasBody ? new Uint8Array(request.body as Buffer) : undefined,
        }),
      );
      if (response.status === 429) {
        // The per-account lock (throttle.ts) says how long it lasts; the per-IP limiter answers the generic message.
        const body = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
        const locked = body?.code === 'ACCOUNT_LOCKED' && typeof body.message === 'string';
        return reply
          .status(429)
          .header('retry-after', response.headers.get(locked ? 'retry-after' : 'x-retry-after') ?? '60')
          .send(errorBody('RATE_LIMITED', locked ? String(body.message) : MESSAGES.tropDeTentatives));
      }
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      if (response.status >= 400) {
        const body = (await response.json().catch(() => null)) as { code?: string } | null;
        const byStatus = BY_STATUS[response.status];
        const code = body?.code ?? byStatus?.code ?? 'AUTH_ERROR';
        const french = FRENCH[code];
        request.log.info({ code, status: response.status }, 'auth error');
        return reply
          .status(french?.status ?? response.status)
          .send(errorBody(code, french?.message ?? byStatus?.message ?? "L'opération n'a pas abouti. Réessayez dans un instant."));
      }
      reply.status(response.status);
      response.headers.forEach((value, key) => {
        if (key !== 'set-cookie' && key !== 'content-length') reply.header(key, value);
      });
      return reply.send(response.body ? Buffer.from(await response.arrayBuffer()) : null);
    },
  });
}
