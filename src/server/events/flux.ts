import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/** Seconds a refused client is asked to wait before opening a stream again. */
const RETRY_AFTER_S = 30;

function tropDeFlux(reply: FastifyReply, message: string): ApiError {
  reply.header('Retry-After', String(RETRY_AFTER_S));
  return new ApiError(429, 'RATE_LIMITED', message);
}

/** One stream's topic: its SSE event name, how to hear the bus, and what a full server tells the client. */
export interface SujetDeFlux {
  /** The `event:` name of each message. */
  nom: string;
  /** Subscribes `envoyer` to what this stream carries (already filtered); returns the unsubscription. */
  abonner: (envoyer: (donnees: unknown) => void) => () => void;
  /** The 429 message when every stream of this budget is taken. */
  complet: string;
}

/**
 * A budget of live streams (Server-Sent Events, docs/decisions/0006): each holds a connection for as long as its page
 * stays open, so streams are capped in all and per client address (SSE_MAX_CONNEXIONS, SSE_MAX_PAR_IP); a stream's
 * place is given back when it ends, whichever side ends it. One budget per feature (housing statuses, reports).
 */
export function fluxEnDirect() {
  const streams = new Set<() => void>();
  const parIp = new Map<string, number>();
  /** Set by `fermer` (the app closes): a stream asked for from then on ends at once. */
  let ferme = false;

  function ouvrir(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, sujet: SujetDeFlux): void {
    const { config } = app.deps;
    const ip = request.ip;
    if (ferme) {
      // An empty stream with its retry delay: the browser's EventSource comes back in 3 s (through the load
      // balancer, to an instance still running); a 503 would make it give up for good.
      reply.hijack();
      reply.raw.writeHead(200, { ...(reply.getHeaders() as OutgoingHttpHeaders), 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'private, no-store, no-transform', connection: 'close' });
      reply.raw.end('retry: 3000\n\n');
      return;
    }
    if (streams.size >= config.sseMax.total) throw tropDeFlux(reply, sujet.complet);
    const depuisIp = parIp.get(ip) ?? 0;
    if (depuisIp >= config.sseMax.parIp) {
      throw tropDeFlux(reply, 'Trop de suivis en direct sont ouverts depuis votre adresse. Fermez des onglets de Quartier Vivant, puis réessayez dans une minute.');
    }
    parIp.set(ip, depuisIp + 1);

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
    const desabonner = sujet.abonner((donnees) => res.write(`event: ${sujet.nom}\ndata: ${JSON.stringify(donnees)}\n\n`));
    const keepAlive = setInterval(() => res.write(': ok\n\n'), 25_000);
    const end = () => {
      // Reached from the client's close, the server's close and the response's own end: counts once.
      if (!streams.delete(end)) return;
      const reste = (parIp.get(ip) ?? 1) - 1;
      if (reste > 0) parIp.set(ip, reste);
      else parIp.delete(ip);
      clearInterval(keepAlive);
      desabonner();
      res.end();
    };
    streams.add(end);
    request.raw.on('close', end);
    res.on('close', end);
    // A client gone before the listeners were attached.
    if (res.destroyed) end();
  }

  /** Ends every stream, and every one asked for later (the app closes: exploitation/arret.ts). */
  function fermer(): void {
    ferme = true;
    for (const end of streams) end();
  }

  /** Streams open now (the `qv_sse_clients` metric). */
  function ouverts(): number {
    return streams.size;
  }

  return { ouvrir, fermer, ouverts };
}
export type FluxEnDirect = ReturnType<typeof fluxEnDirect>;
