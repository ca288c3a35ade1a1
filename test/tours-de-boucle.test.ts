import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ToursDeBoucle } from '../src/server/exploitation/tours.js';
import { createAccount, createTestApp, demande } from './helpers.js';
import { surPostgres } from './db.js';

/**
 * The API's share of each turn of the event loop (src/server/exploitation/tours.ts). The clock is the test's own: each
 * task « costs » what it adds to it, so what runs in which turn does not depend on the machine's speed.
 */
describe('the requests share each turn of the event loop', () => {
  let arret = false;
  afterEach(() => {
    arret = true;
  });

  /** Counts the turns of the loop: a setImmediate that queues itself again (it runs first in each check phase). */
  function compteurDeTours(): () => number {
    arret = false;
    let tour = 0;
    const tic = () => {
      tour += 1;
      if (!arret) setImmediate(tic);
    };
    setImmediate(tic);
    return () => tour;
  }

  async function quandVide(tours: ToursDeBoucle): Promise<void> {
    for (let i = 0; i < 1000 && tours.enAttente > 0; i += 1) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }

  it('starts a request at once while the turn has time left and no one waits', () => {
    let horloge = 0;
    const tours = new ToursDeBoucle(10, sansErreur, () => horloge);
    const faits: number[] = [];
    tours.admettre(() => {
      faits.push(1);
      horloge += 3;
    });
    expect(faits).toEqual([1]);
    expect(tours.enAttente).toBe(0);
  });

  it('serves the rest first come, first served, spending at most the budget (and one request) in each turn', async () => {
    const tour = compteurDeTours();
    let horloge = 0;
    const tours = new ToursDeBoucle(10, sansErreur, () => horloge);
    const faits: { n: number; tour: number; cout: number }[] = [];
    // Each request arrives on its own socket callback (here an immediate of its own), as in the server.
    for (let n = 1; n <= 12; n += 1) {
      setImmediate(() =>
        tours.admettre(() => {
          faits.push({ n, tour: tour(), cout: 4 });
          horloge += 4;
        }),
      );
    }
    await quandVide(tours);
    await quandVide(tours);
    expect(faits.map((f) => f.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const parTour = new Map<number, number>();
    for (const f of faits) parTour.set(f.tour, (parTour.get(f.tour) ?? 0) + f.cout);
    expect(parTour.size).toBeGreaterThanOrEqual(4);
    for (const cout of parTour.values()) expect(cout).toBeLessThanOrEqual(10 + 4);
  });

  it('counts what a request does in the promises it chains before the next one starts', async () => {
    const tour = compteurDeTours();
    let horloge = 0;
    const tours = new ToursDeBoucle(10, sansErreur, () => horloge);
    const faits: { n: number; tour: number }[] = [];
    tours.admettre(() => {}); // the turn's first request, started at once
    horloge = 100; // then the turn's budget is spent: the others wait
    for (let n = 1; n <= 9; n += 1) {
      tours.admettre(() => {
        void (async () => {
          await null;
          await null;
          faits.push({ n, tour: tour() });
          horloge += 4;
        })();
      });
    }
    expect(tours.enAttente).toBe(9);
    await quandVide(tours);
    await quandVide(tours);
    expect(faits.map((f) => f.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const parTour = new Map<number, number>();
    for (const f of faits) parTour.set(f.tour, (parTour.get(f.tour) ?? 0) + 1);
    // The turn that had spent its budget still starts one (the queue always moves); then 4 units each against a
    // budget of 10: three a turn, never the rest at once.
    expect([...parTour.values()]).toEqual([1, 3, 3, 2]);
  });

  it('keeps going when a request throws as it starts, and tells what it threw', async () => {
    let horloge = 0;
    const erreurs: unknown[] = [];
    const tours = new ToursDeBoucle(10, (e) => erreurs.push(e), () => horloge);
    const faits: number[] = [];
    horloge = 0;
    tours.admettre(() => void (horloge = 50));
    for (let n = 1; n <= 4; n += 1) {
      tours.admettre(() => {
        if (n === 2) throw new Error('cassée');
        faits.push(n);
      });
    }
    await quandVide(tours);
    await quandVide(tours);
    expect(faits).toEqual([1, 3, 4]);
    expect(erreurs.map((e) => (e as Error).message)).toEqual(['cassée']);
  });

  it('serves thousands waiting in order, once each (the served ones leave the array)', async () => {
    let horloge = 0;
    const tours = new ToursDeBoucle(10, sansErreur, () => horloge);
    const faits: number[] = [];
    tours.admettre(() => void (horloge = 50));
    for (let n = 0; n < 3000; n += 1) {
      tours.admettre(() => {
        faits.push(n);
        horloge += 0.004;
      });
    }
    expect(tours.enAttente).toBe(3000);
    for (let i = 0; i < 10 && tours.enAttente > 0; i += 1) await quandVide(tours);
    expect(faits).toEqual(Array.from({ length: 3000 }, (_, n) => n));
    expect(tours.enAttente).toBe(0);
  });
});

function sansErreur(error: unknown): never {
  throw error;
}

describe('the app under a turn budget of 1 ms', () => {
  // At 1 ms most of the creations wait their turn (counted once with a probe in ToursDeBoucle: 29 of the 60 waited).
  it('answers every one of 30 creations and 30 lookups sent at once, in full, and saves each creation', async () => {
    const ctx = await createTestApp({ HTTP_TURN_BUDGET_MS: '1', RATE_LIMIT_MULTIPLIER: '100' });
    try {
      const creees = await Promise.all(
        Array.from({ length: 30 }, (_, i) => ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: `013tours${String(i).padStart(5, '0')}` }) })),
      );
      expect(creees.map((r) => r.statusCode)).toEqual(Array(30).fill(201));
      const lues = await Promise.all(creees.map((r) => ctx.app.inject({ method: 'GET', url: `/app/api/logement/${(r.json().data as { numeroUnique: string }).numeroUnique}` })));
      expect(lues.map((r) => r.statusCode)).toEqual(Array(30).fill(200));
      expect(lues.map((r) => (r.json().data as { numeroUnique: string }).numeroUnique)).toEqual(creees.map((r) => (r.json().data as { numeroUnique: string }).numeroUnique));
      const { n } = await ctx.app.deps.db.selectFrom('housingRequests').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(n)).toBe(30);
    } finally {
      await ctx.close();
    }
  });

  // Every reading of the clock 1 s after the last: each turn of the loop starts one waiting request, so the last of 41
  // sent at once waits some 40 turns, and its client leaves meanwhile. It is a DELETE, without a body: a request with
  // one is stopped by Node when its client leaves (its body never ends), one without would run.
  // SQLite only: on PostgreSQL each lookup waits on the network, the idle loop turns 40 times before the first answer
  // reaches the client, and the DELETE could start before its client left (seen once in CI, 2026-11-28). The queue
  // (exploitation/tours.ts) does not depend on the database, and the server turns it on by default with SQLite only.
  it.skipIf(surPostgres)('does not run a waiting request whose client has left (a deletion is not made), and serves the others', async () => {
    const ctx = await createTestApp({ HTTP_TURN_BUDGET_MS: '1', RATE_LIMIT_MULTIPLIER: '100' });
    const sockets: net.Socket[] = [];
    try {
      const numero = (
        (await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013tours00100' }) })).json().data as {
          numeroUnique: string;
        }
      ).numeroUnique;
      const { cookie } = await createAccount(ctx, 'manager');
      const vues = async () => (await ctx.app.inject({ method: 'GET', url: '/app/api/vues', headers: { cookie } })).json().data as { id: string }[];
      const vue = (await ctx.app.inject({ method: 'POST', url: '/app/api/vues', headers: { cookie }, payload: { nom: 'En attente', requete: 'status=En+attente' } })).json()
        .data as { id: string };
      await ctx.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (ctx.app.server.address() as net.AddressInfo).port;
      for (let i = 0; i < 41; i += 1) {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('error', () => undefined);
        await new Promise((resolve) => socket.once('connect', resolve));
        sockets.push(socket);
      }
      // Every connection accepted by the server before the requests go (it accepts one per turn).
      for (let i = 0; i < 50; i += 1) await new Promise((r) => setImmediate(r));
      const reponses = sockets.slice(0, 40).map(
        (socket) =>
          new Promise<string>((resolve) => {
            let texte = '';
            socket.on('data', (d: Buffer) => (texte += d.toString()));
            socket.on('close', () => resolve(texte));
          }),
      );
      const premiere = new Promise((resolve) => sockets[0]!.once('data', resolve));
      const depart = performance.now();
      let saut = 0;
      vi.spyOn(performance, 'now').mockImplementation(() => depart + (saut += 1000));
      for (const socket of sockets.slice(0, 40)) socket.write(`GET /app/api/logement/${numero} HTTP/1.1\r\nHost: quartier.test\r\nConnection: close\r\n\r\n`);
      const parti = sockets[40]!;
      parti.write(`DELETE /app/api/vues/${vue.id} HTTP/1.1\r\nHost: quartier.test\r\nOrigin: http://quartier.test\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`);
      await premiere;
      parti.resetAndDestroy();
      const textes = await Promise.all(reponses);
      expect(textes.map((t) => t.split('\r\n')[0])).toEqual(Array(40).fill('HTTP/1.1 200 OK'));
      vi.restoreAllMocks();
      // The deletion's turn came (the queue is empty: a lookup now is served at once), and it was not made.
      for (let i = 0; i < 20; i += 1) await new Promise((r) => setImmediate(r));
      expect((await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}` })).statusCode).toBe(200);
      expect((await vues()).map((v) => v.id)).toEqual([vue.id]);
    } finally {
      vi.restoreAllMocks();
      for (const socket of sockets) socket.destroy();
      await ctx.close();
    }
  });
});
