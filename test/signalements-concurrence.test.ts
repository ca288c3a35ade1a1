import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointA } from '../src/domain/geometrie.js';
import { SignalementsRepository } from '../src/server/features/signalements/repository.js';
import { attendreUnVerrou, createAccount, createTestApp, SANS_LIMITES_SIGNALEMENTS, type TestContext } from './helpers.js';

/**
 * PostgreSQL: two managers making two reports each other's duplicate at once. Each change locks its report; the
 * original must be locked too, else each reads the other before the other's change and a loop forms (A → B, B → A).
 */
describe.skipIf(!process.env.DATABASE_URL)('duplicates marked at once on PostgreSQL', () => {
  let ctx: TestContext;
  let manager: Awaited<ReturnType<typeof createAccount>>;
  const CENTRE = { lat: 43.529444, lon: 5.413889 };

  beforeAll(async () => {
    ctx = await createTestApp({}, { rateLimits: SANS_LIMITES_SIGNALEMENTS });
    manager = await createAccount(ctx, 'manager');
  });
  afterAll(async () => ctx?.close());

  const signaler = async (n: number) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/technique/signalements',
      payload: { categorie: 'voirie', titre: `Lampadaire éteint n° ${n}`, description: 'Éteint depuis lundi.', ...pointA(CENTRE, 200, n * 40), email: `doublon${n}@example.org`, nom: 'Camille', nomMasque: false },
    });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { data: { numero: string } }).data.numero;
  };

  it('makes the later of « A duplicate of B » and « B duplicate of A » wait, then refuses it: no loop', async () => {
    const repository = new SignalementsRepository(ctx.app.deps.db, ctx.app.deps.dbKind);
    const [a, b] = [(await repository.parNumero(await signaler(1)))!, (await repository.parNumero(await signaler(2)))!];
    // The other manager's change « A duplicate of B », under way: A locked, B read (not a duplicate), not yet committed.
    const autre = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await autre.connect();
    let reponse: Promise<{ statusCode: number; body: string }> | undefined;
    try {
      await autre.query('begin');
      await autre.query('select id from signalements where id = $1 for update', [a.id]);
      expect((await autre.query('select etat from signalements where id = $1', [b.id])).rows[0].etat).not.toBe('doublon');
      reponse = ctx.app.inject({
        method: 'POST',
        url: `/app/api/technique/gestion/signalements/${b.numero}/mises-a-jour`,
        payload: { etat: 'doublon', doublonDe: a.numero },
        headers: { cookie: manager.cookie },
      });
      await attendreUnVerrou(ctx.app.deps.db);
      await autre.query(`update signalements set etat = 'doublon', doublon_de = $2 where id = $1`, [a.id, b.id]);
      await autre.query('commit');
    } finally {
      await autre.end();
    }
    const res = await reponse!;
    expect(res.statusCode, res.body).toBe(400);
    expect(res.body).toContain('ferait une boucle');
    expect((await repository.parId(b.id))!.doublonDe).toBeNull();
    expect((await repository.parId(a.id))!.doublonDe).toBe(b.id);
  });
});
