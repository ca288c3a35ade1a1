import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { numeroUniqueParamSchema } from '../../../domain/demande.js';
import { z } from '../../../domain/zod.js';
import { garde } from '../../auth/guards.js';
import { fichier } from '../../http.js';

const evenementsQuery = z.object({ numero: numeroUniqueParamSchema.optional() });

/**
 * Live status changes (Server-Sent Events, docs/decisions/0006): managers hear every change; anyone
 * may follow one request's status by its numéro.
 */
export async function evenementsRoutes(scope: FastifyInstance): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { bus } = app.deps;
  const streams = new Set<() => void>();
  app.addHook('onClose', async () => {
    for (const end of streams) end();
  });
  const gestionnaire = garde('gestionnaire');

  app.get(
    '/evenements',
    {
      schema: { querystring: evenementsQuery, response: fichier() },
      // Every change of every request is for managers only.
      preHandler: async (request, reply) => {
        if (request.query.numero === undefined) await gestionnaire.call(app, request, reply);
      },
    },
    async (request, reply) => {
      const only = request.query.numero;
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.write('retry: 3000\n\n');
      const unsubscribe = bus.subscribe((event) => {
        if (only !== undefined && event.numeroUnique !== only) return;
        res.write(`event: statut\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const keepAlive = setInterval(() => res.write(': ok\n\n'), 25_000);
      const end = () => {
        clearInterval(keepAlive);
        unsubscribe();
        streams.delete(end);
        res.end();
      };
      streams.add(end);
      request.raw.on('close', end);
    },
  );
}
