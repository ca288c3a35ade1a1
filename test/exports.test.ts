import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createAccount, createTestApp, demande, type TestContext } from './helpers.js';

// Exports with the columns a manager chooses, as CSV and as an Excel workbook (issue 12 point 8).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;

const get = (url: string, cookie = manager.cookie) => ctx.app.inject({ method: 'GET', url: `/app/api${url}`, headers: { cookie } });
const COLONNES = 'numeroUnique,salaireBrut,nombreDEnfants,situationFamiliale,quartierSouhaite,bailleurActuel';

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  habitant = await createAccount(ctx);
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/app/api/logement',
    payload: demande({ numeroUnique: '016exp000001', salaireBrut: 1450.5, nombreDEnfants: 2, situationFamiliale: 'marie', bailleurActuel: 'logirem', commentaires: '=HYPERLINK("x")' }),
  });
  expect(res.statusCode, res.body).toBe(201);
});
afterAll(async () => ctx.close());

describe('exports', () => {
  it('give the chosen columns in the CSV, in their order, incomes and situation included', async () => {
    const res = await get(`/logement/export.csv?q=016exp&colonnes=${COLONNES}`);
    expect(res.statusCode).toBe(200);
    const [entete, ligne] = res.body.replace(/^\uFEFF/u, '').split('\r\n');
    expect(entete).toBe("Numéro unique;Salaire brut mensuel;Nombre d’enfants;Situation familiale;Quartiers souhaités;Bailleur actuel");
    expect(ligne).toMatch(/^016exp000001;"1\u202f450,50\s€";2;Marié\(e\);;Logirem$/u);
    // Without a choice: the default columns.
    expect((await get('/logement/export.csv?q=016exp')).body).toContain('Numéro unique;Date d’enregistrement;Statut;Prénom');
  });

  it('give an Excel workbook of the same rows: amounts as numbers, text never a formula', async () => {
    const res = await get(`/logement/export.xlsx?q=016exp&colonnes=${COLONNES},commentaires`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="demandes-logement-\d{4}-\d{2}-\d{2}\.xlsx"/u);
    expect(res.headers['cache-control']).toBe('no-store');
    const classeur = new ExcelJS.Workbook();
    await classeur.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const feuille = classeur.getWorksheet('Demandes')!;
    expect(feuille.getRow(1).values).toEqual([undefined, 'Numéro unique', 'Salaire brut mensuel', "Nombre d’enfants", 'Situation familiale', 'Quartiers souhaités', 'Bailleur actuel', 'Commentaires']);
    const ligne = feuille.getRow(2);
    expect(ligne.getCell(1).value).toBe('016exp000001');
    expect(ligne.getCell(2).value).toBe(1450.5);
    expect(ligne.getCell(3).value).toBe(2);
    expect(ligne.getCell(6).value).toBe('Logirem');
    expect(ligne.getCell(7).value).toBe('=HYPERLINK("x")');
    expect(ligne.getCell(7).formula).toBeUndefined();
    expect(feuille.rowCount).toBe(2);
  });

  it('refuse an unknown column (400, French), and anyone but managers', async () => {
    const res = await get('/logement/export.xlsx?colonnes=nom,motDePasse');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe('Colonne inconnue : « motDePasse ».');
    expect((await get('/logement/export.xlsx', habitant.cookie)).statusCode).toBe(403);
  });
});

describe('the exports’ journal (« Derniers exports »)', () => {
  const journal = (cookie?: string) => ctx.app.inject({ method: 'GET', url: '/app/api/exports/journal', headers: cookie ? { cookie } : {} });
  type Ligne = { par: string; le: string; format: string | null; colonnes: number | null };

  it('is refused to anyone but managers: signed out 401, a resident 403 (French)', async () => {
    expect((await journal()).statusCode).toBe(401);
    const refuse = await journal(habitant.cookie);
    expect(refuse.statusCode).toBe(403);
    expect(refuse.json().error.message).toBe('Accès réservé aux gestionnaires de la mairie annexe.');
    expect(refuse.body).not.toContain('Camille');
  });

  it('lists each export with who, when, its format and number of columns, newest first, never its search', async () => {
    const autre = await createAccount(ctx, 'manager', { prenom: 'Samir', nom: 'Haddad' });
    expect((await get('/logement/export.xlsx?q=Martin&colonnes=numeroUnique,nom', autre.cookie)).statusCode).toBe(200);
    expect((await get('/logement/export.csv?q=Martin')).statusCode).toBe(200);
    // A refused export (unknown column) and a resident's try are not exports.
    expect((await get('/logement/export.csv?colonnes=motDePasse')).statusCode).toBe(400);
    expect((await get('/logement/export.csv', habitant.cookie)).statusCode).toBe(403);

    const res = await journal(manager.cookie);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toMatch(/(^|[ ,])no-store([ ,]|$)/u);
    const data = res.json().data as Ligne[];
    expect(data.slice(0, 2)).toEqual([
      { par: 'Camille Durand', le: expect.any(String), format: 'csv', colonnes: 15 },
      { par: 'Samir Haddad', le: expect.any(String), format: 'xlsx', colonnes: 2 },
    ]);
    // Then the three exports of the tests above (CSV of 6 columns, CSV by default, workbook of 7), and nothing else.
    expect(data.map((e) => [e.format, e.colonnes])).toEqual([
      ['csv', 15],
      ['xlsx', 2],
      ['xlsx', 7],
      ['csv', 15],
      ['csv', 6],
    ]);
    expect(data.map((e) => e.le)).toEqual([...data.map((e) => e.le)].sort().reverse());
    const rows = await ctx.app.deps.db.selectFrom('journalGestion').selectAll().where('action', '=', 'export').execute();
    expect(rows.every((r) => r.housingRequestId === null)).toBe(true);
    expect(JSON.stringify(rows)).not.toMatch(/martin|016exp/iu);
  });

  it('gives the latest 20; an export recorded before its format was, or by a deleted account, still shows', async () => {
    const db = ctx.app.deps.db;
    await db.insertInto('journalGestion').values({ id: randomUUID(), housingRequestId: null, acteurUserId: null, action: 'export', detail: null, le: '2099-01-01T00:00:00.000Z' }).execute();
    expect((await journal(manager.cookie)).json().data[0]).toEqual({ par: 'Compte supprimé', le: '2099-01-01T00:00:00.000Z', format: null, colonnes: null });
    // Other lines of the audit are not exports.
    await db.insertInto('journalGestion').values({ id: randomUUID(), housingRequestId: null, acteurUserId: manager.uid, action: 'note', detail: null, le: '2099-06-01T00:00:00.000Z' }).execute();
    for (let i = 1; i <= 24; i++) {
      const le = `2099-02-01T00:00:${String(i).padStart(2, '0')}.000Z`;
      await db.insertInto('journalGestion').values({ id: randomUUID(), housingRequestId: null, acteurUserId: manager.uid, action: 'export', detail: `xlsx, ${i} colonnes`, le }).execute();
    }
    const data = (await journal(manager.cookie)).json().data as Ligne[];
    expect(data).toHaveLength(20);
    expect(data.map((e) => e.colonnes)).toEqual(Array.from({ length: 20 }, (_, i) => 24 - i));
    expect(data[0]).toEqual({ par: 'Camille Durand', le: '2099-02-01T00:00:24.000Z', format: 'xlsx', colonnes: 24 });
  });
});

describe('the desk’s own columns (« Instruction »): validity, corrections, labels, follower', () => {
  const INSTRUCTION = 'numeroUnique,valideJusqua,correction,etiquettes,suiviePar,nom';
  const url = (format: 'csv' | 'xlsx') => `/logement/export.${format}?q=016ins&sort=numeroUnique&order=asc&colonnes=${INSTRUCTION}`;

  beforeAll(async () => {
    const db = ctx.app.deps.db;
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const numeroUnique = `016ins00000${n}`;
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique, nom: `Nom${n}` }) });
      expect(res.statusCode, res.body).toBe(201);
      ids.push((await db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow()).id);
    }
    // 1: two labels (one that Excel would read as a formula), followed by Camille Durand, corrections asked.
    // 2: corrections done, no label, no follower. 3: none of them.
    await db.updateTable('housingRequests').set({ valideJusqua: '2027-03-15T10:00:00.000Z', suiviePar: manager.uid, correction: 'demandee' }).where('id', '=', ids[0]!).execute();
    await db.updateTable('housingRequests').set({ valideJusqua: '2027-12-31T23:30:00.000Z', correction: 'faite' }).where('id', '=', ids[1]!).execute();
    await db.updateTable('housingRequests').set({ valideJusqua: '2028-01-02T08:00:00.000Z' }).where('id', '=', ids[2]!).execute();
    const le = '2025-05-12T08:00:00.000Z';
    const urgent = randomUUID();
    const formule = randomUUID();
    await db
      .insertInto('etiquettes')
      .values([
        { id: urgent, nom: 'Urgent', nomCle: 'urgent', couleur: 'red', creeLe: le },
        { id: formule, nom: '=SOMME(A1)', nomCle: '=somme(a1)', couleur: 'blue', creeLe: le },
      ])
      .execute();
    await db
      .insertInto('demandeEtiquettes')
      .values([
        { housingRequestId: ids[0]!, etiquetteId: urgent, posePar: manager.uid, poseLe: le },
        { housingRequestId: ids[0]!, etiquetteId: formule, posePar: null, poseLe: le },
      ])
      .execute();
  });

  it('give them in the CSV as people read them, the CSV-injection guard applied to a label', async () => {
    const res = await get(url('csv'));
    expect(res.statusCode, res.body).toBe(200);
    const lignes = res.body.replace(/^\uFEFF/u, '').split('\r\n');
    expect(lignes[0]).toBe('Numéro unique;Valide jusqu’au;Corrections;Étiquettes;Suivie par;Nom');
    expect(lignes.slice(1, 4)).toEqual([
      // The labels' names hold « ; »: quoted. The first one starts with « = »: a leading ' keeps it text.
      `016ins000001;15/03/2027;Corrections demandées;"'=SOMME(A1) ; Urgent";Camille Durand;Nom1`,
      // 23:30 UTC on 31 December is already 1 January in Paris.
      '016ins000002;01/01/2028;Corrections faites;;;Nom2',
      '016ins000003;02/01/2028;;;;Nom3',
    ]);
    expect(lignes.slice(4)).toEqual(['']);
  });

  it('give them in the workbook as text, never a formula', async () => {
    const res = await get(url('xlsx'));
    expect(res.statusCode).toBe(200);
    const classeur = new ExcelJS.Workbook();
    await classeur.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const feuille = classeur.getWorksheet('Demandes')!;
    expect(feuille.getRow(1).values).toEqual([undefined, 'Numéro unique', 'Valide jusqu’au', 'Corrections', 'Étiquettes', 'Suivie par', 'Nom']);
    const valeurs = [2, 3, 4].map((n) => [1, 2, 3, 4, 5, 6].map((c) => feuille.getRow(n).getCell(c).value));
    expect(valeurs).toEqual([
      ['016ins000001', '15/03/2027', 'Corrections demandées', '=SOMME(A1) ; Urgent', 'Camille Durand', 'Nom1'],
      ['016ins000002', '01/01/2028', 'Corrections faites', null, null, 'Nom2'],
      ['016ins000003', '02/01/2028', null, null, null, 'Nom3'],
    ]);
    expect(feuille.getRow(2).getCell(4).formula).toBeUndefined();
    expect(feuille.rowCount).toBe(4);
  });

  it('may be chosen alone', async () => {
    const res = await get('/logement/export.csv?q=016ins&sort=numeroUnique&order=desc&colonnes=suiviePar,etiquettes');
    expect(res.statusCode).toBe(200);
    expect(res.body.replace(/^\uFEFF/u, '').split('\r\n')).toEqual(['Suivie par;Étiquettes', ';', ';', `Camille Durand;"'=SOMME(A1) ; Urgent"`, '']);
  });
});

describe('file names', () => {
  it('carry the day in Paris: at 00:30 on 1 January, the 1st of January, not the 31st of December (UTC)', async () => {
    const nouvelAn = await createTestApp({}, { now: () => new Date('2025-12-31T23:30:00.000Z') });
    try {
      const gestionnaire = await createAccount(nouvelAn, 'manager');
      const liste = await nouvelAn.app.inject({ method: 'GET', url: '/app/api/logement/export.csv', headers: { cookie: gestionnaire.cookie } });
      expect(liste.headers['content-disposition']).toBe('attachment; filename="demandes-logement-2026-01-01.csv"');
      const habitant = await createAccount(nouvelAn);
      const donnees = await nouvelAn.app.inject({ method: 'GET', url: '/app/api/compte/export.zip', headers: { cookie: habitant.cookie } });
      expect(String(donnees.headers['content-disposition'])).toContain('quartier-vivant-mes-donnees-2026-01-01.zip');
    } finally {
      await nouvelAn.close();
    }
  });
});
