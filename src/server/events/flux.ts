import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/** A comment line on every stream this often: proxies keep it open, and a reserved stream's reader is checked again. */
const KEEP_ALIVE_MS = 25_000;

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
  /**
   * For a stream reserved to some (managers): whether its reader still is one, asked again before a message when the
   * last answer is over VERIFICATION_MS old, and at each keep-alive. A no (or a failed read) ends the stream, the
   * message unsent. Absent: the stream is public.
   */
  autorise?: () => Promise<boolean>;
}

/** How long a reserved stream's last check of its reader stands (at most one read of the session a second). */
export const VERIFICATION_MS = 1000;

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
    const ecrire = (donnees: unknown) => res.write(`event: ${sujet.nom}\ndata: ${JSON.stringify(donnees)}\n\n`);
    // A reserved stream: checked when the guard let it in; messages arriving while a check runs wait for it, in order.
    let verifieLe = Date.now();
    let enAttente: unknown[] | null = null;
    const verifier = async () => {
      let oui = false;
      try {
        oui = await sujet.autorise!();
      } catch {
        // The session could not be read: the stream ends, the browser opens it again in 3 s and is checked then.
      }
      if (!oui) return end();
      verifieLe = Date.now();
      const messages = enAttente ?? [];
      enAttente = null;
      for (const m of messages) ecrire(m);
    };
    const envoyer = (donnees: unknown) => {
      if (enAttente) enAttente.push(donnees);
      else if (!sujet.autorise || Date.now() - verifieLe < VERIFICATION_MS) ecrire(donnees);
      else {
        enAttente = [donnees];
        void verifier();
      }
    };
    const desabonner = sujet.abonner(envoyer);
    const keepAlive = setInterval(() => {
      res.write(': ok\n\n');
      if (sujet.autorise && !enAttente) {
        enAttente = [];
        void verifier();
      }
    }, KEEP_ALIVE_MS);
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
