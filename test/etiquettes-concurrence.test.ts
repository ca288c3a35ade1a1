import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtiquettesRepository } from '../src/server/features/etiquettes/repository.js';
import { EtiquettesService } from '../src/server/features/etiquettes/service.js';
import { InstructionRepository } from '../src/server/features/instruction/repository.js';
import { attendreUnVerrou, createTestApp, demande, type TestContext } from './helpers.js';

/**
 * PostgreSQL: two transactions change the labels of one request at once (READ COMMITTED). Each request's
 * `etiquette_ids` (migration 0027) must end as `demande_etiquettes` says, and a label's deletion must not deadlock
 * with a change of a request's labels.
 */
describe.skipIf(!process.env.DATABASE_URL)('labels changed at once on PostgreSQL', () => {
  let ctx: TestContext;
  const ids = { x: crypto.randomUUID(), y: crypto.randomUUID(), z: crypto.randomUUID() };
  /** A connection of its own, as another instance's transaction. */
  const client = async () => {
    const c = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await c.connect();
    return c;
  };
  const demandeId = async (numeroUnique: string) =>
    (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow()).id;
  const tableau = async (id: string) => (await sql<{ e: string[] }>`select etiquette_ids as e from housing_requests where id = ${id}`.execute(ctx.app.deps.db)).rows[0]!.e;
  const poser = (c: pg.Client, id: string, etiquette: string) =>
    c.query(`insert into demande_etiquettes (housing_request_id, etiquette_id, pose_par, pose_le) values ($1, $2, null, now()::text)`, [id, etiquette]);

  beforeAll(async () => {
    ctx = await createTestApp();
    const le = new Date().toISOString();
    await ctx.app.deps.db.insertInto('etiquettes').values(Object.entries(ids).map(([nom, id]) => ({ id, nom, nomCle: nom.toLowerCase(), couleur: 'bleu', creeLe: le }))).execute();
    for (const n of ['016conc00001', '016conc00002']) expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: n }) })).statusCode).toBe(201);
  });
  afterAll(async () => ctx?.close());

  it('keeps a request’s label array right when one transaction waited for the other’s lock on it', async () => {
    const r = await demandeId('016conc00001');
    const [t1, t2] = [await client(), await client()];
    try {
      await poser(t1, r, ids.x);
      // T1 adds Y (its trigger locks the request's row); T2 takes X off meanwhile, its trigger waits for T1.
      await t1.query('begin');
      await poser(t1, r, ids.y);
      await t2.query('begin');
      const retrait = t2.query('delete from demande_etiquettes where housing_request_id = $1 and etiquette_id = $2', [r, ids.x]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await t1.query('commit');
      await retrait;
      await t2.query('commit');
    } finally {
      await t1.end();
      await t2.end();
    }
    const rows = await ctx.app.deps.db.selectFrom('demandeEtiquettes').select('etiquetteId').where('housingRequestId', '=', r).execute();
    expect(rows.map((e) => e.etiquetteId)).toEqual([ids.y]);
    // Read again from the table, not from what the waiting statement saw before its wait.
    expect(await tableau(r)).toEqual([ids.y]);
  });

  it('deletes a label while a request’s labels are being changed without a deadlock, both done', async () => {
    const r = await demandeId('016conc00002');
    const { db, dbKind, now } = ctx.app.deps;
    const service = new EtiquettesService({ repository: new EtiquettesRepository(db, dbKind), journal: new InstructionRepository(db), now });
    const t1 = await client();
    let suppression: Promise<void> | undefined;
    try {
      await poser(t1, r, ids.z);
      // T1 changes the request's labels as the service does: the request's row locked first, Y added, Z taken off.
      await t1.query('begin');
      await t1.query('select id from housing_requests where id = $1 for update', [r]);
      await poser(t1, r, ids.y);
      // Meanwhile an admin deletes the label Z.
      suppression = service.supprimer(ids.z);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await t1.query('delete from demande_etiquettes where housing_request_id = $1 and etiquette_id = $2', [r, ids.z]);
      await t1.query('commit');
      await suppression;
    } finally {
      await t1.end();
    }
    expect(await db.selectFrom('etiquettes').select('id').where('id', '=', ids.z).executeTakeFirst()).toBeUndefined();
    expect((await db.selectFrom('demandeEtiquettes').select('etiquetteId').where('housingRequestId', '=', r).execute()).map((e) => e.etiquetteId)).toEqual([ids.y]);
    expect(await tableau(r)).toEqual([ids.y]);
  });

  it('refuses in French (409) the later of two labels named alike at once, which both passed the name check', async () => {
    const { db, dbKind, now } = ctx.app.deps;
    const service = new EtiquettesService({ repository: new EtiquettesRepository(db, dbKind), journal: new InstructionRepository(db), now });
    const t1 = await client();
    let creation: Promise<unknown> | undefined;
    try {
      // Another admin's creation of « Urgent », not yet committed: the service's name check cannot see it.
      await t1.query('begin');
      await t1.query(`insert into etiquettes (id, nom, nom_cle, couleur, cree_le) values ($1, 'Urgent', 'urgent', 'rouge', now()::text)`, [crypto.randomUUID()]);
      creation = service.creer({ nom: 'URGENT', couleur: 'bleu' }).catch((error: unknown) => error);
      await attendreUnVerrou(db);
      await t1.query('commit');
    } finally {
      await t1.end();
    }
    const refus = (await creation) as { statusCode?: number; code?: string; message?: string };
    expect(refus).toMatchObject({ statusCode: 409, code: 'DUPLICATE', message: 'Une étiquette porte déjà ce nom.' });
    expect((await db.selectFrom('etiquettes').select('nom').where('nomCle', '=', 'urgent').execute()).map((e) => e.nom)).toEqual(['Urgent']);
  });
});
