/**
 * Slow bodies (docs/security.md « Limites »). Node's own timers bound the headers (`headersTimeout`) and
 * the whole request (`requestTimeout`, generous: a phone sending several 10 MB documents over a poor
 * connection must get through). In between, a client could hold a connection for an hour by trickling
 * its body a byte at a time; this guard cuts such bodies:
 *
 *   every `windowMs`, while a request's body is still arriving, at least `minRate × windowMs / 1000`
 *   bytes must have arrived on its socket since the previous check; otherwise the client gets
 *   `408 TIMEOUT` (French JSON, `Connection: close`) and the connection is closed.
 *
 * Only the client's slowness counts: when the server itself holds the body back (the route has not
 * started reading it, or writes it to disk more slowly than it arrives, so Node paused the socket),
 * the check restarts from there. Defaults: 512 bytes/s over 15 s windows (a GPRS phone sends 2 to 5
 * KB/s), so a stalled or trickled body is cut after 15 to 30 s.
 */
import http from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { MESSAGES } from '../../domain/erreurs.js';
import { errorBody } from '../errors.js';


function hasBody(headers: http.IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}

export function surveillerDebit(app: FastifyInstance, options: { minRate: number; windowMs: number }): void {
  if (options.minRate <= 0) return;
  const minBytes = Math.ceil((options.minRate * options.windowMs) / 1000);
  app.addHook('onRequest', (request, reply, done) => {
    const req = request.raw;
    if (!hasBody(req.headers) || req.complete) return done();
    const socket = req.socket;
    // Only a network socket can be slow: `inject`'s stand-in (tests, the fuzz bench) has no pace to watch.
    if (!(socket instanceof net.Socket)) return done();
    let seen = socket.bytesRead;
    const timer = setInterval(() => {
      if (req.complete || socket.destroyed) return clearInterval(timer);
      const read = socket.bytesRead;
      // The server is the slow one (nobody reads the body yet, or Node paused the socket): not the client's fault.
      if (socket.isPaused() || req.readableLength >= req.readableHighWaterMark) {
        seen = read;
        return;
      }
      if (read - seen >= minBytes) {
        seen = read;
        return;
      }
      clearInterval(timer);
      request.log.info({ bytes: read - seen, windowMs: options.windowMs }, 'corps de requête trop lent : connexion coupée');
      if (!reply.raw.headersSent && socket.writable) {
        const body = JSON.stringify(errorBody('TIMEOUT', MESSAGES.corpsTropLent));
        socket.write(
          `HTTP/1.1 408 ${http.STATUS_CODES[408]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroySoon();
    }, options.windowMs);
    timer.unref();
    req.once('end', () => clearInterval(timer));
    done();
  });
}
