// SQLite rows made by one object literal of their column names (src/server/db/lignes.ts), in the hot path's prepared
// reads (db/preparee.ts) and under Kysely (db/index.ts): they must be the very rows better-sqlite3 and Kysely's naming
// plugin made before, same names in the same order, same values and types, whatever the names.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { natif, openDatabase, type Db } from '../src/server/db/index.js';
import { RequetePreparee } from '../src/server/db/preparee.js';

const sqlite = !process.env.DATABASE_URL;

describe.skipIf(!sqlite)('prepared reads on SQLite', () => {
  let dir: string;
  let db: Db;
  /** What better-sqlite3 gives for the same SQL, in its own object mode. */
  const attendu = (texte: string, ...valeurs: unknown[]) => {
    const n = natif(db)!;
    if (n.kind !== 'sqlite') throw new Error('SQLite only');
    return n.sqlite.prepare(texte).all(...valeurs) as Record<string, unknown>[];
  };
  const lecture = <R>(texte: string) => new RequetePreparee<R>(db, 'qv_test', texte, texte);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-preparee-'));
    db = openDatabase({ databaseUrl: undefined, dataDir: dir }).db;
    await sql`create table t (id integer primary key, entier integer, reel real, texte text, rien text, octets blob)`.execute(db);
    await sql`insert into t values (1, 42, 2.5, ${"Hélène d'Aix\n« guillemets » \"x\""}, null, x'00ff'), (2, -7, 0.1, '', null, null)`.execute(db);
  });

  afterAll(async () => {
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('gives the rows better-sqlite3 gives: names in order, values and types, odd names and JSON included', async () => {
    const texte = `select id, entier as "numéroÉ", reel as "a b", texte as "x""y", rien as "constructor", octets, entier + entier as "double",
      json_object('k', texte) as "json" from t where id >= ? order by id`;
    const lue = lecture<Record<string, unknown>>(texte);
    const [premiere, seconde] = attendu(texte, 1);
    const une = await lue.first(1);
    expect(une).toEqual(premiere);
    expect(Object.keys(une!)).toEqual(['id', 'numéroÉ', 'a b', 'x"y', 'constructor', 'octets', 'double', 'json']);
    expect(Buffer.isBuffer(une!.octets)).toBe(true);
    expect(Object.getPrototypeOf(une)).toBe(Object.prototype);
    expect(await lue.all(1)).toEqual([premiere, seconde]);
    expect(await lue.first(3)).toBeUndefined();
    expect(await lue.all(3)).toEqual([]);
  });

  it('keeps the last of two columns of one name, as better-sqlite3 does', async () => {
    const texte = 'select entier as v, texte as v from t where id = ?';
    expect(await lecture(texte).first(1)).toEqual(attendu(texte, 1)[0]);
    expect(await lecture(texte).first(1)).toEqual({ v: "Hélène d'Aix\n« guillemets » \"x\"" });
  });

  it('gives Kysely the rows it gave before: camelCased by the plugin, as they come without it, the same in a stream', async () => {
    const texte = 'select id, entier as "numero_e", reel as "a_b_c", texte, rien, octets from t order by id';
    const camel = attendu(texte).map((r) => ({ id: r.id, numeroE: r.numero_e, aBC: r.a_b_c, texte: r.texte, rien: r.rien, octets: r.octets }));
    const lues = (await sql.raw<Record<string, unknown>>(texte).execute(db)).rows;
    expect(lues).toEqual(camel);
    expect(lues.map((r) => Object.keys(r))).toEqual(camel.map((r) => Object.keys(r)));
    // Without the plugin (Kysely's schema introspection, which better-auth reads: dflt_value, notnull), the names stay.
    expect((await sql.raw(texte).execute(db.withoutPlugins())).rows).toEqual(attendu(texte));
    const colonnes = await db.withoutPlugins().introspection.getTables();
    expect(colonnes.find((table) => table.name === 't')!.columns.map((c) => [c.name, c.isNullable, c.hasDefaultValue])).toEqual([
      ['id', true, false],
      ['entier', true, false],
      ['reel', true, false],
      ['texte', true, false],
      ['rien', true, false],
      ['octets', true, false],
    ]);
    // A stream gets rows of the same shape; one left after its first row leaves the query free to run again.
    const requete = () => db.selectFrom('t' as never).select(['id', 'entier as numero_e'] as never).orderBy('id' as never);
    const flux: unknown[] = [];
    for await (const ligne of requete().stream()) flux.push(ligne);
    expect(flux).toEqual([{ id: 1, numeroE: 42 }, { id: 2, numeroE: -7 }]);
    for await (const ligne of requete().stream()) {
      expect(ligne).toEqual({ id: 1, numeroE: 42 });
      break;
    }
    expect(await requete().execute()).toEqual(flux);
    expect(Object.keys((await db.selectFrom('t' as never).selectAll().executeTakeFirstOrThrow()) as object)).toEqual(['id', 'entier', 'reel', 'texte', 'rien', 'octets']);
  });

  it('follows a schema change under a kept statement: `select *` and `returning *` name the columns of the moment', async () => {
    await sql`create table m (a_a integer, b_b text)`.execute(db);
    await sql`insert into m values (1, 'x')`.execute(db);
    const tout = () => db.selectFrom('m' as never).selectAll().execute();
    const nomme = () => db.selectFrom('m' as never).select(['a_a as aA'] as never).execute();
    const ajout = () => db.insertInto('m' as never).values({ aA: 2 } as never).returningAll().execute();
    expect(await tout()).toEqual([{ aA: 1, bB: 'x' }]);
    expect(await nomme()).toEqual([{ aA: 1 }]);
    expect(await ajout()).toEqual([{ aA: 2, bB: null }]);
    await sql`alter table m add column c_c text default 'c'`.execute(db);
    expect(await tout()).toEqual([{ aA: 1, bB: 'x', cC: 'c' }, { aA: 2, bB: null, cC: 'c' }]);
    expect(await nomme()).toEqual([{ aA: 1 }, { aA: 2 }]);
    await sql`alter table m drop column b_b`.execute(db);
    expect(await tout()).toEqual([{ aA: 1, cC: 'c' }, { aA: 2, cC: 'c' }]);
    expect(await ajout()).toEqual([{ aA: 2, cC: 'c' }]);
    const flux: unknown[] = [];
    for await (const ligne of db.selectFrom('m' as never).selectAll().stream()) flux.push(ligne);
    expect(flux).toEqual(await tout());
  });

  it('refuses a column named __proto__, which an object literal would take for the prototype', async () => {
    await expect(lecture('select entier as "__proto__" from t where id = ?').first(1)).rejects.toThrow(/__proto__/u);
    expect(({} as Record<string, unknown>).entier).toBeUndefined();
  });
});
