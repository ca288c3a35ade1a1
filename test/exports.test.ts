import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, type TestContext } from './helpers.js';

// Exports with the columns a manager chooses, as CSV and as an Excel workbook (issue 12 point 8).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;

const get = (url: string, cookie = manager.cookie) => ctx.app.inject({ method: 'GET', url: `/app/api${url}`, headers: { cookie } });
const COLONNES = 'numeroUnique,salaireBrut,nombreDEnfants,situationFamiliale,quartierSouhaite,bailleurActuel';

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager');
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
