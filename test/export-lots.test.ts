import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DemandeRow } from '../src/server/db/schema.js';
import { exportCsv, LOT_EXPORT } from '../src/server/features/demandes/export.js';
import { createAccount, createTestApp, demande, type TestContext } from './helpers.js';

// The export's labels and followers are read by batches of requests, and only when chosen (issue 12 point 8).
let ctx: TestContext;
let row: DemandeRow;
let cookie: string;

beforeAll(async () => {
  ctx = await createTestApp();
  const manager = await createAccount(ctx, 'manager', { prenom: 'Inès', nom: 'Moreau' });
  cookie = manager.cookie;
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '016lot000001' }) });
  expect(res.statusCode, res.body).toBe(201);
  const db = ctx.app.deps.db;
  const { id } = await db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '016lot000001').executeTakeFirstOrThrow();
  await db.updateTable('housingRequests').set({ suiviePar: manager.uid }).where('id', '=', id).execute();
  const etiquette = randomUUID();
  await db.insertInto('etiquettes').values({ id: etiquette, nom: 'Prioritaire', nomCle: 'prioritaire', couleur: 'red', creeLe: '2025-05-12T08:00:00.000Z' }).execute();
  await db.insertInto('demandeEtiquettes').values({ housingRequestId: id, etiquetteId: etiquette, posePar: null, poseLe: '2025-05-12T08:00:00.000Z' }).execute();
  row = await db.selectFrom('housingRequests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
});
afterAll(async () => ctx.close());

/** Two batches and a half: the real request first in each batch and last, others without labels. */
const N = 2 * LOT_EXPORT + LOT_EXPORT / 2 + 1;
async function* lignes(): AsyncIterable<DemandeRow> {
  for (let i = 0; i < N; i++) yield i % LOT_EXPORT === 0 || i === N - 1 ? row : { ...row, id: randomUUID(), numeroUnique: `016lot${String(i).padStart(6, '0')}` };
}

async function lire(flux: Readable): Promise<string[]> {
  let texte = '';
  for await (const morceau of flux) texte += String(morceau);
  return texte.replace(/^\uFEFF/u, '').split('\r\n');
}

/**
 * Records the queries the app runs meanwhile (`lignes()` reads none); `lues()`: those that read labels or accounts
 * (the app's background work, such as the outbox, may run others at the same time).
 */
function compterRequetes() {
  const espion = vi.spyOn(ctx.app.deps.db.getExecutor(), 'executeQuery');
  const lues = () => espion.mock.calls.filter(([requete]) => /from "(demande_etiquettes|user)"/u.test(requete.sql)).length;
  return Object.assign(espion, { lues });
}

describe('the export’s « Étiquettes » and « Suivie par »', () => {
  it('are read once per batch of requests: two queries for each batch', async () => {
    const espion = compterRequetes();
    try {
      const sortie = await lire(exportCsv(lignes(), ['numeroUnique', 'etiquettes', 'suiviePar'], ctx.app.deps.db, ctx.app.log));
      expect(sortie[0]).toBe('Numéro unique;Étiquettes;Suivie par');
      const donnees = sortie.slice(1, -1);
      expect(donnees).toHaveLength(N);
      const avecEtiquette = donnees.flatMap((l, i) => (l.includes('Prioritaire') ? [i] : []));
      expect(avecEtiquette).toEqual([0, LOT_EXPORT, 2 * LOT_EXPORT, N - 1]);
      expect(donnees.every((l) => l.endsWith(';Inès Moreau'))).toBe(true);
      expect(espion.lues()).toBe(6);
    } finally {
      espion.mockRestore();
    }
  });

  it('are not read when not chosen', async () => {
    const espion = compterRequetes();
    try {
      const sortie = await lire(exportCsv(lignes(), ['numeroUnique', 'valideJusqua', 'correction'], ctx.app.deps.db, ctx.app.log));
      expect(sortie).toHaveLength(N + 2);
      expect(espion.lues()).toBe(0);
    } finally {
      espion.mockRestore();
    }
  });
});

describe('an export whose download ends while it reads its rows', () => {
  it('stops there and lets its rows go (a closed stream sends no more « drain » or « close »)', async () => {
    let fini = false;
    // Rows that come slowly (a database's cursor): the download is closed before the first batch is written.
    async function* lentes(): AsyncIterable<DemandeRow> {
      try {
        for (let i = 0; i < 3 * LOT_EXPORT; i++) {
          if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
          yield { ...row, numeroUnique: `016lent${String(i).padStart(5, '0')}` };
        }
      } finally {
        fini = true;
      }
    }
    const flux = exportCsv(lentes(), ['numeroUnique', 'motivations'], ctx.app.deps.db, ctx.app.log);
    flux.destroy();
    await vi.waitFor(() => expect(fini).toBe(true), { timeout: 5000 });
  });
});

describe('the export of more than one batch, through the route', () => {
  it('reads labels and followers while the list still streams (the stream holds no connection between its batches)', async () => {
    const db = ctx.app.deps.db;
    // LOT_EXPORT + 20 copies of the request (same search text), then the list streams past a first batch.
    const copies = Array.from({ length: LOT_EXPORT + 20 }, (_, i) => ({ ...row, id: randomUUID(), numeroUnique: `016lot1${String(i).padStart(5, '0')}` }));
    for (let i = 0; i < copies.length; i += 100) await db.insertInto('housingRequests').values(copies.slice(i, i + 100)).execute();
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/app/api/logement/export.csv?q=016lot&sort=numeroUnique&order=asc&colonnes=numeroUnique,etiquettes,suiviePar',
      headers: { cookie },
    });
    expect(res.statusCode).toBe(200);
    const lignes = res.body.replace(/^\uFEFF/u, '').split('\r\n');
    expect(lignes).toHaveLength(LOT_EXPORT + 23);
    expect(lignes[1]).toBe('016lot000001;Prioritaire;Inès Moreau');
    expect(lignes.slice(2, -1).every((l) => /^016lot1\d{5};;Inès Moreau$/u.test(l))).toBe(true);
  }, 20_000);
});
