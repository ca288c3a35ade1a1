import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attendreUnVerrou, createTestApp, inscrire, type TestContext } from './helpers.js';

/**
 * PostgreSQL: a sign-up through an invitation while the inviter deletes their account. The sign-up found the inviter,
 * then the foreign key of the follows refused them: the account is made anyway, as for an unknown inviter, never a 500.
 */
describe.skipIf(!process.env.DATABASE_URL)('an invitation whose inviter leaves during the sign-up', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestApp();
  });
  afterAll(async () => ctx?.close());

  it('makes the account without the follows (201), not a 500', async () => {
    const inviteur = await inscrire(ctx);
    const autre = new pg.Client({ connectionString: ctx.config.databaseUrl });
    await autre.connect();
    let inscription: Promise<Awaited<ReturnType<typeof inscrire>>> | undefined;
    try {
      // The inviter's deletion, under way in another instance: the row is gone for it, not yet for the others.
      await autre.query('begin');
      await autre.query('delete from "user" where id = $1', [inviteur.uid]);
      inscription = inscrire(ctx, { inviterUid: inviteur.uid });
      await attendreUnVerrou(ctx.app.deps.db);
      await autre.query('commit');
    } finally {
      await autre.end();
    }
    const invite = await inscription!;
    const compte = await ctx.app.deps.db.selectFrom('user').select('id').where('id', '=', invite.uid).executeTakeFirst();
    expect(compte).toBeDefined();
    expect(await ctx.app.deps.db.selectFrom('follows').selectAll().where('followerId', '=', invite.uid).execute()).toEqual([]);
  });
});
