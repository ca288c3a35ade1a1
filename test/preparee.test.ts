// The hot path's prepared reads on SQLite (src/server/db/preparee.ts): the statement gives each row as an array and
// one object literal of its column names makes the object. Those objects must be the very ones better-sqlite3 made
// itself: same names in the same order, same values and types, whatever the names.
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
    const texte = `select id, entier as "numéroÉ", reel as "a b", texte as "x""y", rien as "constructor", octets, entier * 2 as "double",
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

  it('refuses a column named __proto__, which an object literal would take for the prototype', async () => {
    await expect(lecture('select entier as "__proto__" from t where id = ?').first(1)).rejects.toThrow(/__proto__/u);
    expect(({} as Record<string, unknown>).entier).toBeUndefined();
  });
});
