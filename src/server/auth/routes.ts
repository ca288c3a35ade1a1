import { fromNodeHeaders } from 'better-auth/node';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { MESSAGES } from '../../domain/erreurs.js';
import { z } from '../../domain/zod.js';
import { errorBody, hasNulByte, nulByteError } from '../errors.js';
import { succesATraduire, traduireErreur, traduireSucces } from './traduction.js';

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
    schema: { params: z.object({ '*': z.string().max(200, { error: "L’adresse demandée est trop longue." }) }) },
    async handler(request, reply) {
      if (Buffer.isBuffer(request.body) && bodyHasNul(request.body)) throw nulByteError();
      const headers = fromNodeHeaders(request.headers);
      headers.set('x-qv-client-ip', request.ip); // rate-limit key; Fastify's trustProxy decides it
      const hasBody = request.method === 'POST' && Buffer.isBuffer(request.body);
      const response = await auth.avec((betterAuth) =>
        betterAuth.handler(
          new Request(new URL(request.url, origin), {
            method: request.method,
            headers,
            body: hasBody ? new Uint8Array(request.body as Buffer) : undefined,
          }),
        ),
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
      const chemin = request.params['*'];
      if (response.status >= 400) {
        const body = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
        const erreur = traduireErreur(chemin, response.status, body);
        request.log.info({ code: erreur.code, status: response.status }, 'auth error');
        return reply.status(erreur.status).send(errorBody(erreur.code, erreur.message, erreur.fields));
      }
      reply.status(response.status);
      response.headers.forEach((value, key) => {
        if (key !== 'set-cookie' && key !== 'content-length') reply.header(key, value);
      });
      // A success whose JSON carries better-auth's English text (« Mot de passe oublié »): the same body, in French.
      if (succesATraduire(chemin) && response.headers.get('content-type')?.includes('application/json')) {
        return reply.send(traduireSucces(chemin, await response.json()));
      }
      return reply.send(response.body ? Buffer.from(await response.arrayBuffer()) : null);
    },
  });
}
