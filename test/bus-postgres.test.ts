import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvenementDirect } from '../src/domain/demande.js';
import { PostgresBus } from '../src/server/events/index.js';
import { freshDatabaseUrl } from './db.js';
import { relais } from './relais.js';

/**
 * PostgreSQL's live events (LISTEN/NOTIFY): when the listening connection drops and the database is still out of
 * reach a second later (a restart, a fail-over), the instance keeps trying until it listens again. The database is
 * reached through a relay on the loopback (relais.ts) that the test cuts and restores.
 */
describe.skipIf(!process.env.DATABASE_URL)('live events on PostgreSQL after the database was out of reach', () => {
  let base: Awaited<ReturnType<typeof freshDatabaseUrl>>;
  let coupure: Awaited<ReturnType<typeof relais>>;

  beforeAll(async () => {
    base = await freshDatabaseUrl('qv_bus');
    coupure = await relais(new URL(base.url!));
  });
  afterAll(async () => {
    await coupure?.couper();
    await base?.drop();
  });

  const notifier = async (numeroUnique: string) => {
    const direct = new pg.Client({ connectionString: base.url });
    await direct.connect();
    const event: EvenementDirect = { numeroUnique, statutDeLaDemande: 'En attente', de: null, date: new Date().toISOString() };
    await direct.query('select pg_notify($1, $2)', ['qv_statut', JSON.stringify(event)]);
    await direct.end();
  };

  it('listens again once the database answers, however many attempts fail meanwhile', { timeout: 30_000 }, async () => {
    const silencieux = { level: 'silent', info() {}, warn() {}, error() {}, debug() {}, trace() {}, fatal() {}, silent() {}, child: () => silencieux } as unknown as FastifyBaseLogger;
    const bus = new PostgresBus(coupure.url(), silencieux);
    const recus: string[] = [];
    bus.subscribe((event) => recus.push(event.numeroUnique));
    try {
      await bus.start();
      await notifier('013bus000001');
      await expect.poll(() => recus, { timeout: 5000 }).toContain('013bus000001');
      // The connection drops, and the database stays out of reach for 2.5 s: the first attempts fail.
      await coupure.couper();
      await new Promise((r) => setTimeout(r, 2500));
      await coupure.retablir();
      // Sent until one arrives: events sent while it was deaf are not heard (the pages reload what they show).
      await expect
        .poll(
          async () => {
            await notifier('013bus000002');
            return recus;
          },
          { timeout: 20_000, interval: 500 },
        )
        .toContain('013bus000002');
    } finally {
      await bus.close();
    }
  });
});
