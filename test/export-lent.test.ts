import net from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedRequest } from '../bench/seed.js';
import { createAccount, createTestApp, surUnPort, type TestContext } from './helpers.js';

/**
 * A manager's export downloaded slowly or abandoned (a phone on a poor line, a closed laptop) must not hold the
 * database for everyone: on SQLite the app has one connection, which the export kept while its client did not
 * read (every other request waited), and for ever once the client had gone.
 */
let ctx: TestContext;
let base: { host: string; port: number };
let cookie: string;
const N = 3000;

beforeAll(async () => {
  ctx = await createTestApp();
  cookie = (await createAccount(ctx, 'manager')).cookie;
  // Long rows (~2 KB of motivations each): some 6 MB of CSV, far more than the sockets' buffers hold.
  const long = 'Logement trop petit pour la famille, humidité dans les chambres. '.repeat(30);
  for (let i = 0; i < N; i += 500) {
    const rows = Array.from({ length: Math.min(500, N - i) }, (_, j) => ({ ...generatedRequest(i + j), motivations: long }));
    await ctx.app.deps.db.insertInto('housingRequests').values(rows).execute();
  }
  base = { host: '127.0.0.1', port: (await surUnPort(ctx.app)).port };
}, 60_000);
afterAll(async () => ctx.close());

/** An export whose client sends its request then reads nothing: the server's writes stop on a full socket. */
async function exportSansLecteur(): Promise<net.Socket> {
  const lent = net.connect(base);
  await new Promise<void>((resolve) => lent.once('connect', resolve));
  lent.write(`GET /app/api/logement/export.csv?colonnes=numeroUnique,nom,motivations HTTP/1.1\r\nHost: ${base.host}\r\nCookie: ${cookie}\r\n\r\n`);
  lent.pause();
  let premier = false;
  lent.once('readable', () => (premier = true));
  for (let i = 0; i < 100 && !premier; i++) await new Promise((r) => setTimeout(r, 20));
  // Long enough for the server to fill the socket and wait for it to drain.
  await new Promise((r) => setTimeout(r, 300));
  return lent;
}

describe('a slow export', () => {
  it('gives back what it held when its client goes away', async () => {
    const lent = await exportSansLecteur();
    lent.destroy();
    const liste = await fetch(`http://${base.host}:${base.port}/app/api/logement?page=1`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
    expect(liste.status).toBe(200);
  }, 30_000);

  it('leaves the other requests answered while its client does not read', async () => {
    const lent = await exportSansLecteur();
    try {
      // Meanwhile a resident looks up a request and a manager opens the list: both are answered.
      const lookup = await fetch(`http://${base.host}:${base.port}/app/api/logement/${generatedRequest(7).numeroUnique}`, { signal: AbortSignal.timeout(10_000) });
      expect(lookup.status).toBe(200);
      const liste = await fetch(`http://${base.host}:${base.port}/app/api/logement?page=1`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
      expect(liste.status).toBe(200);
      // …while the export is still under way (its client has read nothing).
      expect(lent.readableEnded).toBe(false);
    } finally {
      lent.destroy();
    }
  }, 30_000);
});

describe('an Excel export', () => {
  it('gives the other requests turns while it is written', async () => {
    // The app runs in this process: the longest turn of its event loop during the download, against the download's
    // length. Before, on SQLite, the whole workbook was written in one turn, every other request waiting for its end.
    // exceljs loads with the first workbook (one long turn): loaded first, by a workbook of no row.
    expect((await fetch(`http://${base.host}:${base.port}/app/api/logement/export.xlsx?q=zzzzzz`, { headers: { cookie } })).status).toBe(200);
    // The best of three downloads: the bug made every download one long turn, while a machine busy with other suites
    // may pause this process once for a while (a garbage collection, another process's turn) in any one download.
    const part = async () => {
      const boucle = monitorEventLoopDelay({ resolution: 1 });
      boucle.enable();
      const debut = performance.now();
      const res = await fetch(`http://${base.host}:${base.port}/app/api/logement/export.xlsx?colonnes=numeroUnique,nom,motivations`, { headers: { cookie } });
      expect(res.status).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
      const duree = performance.now() - debut;
      boucle.disable();
      return boucle.max / 1e6 / duree;
    };
    expect(Math.min(await part(), await part(), await part())).toBeLessThan(1 / 4);
  }, 60_000);
});
