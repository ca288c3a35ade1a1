import net, { type AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { EnvoisGroupes, grouperLesEnvois } from '../src/server/exploitation/envois.js';
import { createTestApp, demande } from './helpers.js';

/** The answers of a loop turn written together at its end (src/server/exploitation/envois.ts). */
describe('the answers of a turn are written at its end', () => {
  const tour = () => new Promise((r) => setImmediate(r));
  const sansErreur = (error: unknown) => {
    throw error;
  };
  /** Holds a payload as Fastify's onSend would, recording when it is written. */
  const envoyer = (envois: EnvoisGroupes, payload: string, ecrits: string[]) =>
    envois.retenir({} as never, {} as never, payload, (_error, ecrit) => ecrits.push(ecrit as string));

  it('holds the answers of a turn and writes them all at its end, oldest first, each with its own payload', async () => {
    const envois = new EnvoisGroupes(sansErreur, 1, () => 0);
    const ecrits: string[] = [];
    for (const p of ['a', 'b', 'c']) envoyer(envois, p, ecrits);
    expect(ecrits).toEqual([]);
    expect(envois.enAttente).toBe(3);
    await tour();
    expect(ecrits).toEqual(['a', 'b', 'c']);
    expect(envois.enAttente).toBe(0);
    // The next turn holds anew.
    envoyer(envois, 'd', ecrits);
    expect(ecrits).toEqual(['a', 'b', 'c']);
    await tour();
    expect(ecrits).toEqual(['a', 'b', 'c', 'd']);
  });

  it('writes what it holds at the first answer past the age limit, without waiting for the end of a long turn', async () => {
    let horloge = 0;
    const envois = new EnvoisGroupes(sansErreur, 1, () => horloge);
    const ecrits: string[] = [];
    envoyer(envois, 'a', ecrits);
    horloge = 0.6;
    envoyer(envois, 'b', ecrits);
    expect(ecrits).toEqual([]);
    horloge = 1.2; // the oldest waited 1.2 ms: all three leave now
    envoyer(envois, 'c', ecrits);
    expect(ecrits).toEqual(['a', 'b', 'c']);
    envoyer(envois, 'd', ecrits); // held again, its age counted from now
    expect(ecrits).toEqual(['a', 'b', 'c']);
    await tour();
    expect(ecrits).toEqual(['a', 'b', 'c', 'd']);
  });

  it('writes the other answers when one write throws, and tells what it threw', async () => {
    const erreurs: unknown[] = [];
    const envois = new EnvoisGroupes((e) => erreurs.push(e), 1, () => 0);
    const ecrits: string[] = [];
    envoyer(envois, 'a', ecrits);
    envois.retenir({} as never, {} as never, 'b', () => {
      throw new Error('socket cassée');
    });
    envoyer(envois, 'c', ecrits);
    await tour();
    expect(ecrits).toEqual(['a', 'c']);
    expect(erreurs.map((e) => (e as Error).message)).toEqual(['socket cassée']);
  });

  it("comes after a route's own onSend hooks, which still run in the answer's turn", async () => {
    const app = Fastify();
    grouperLesEnvois(app);
    let tourSuivant = false;
    await app.register(async (scope) => {
      // Like the managers' Server-Timing: measured before the answer is held.
      scope.addHook('onSend', (_request, reply, payload, done) => {
        reply.header('x-tour-suivant', String(tourSuivant));
        done(null, payload);
      });
      scope.get('/essai', async () => {
        setImmediate(() => (tourSuivant = true));
        return { ok: true };
      });
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const reponse = await fetch(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/essai`);
      expect(reponse.status).toBe(200);
      expect(await reponse.json()).toEqual({ ok: true });
      expect(reponse.headers.get('x-tour-suivant')).toBe('false');
    } finally {
      await app.close();
    }
  });

  it('gives each of 40 lookups sent at once over HTTP its own answer', async () => {
    const ctx = await createTestApp();
    try {
      const numeros = Array.from({ length: 40 }, (_, i) => `013envoi${String(i).padStart(5, '0')}`);
      for (const numeroUnique of numeros) {
        const creee = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique }) });
        expect(creee.statusCode).toBe(201);
      }
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (ctx.app.server.address() as AddressInfo).port;
      const sockets: net.Socket[] = [];
      for (const _ of numeros) {
        const socket = net.connect(port, '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        sockets.push(socket);
      }
      // Every connection accepted (the server accepts one per turn), then the 40 requests written at once: the server
      // reads them in one turn, and holds their answers together.
      for (let i = 0; i < 50; i += 1) await tour();
      const reponses = sockets.map(
        (socket) =>
          new Promise<string>((resolve) => {
            let texte = '';
            socket.on('data', (d: Buffer) => (texte += d.toString()));
            socket.on('close', () => resolve(texte));
          }),
      );
      sockets.forEach((socket, i) => socket.write(`GET /app/api/logement/${numeros[i]} HTTP/1.1\r\nHost: quartier.test\r\nConnection: close\r\n\r\n`));
      const lues = (await Promise.all(reponses)).map((texte) => JSON.parse(texte.slice(texte.indexOf('\r\n\r\n') + 4)) as { data: { numeroUnique: string } });
      expect(lues.map((l) => l.data.numeroUnique)).toEqual(numeros);
    } finally {
      await ctx.close();
    }
  });
});
