// Queries built by Kysely once and run with other values (src/server/db/gabarit.ts, insertion.ts): each must read and
// write what Kysely's own query does, on SQLite and on PostgreSQL, inside a transaction or not.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect, sql, type Insertable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Db } from '../src/server/db/index.js';
import { Gabarit } from '../src/server/db/gabarit.js';
import { inserer } from '../src/server/db/insertion.js';
import type { Database, MailOutboxTable } from '../src/server/db/schema.js';
import { freshDatabaseUrl } from './db.js';

let db: Db;
let dir: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-insertion-'));
  const base = await freshDatabaseUrl('qv_insertion');
  drop = base.drop;
  db = openDatabase({ databaseUrl: base.url, dataDir: dir }).db;
  await migrate(db);
});
afterAll(async () => {
  await db.destroy();
  await drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A queued mail's row; `extra` may leave a required column undefined (its default) or give an expression. */
const mail = (id: string, extra: Record<string, unknown> = {}): Insertable<MailOutboxTable> => ({
  id,
  recipient: `${id}@example.org`,
  subject: 'Sujet « accentué » d’essai',
  body: "L'apostrophe, la ligne\nsuivante et \u0001 un contrôle",
  createdAt: '2026-11-29T08:00:00.000Z',
  sendAfter: '2026-11-29T08:00:00.000Z',
  attempts: 0,
  ...extra,
});
const lu = (id: string) => db.selectFrom('mailOutbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('inserer', () => {
  it('writes the row Kysely writes, values in their columns whatever the order of the keys', async () => {
    await db.insertInto('mailOutbox').values(mail('k1', { attempts: 3, key: 'cle-1', housingRequestId: null })).execute();
    await inserer(db, 'mailOutbox', mail('i1', { attempts: 3, key: 'cle-2', housingRequestId: null }));
    // The same columns, keys in another order: another shape, each value still in its own column.
    const { sendAfter, subject, ...reste } = mail('i2', { attempts: 3, key: 'cle-3', housingRequestId: null });
    await inserer(db, 'mailOutbox', { sendAfter, ...reste, subject });
    const attendu = await lu('k1');
    for (const [id, key] of [
      ['i1', 'cle-2'],
      ['i2', 'cle-3'],
    ] as const) {
      expect(await lu(id)).toEqual({ ...attendu, id, key, recipient: `${id}@example.org` });
    }
  });

  it('leaves an undefined value to the column’s default, as Kysely does, in each shape', async () => {
    await inserer(db, 'mailOutbox', mail('d1', { attempts: 5 }));
    await inserer(db, 'mailOutbox', mail('d2', { attempts: undefined }));
    await inserer(db, 'mailOutbox', mail('d3', { attempts: 7 }));
    expect((await lu('d1')).attempts).toBe(5);
    expect((await lu('d2')).attempts).toBe(0);
    expect((await lu('d3')).attempts).toBe(7);
  });

  it('tells apart two shapes of as many columns, one column in place of another', async () => {
    await inserer(db, 'mailOutbox', mail('c1', { key: 'cle-c1' }));
    await inserer(db, 'mailOutbox', mail('c2', { lastError: 'erreur-c2' }));
    await inserer(db, 'mailOutbox', mail('c3', { key: 'cle-c3' }));
    expect(await lu('c1')).toMatchObject({ key: 'cle-c1', lastError: null });
    expect(await lu('c2')).toMatchObject({ key: null, lastError: 'erreur-c2' });
    expect(await lu('c3')).toMatchObject({ key: 'cle-c3', lastError: null });
  });

  it('writes inside the transaction it is given: rolled back, the row is gone', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await inserer(trx, 'mailOutbox', mail('t1'));
        expect((await trx.selectFrom('mailOutbox').select('id').where('id', '=', 't1').execute()).length).toBe(1);
        throw new Error('annulée');
      }),
    ).rejects.toThrow('annulée');
    expect(await db.selectFrom('mailOutbox').select('id').where('id', '=', 't1').executeTakeFirst()).toBeUndefined();
  });

  it('fails on a duplicate as Kysely’s insert does, and writes nothing', async () => {
    await inserer(db, 'mailOutbox', mail('u1', { key: 'unique-1' }));
    await expect(inserer(db, 'mailOutbox', mail('u2', { key: 'unique-1' }))).rejects.toThrow(/unique/iu);
    expect(await db.selectFrom('mailOutbox').select('id').where('id', '=', 'u2').executeTakeFirst()).toBeUndefined();
  });

  it('gives a value that is an expression to Kysely, which writes what it computes', async () => {
    await inserer(db, 'mailOutbox', mail('e1', { attempts: sql<number>`2 + 3` }));
    expect((await lu('e1')).attempts).toBe(5);
  });
});

describe('Gabarit', () => {
  const parDestinataire = new Gabarit<{ recipient: string; apres: string }, { id: string; attempts: number; sendAfter: string }>('essai', (db, p) =>
    db.selectFrom('mailOutbox').select(['id', 'attempts', 'sendAfter']).where('recipient', '=', p.recipient).where('sendAfter', '>', p.apres).orderBy('id').limit(2),
  );
  const tentatives = new Gabarit<{ id: string; attempts: number; lastError: string | null }, unknown>('essai-maj', (db, p) =>
    db.updateTable('mailOutbox').set({ attempts: p.attempts, lastError: p.lastError }).where('id', '=', p.id),
  );

  beforeAll(async () => {
    for (const [id, sendAfter] of [
      ['g1', '2026-11-29T08:00:00.000Z'],
      ['g2', '2026-11-29T09:00:00.000Z'],
      ['g3', '2026-11-29T10:00:00.000Z'],
      ['g4', '2026-11-29T11:00:00.000Z'],
    ] as const) {
      await inserer(db, 'mailOutbox', { ...mail(id, { sendAfter }), recipient: id === 'g4' ? 'autre@example.org' : 'gabarit@example.org' });
    }
  });

  it('reads what Kysely reads, for each value given, its constants (the limit) kept', async () => {
    const kysely = (recipient: string, apres: string) =>
      db.selectFrom('mailOutbox').select(['id', 'attempts', 'sendAfter']).where('recipient', '=', recipient).where('sendAfter', '>', apres).orderBy('id').limit(2).execute();
    for (const [recipient, apres] of [
      ['gabarit@example.org', '2026-01-01T00:00:00.000Z'],
      ['gabarit@example.org', '2026-11-29T08:30:00.000Z'],
      ['autre@example.org', '2026-01-01T00:00:00.000Z'],
      ['personne@example.org', '2026-01-01T00:00:00.000Z'],
    ] as const) {
      expect(await parDestinataire.tous(db, { recipient, apres })).toEqual(await kysely(recipient, apres));
    }
    expect((await parDestinataire.tous(db, { recipient: 'gabarit@example.org', apres: '2026-11-29T08:30:00.000Z' })).map((r) => r.id)).toEqual(['g2', 'g3']);
    expect(await parDestinataire.premier(db, { recipient: 'personne@example.org', apres: '' })).toBeUndefined();
  });

  it('writes in the transaction it is given, a null value included', async () => {
    await db.transaction().execute(async (trx) => {
      await tentatives.executer(trx, { id: 'g1', attempts: 4, lastError: 'boîte pleine' });
      expect((await trx.selectFrom('mailOutbox').select(['attempts', 'lastError']).where('id', '=', 'g1').executeTakeFirstOrThrow())).toEqual({ attempts: 4, lastError: 'boîte pleine' });
    });
    await tentatives.executer(db, { id: 'g1', attempts: 5, lastError: null });
    expect(await db.selectFrom('mailOutbox').select(['attempts', 'lastError']).where('id', '=', 'g1').executeTakeFirstOrThrow()).toEqual({ attempts: 5, lastError: null });
    await expect(
      db.transaction().execute(async (trx) => {
        await tentatives.executer(trx, { id: 'g2', attempts: 9, lastError: 'x' });
        throw new Error('annulée');
      }),
    ).rejects.toThrow('annulée');
    expect((await db.selectFrom('mailOutbox').select('attempts').where('id', '=', 'g2').executeTakeFirstOrThrow()).attempts).toBe(0);
  });

  it('refuses a query whose value would not be a parameter of its own: written in the SQL, or part of a longer value', async () => {
    const litterale = new Gabarit<{ id: string }, unknown>('littérale', (db, p) => db.selectFrom('mailOutbox').select('id').where('id', '=', sql.lit(p.id)));
    await expect(litterale.tous(db, { id: 'g1' })).rejects.toThrow(/not passed as a parameter of its own/u);
    const contient = new Gabarit<{ q: string }, unknown>('contient', (db, p) => db.selectFrom('mailOutbox').select('id').where('subject', 'like', `%${p.q}%`));
    await expect(contient.tous(db, { q: 'Sujet' })).rejects.toThrow(/not passed as a parameter of its own/u);
    const suffixe = new Gabarit<{ q: string }, unknown>('suffixe', (db, p) => db.selectFrom('mailOutbox').select('id').where('subject', 'like', `${p.q}%`));
    await expect(suffixe.tous(db, { q: 'Sujet' })).rejects.toThrow(/has no parameter of its own/u);
  });

  it.skipIf(!!process.env.DATABASE_URL)('builds its SQL again for a Db without the naming plugin, rather than giving it to the app’s', async () => {
    const fichier = path.join(dir, 'app.db');
    const brut = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(fichier) }) });
    const envoi = new Gabarit<{ id: string }, { sendAfter: string }>('envoi', (db, p) => db.selectFrom('mailOutbox').select('sendAfter').where('id', '=', p.id));
    try {
      // Without the plugin the table is named as the code names it, which this schema has not: its own query fails…
      await expect(envoi.premier(brut, { id: 'g3' })).rejects.toThrow(/no such table: mailOutbox/u);
      // …and the app's still reads, by its own SQL.
      expect(await envoi.premier(db, { id: 'g3' })).toEqual({ sendAfter: '2026-11-29T10:00:00.000Z' });
    } finally {
      await brut.destroy();
    }
  });
});
