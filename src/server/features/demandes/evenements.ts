import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { numeroUniqueParamSchema } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { z } from '../../../domain/zod.js';
import { garde } from '../../auth/guards.js';
import { ApiError } from '../../errors.js';
import { fichier } from '../../http.js';
import type { DemandesRepository } from './repository.js';

const evenementsQuery = z.object({ numero: numeroUniqueParamSchema.optional() });

/** Seconds a refused client is asked to wait before opening a stream again. */
const RETRY_AFTER_S = 30;

function tooMany(reply: FastifyReply, message: string): ApiError {
  reply.header('Retry-After', String(RETRY_AFTER_S));
  return new ApiError(429, 'RATE_LIMITED', message);
}

/**
 * Live status changes (Server-Sent Events, docs/decisions/0006): managers hear every change; anyone
 * may follow one existing request's status by its numéro. Each stream holds a connection for as long as
 * the page stays open, so streams are capped in all and per client address (SSE_MAX_CONNEXIONS,
 * SSE_MAX_PAR_IP); a stream's place is given back when it ends, whichever side ends it.
 */
export function evenementsRoutes({ repository }: { repository: DemandesRepository }) {
  return async (scope: FastifyInstance): Promise<void> => {
    const app = scope.withTypeProvider<ZodTypeProvider>();
    const { bus, config } = app.deps;
    const streams = new Set<() => void>();
    const parIp = new Map<string, number>();
    app.addHook('onClose', async () => {
      for (const end of streams) end();
    });
    const gestionnaire = garde('gestionnaire');

    app.get(
      '/evenements',
      {
        schema: { querystring: evenementsQuery, response: fichier() },
        preHandler: async (request, reply) => {
          const { numero } = request.query;
          // Every change of every request is for managers only.
          if (numero === undefined) await gestionnaire.call(app, request, reply);
          // A numéro that does not exist gets no stream (one indexed lookup, before any connection is held).
          else if (!(await repository.findByNumero(numero))) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
        },
      },
      async (request, reply) => {
        const ip = request.ip;
        if (streams.size >= config.sseMax.total) {
          throw tooMany(reply, 'Le suivi en direct est complet pour le moment. Réessayez dans une minute ; en attendant, rechargez la page pour voir le statut.');
        }
        const fromIp = parIp.get(ip) ?? 0;
        if (fromIp >= config.sseMax.parIp) {
          throw tooMany(reply, 'Trop de suivis en direct sont ouverts depuis votre adresse. Fermez des onglets de Quartier Vivant, puis réessayez dans une minute.');
        }
        parIp.set(ip, fromIp + 1);

        const only = request.query.numero;
        reply.hijack();
        const res = reply.raw;
        // The headers set so far (security headers) go too: a hijacked answer skips Fastify's own writing.
        res.writeHead(200, {
          ...(reply.getHeaders() as OutgoingHttpHeaders),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'private, no-store, no-transform',
          connection: 'keep-alive',
          'x-accel-buffering': 'no',
        });
        res.write('retry: 3000\n\n');
        const unsubscribe = bus.subscribe((event) => {
          if (only !== undefined && event.numeroUnique !== only) return;
          res.write(`event: statut\ndata: ${JSON.stringify(event)}\n\n`);
        });
        const keepAlive = setInterval(() => res.write(': ok\n\n'), 25_000);
        const end = () => {
          // Reached from the client's close, the server's close and the response's own end: counts once.
          if (!streams.delete(end)) return;
          const left = (parIp.get(ip) ?? 1) - 1;
          if (left > 0) parIp.set(ip, left);
          else parIp.delete(ip);
          clearInterval(keepAlive);
          unsubscribe();
          res.end();
        };
        streams.add(end);
        request.raw.on('close', end);
        res.on('close', end);
        // A client gone before the listeners were attached.
        if (res.destroyed) end();
      },
    );
  };
}
