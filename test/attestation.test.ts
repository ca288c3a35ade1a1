import { randomUUID } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJour } from '../src/domain/dates.js';
import { attestationPdf, oublierLesMisesEnPage } from '../src/server/features/demandes/attestation.js';
import { mailDemandeEnregistree } from '../src/server/features/demandes/mails.js';
import { USER_FILE_HEADERS } from '../src/server/http.js';
import { createTestApp, demande, mailsTo, type TestContext } from './helpers.js';

let ctx: TestContext;
let horloge = new Date('2026-03-04T09:30:00.000Z');

beforeAll(async () => {
  ctx = await createTestApp({}, { now: () => horloge });
});
afterAll(async () => {
  await ctx.close();
});

async function texte(pdf: Buffer): Promise<string> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(doc, { mergePages: true });
  return text;
}

/** What a structure element holds: its role and either its text (marked content) or its children. */
type Noeud = [role: string, contenu: string | Noeud[]];

/**
 * The PDF as a screen reader gets it (pdf.js, the reader of Firefox and of unpdf): its language, title and
 * markings, its structure tree with the text of each element's marked content, and the text drawn outside any
 * marked content (none in a tagged PDF whose page has no artifact).
 */
async function lecture(pdf: Buffer) {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const info = (await doc.getMetadata()).info as Record<string, unknown>;
  const page = await doc.getPage(1);
  const { items } = await page.getTextContent({ includeMarkedContent: true });
  const textes = new Map<string, string>();
  const ouverts: string[] = [];
  let horsBalisage = '';
  for (const item of items) {
    if ('str' in item) {
      const id = ouverts.at(-1);
      // pdf.js ends a line with hasEOL (and drops the space that ends it): a line break is a space.
      const str = item.str + (item.hasEOL ? '\n' : '');
      if (id === undefined) horsBalisage += str;
      else textes.set(id, (textes.get(id) ?? '') + str);
    } else if (item.type === 'beginMarkedContentProps' || item.type === 'beginMarkedContent') ouverts.push(item.id ?? '');
    else if (item.type === 'endMarkedContent') ouverts.pop();
  }
  type Element = { role?: string; type?: string; id?: string; children?: Element[] };
  const noeud = (e: Element): Noeud => {
    const enfants = e.children ?? [];
    // pdf.js moves the space between a row's header and its cell into the cell: spaces are compared collapsed.
    const contenu = () => enfants.map((c) => textes.get(c.id!) ?? '').join('').replace(/\s+/gu, ' ').trim();
    if (enfants.length > 0 && enfants.every((c) => c.type === 'content')) return [e.role!, contenu()];
    return [e.role!, enfants.map(noeud)];
  };
  const racine = (await page.getStructTree()) as unknown as Element | null;
  return {
    info,
    pages: doc.numPages,
    markInfo: await doc.getMarkInfo(),
    preferences: await doc.getViewerPreferences(),
    structure: (racine?.children ?? []).map(noeud),
    horsBalisage,
  };
}

/** The file's fonts (pdf-lib): each font dictionary, with its embedded font file and Unicode map, if any. */
async function polices(pdf: Buffer) {
  const doc = await PDFDocument.load(pdf);
  const out: { nom: string; sousType: string; integree: boolean; unicode: boolean }[] = [];
  for (const [, objet] of doc.context.enumerateIndirectObjects()) {
    if (!(objet instanceof PDFDict) || objet.get(PDFName.of('Type')) !== PDFName.of('Font')) continue;
    const sousType = objet.get(PDFName.of('Subtype'))!.toString();
    if (sousType === '/CIDFontType2' || sousType === '/CIDFontType0') continue;
    const descendante = objet.lookupMaybe(PDFName.of('DescendantFonts'), PDFArray)?.lookup(0, PDFDict) ?? objet;
    const descripteur = descendante.lookupMaybe(PDFName.of('FontDescriptor'), PDFDict);
    out.push({
      nom: objet.get(PDFName.of('BaseFont'))!.toString(),
      sousType,
      integree: ['FontFile', 'FontFile2', 'FontFile3'].some((k) => descripteur?.has(PDFName.of(k))),
      unicode: objet.has(PDFName.of('ToUnicode')),
    });
  }
  return out;
}

/** The /Scope of each table header cell (TH) of the structure tree. */
async function portees(pdf: Buffer): Promise<string[]> {
  const doc = await PDFDocument.load(pdf);
  const out: string[] = [];
  for (const [, objet] of doc.context.enumerateIndirectObjects()) {
    if (objet instanceof PDFDict && objet.get(PDFName.of('S')) === PDFName.of('TH')) {
      out.push(objet.lookupMaybe(PDFName.of('A'), PDFDict)?.get(PDFName.of('Scope'))?.toString() ?? 'aucune');
    }
  }
  return out;
}

const LIGNE = { numeroUnique: '013attest009', prenom: 'Françoise', nom: 'Lefèvre-Ćosić', dateDEnregistrement: '2026-03-04T09:30:00.000Z', valideJusqua: '2027-03-04T09:30:00.000Z' };

/** The PDF attached to an .eml (base64 part of type application/pdf), or null. */
function pieceJointe(eml: string): Buffer | null {
  const part = /Content-Type: application\/pdf[^\n]*\n(?:[^\n]+\n)*\n([A-Za-z0-9+/=\n]+)/u.exec(eml.replace(/\r\n/gu, '\n'));
  return part ? Buffer.from(part[1]!.replace(/\n/gu, ''), 'base64') : null;
}

describe("attestation d'enregistrement", () => {
  it('is a dated PDF with the numéro, the name, the dates and the office, for the key holder only', async () => {
    horloge = new Date('2026-03-04T09:30:00.000Z');
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013attest001', prenom: 'Françoise', nom: 'Lefèvre-Ćosić', email: 'francoise@example.org' }) });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json().data.accessKey as string;
    horloge = new Date('2026-04-15T12:00:00.000Z');
    const res = await ctx.app.inject({ url: '/app/api/logement/013attest001/attestation.pdf', headers: { 'x-access-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="attestation-enregistrement-013attest001.pdf"');
    for (const [name, value] of Object.entries(USER_FILE_HEADERS)) expect(res.headers[name.toLowerCase()]).toBe(value);
    const text = await texte(res.rawPayload);
    expect(text).toContain('Attestation d’enregistrement de demande de logement social');
    expect(text).toContain('Numéro unique : 013attest001');
    // Ć is in the embedded font (Latin Extended): written as typed.
    expect(text).toContain('Demandeur : Françoise Lefèvre-Ćosić');
    expect(text).toContain(`Date d’enregistrement : ${formatJour('2026-03-04T09:30:00.000Z')}`);
    expect(text).toContain(`Valable jusqu’au : ${formatJour('2027-03-04T09:30:00.000Z')}`);
    expect(text).toContain('Mairie annexe du Jas de Bouffan');
    expect(text).toContain('Fait à Aix-en-Provence, le 15/04/2026.');

    expect((await ctx.app.inject({ url: '/app/api/logement/013attest001/attestation.pdf' })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/app/api/logement/013attest001/attestation.pdf', headers: { 'x-access-key': 'x'.repeat(43) } })).statusCode).toBe(403);
  });

  it('is a tagged PDF in French: title shown, headings, paragraphs and a table, every text marked (RGAA 13.3)', async () => {
    horloge = new Date('2026-03-04T09:30:00.000Z');
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013attest003', prenom: 'Françoise', nom: 'Lefèvre-Ćosić' }) });
    expect(created.statusCode).toBe(201);
    horloge = new Date('2026-04-15T12:00:00.000Z');
    const res = await ctx.app.inject({ url: '/app/api/logement/013attest003/attestation.pdf', headers: { 'x-access-key': created.json().data.accessKey as string } });
    expect(res.statusCode).toBe(200);
    const pdf = res.rawPayload;

    const lu = await lecture(pdf);
    expect(lu.info.Language).toBe('fr-FR');
    expect(lu.info.Title).toBe('Attestation d’enregistrement — demande n° 013attest003');
    expect(lu.preferences).toMatchObject({ DisplayDocTitle: true });
    expect(lu.markInfo).toMatchObject({ Marked: true });
    expect(lu.pages).toBe(1);
    expect(lu.structure).toEqual([
      [
        'Document',
        [
          ['P', 'Mairie annexe du Jas de Bouffan'],
          ['P', 'Rue Charloun-Rieu'],
          ['P', '13090 Aix-en-Provence'],
          ['P', 'Ville d’Aix-en-Provence'],
          ['H1', 'Attestation d’enregistrement de demande de logement social'],
          // Three lines on the page, one paragraph in the structure.
          [
            'P',
            'La mairie annexe du Jas de Bouffan atteste que la demande de logement social ci-dessous est enregistrée. Elle est valable un an à compter de son enregistrement ou de son dernier renouvellement, et doit être renouvelée chaque année pour rester active.',
          ],
          [
            'Table',
            [
              ['TR', [['TH', 'Numéro unique :'], ['TD', '013attest003']]],
              ['TR', [['TH', 'Demandeur :'], ['TD', 'Françoise Lefèvre-Ćosić']]],
              ['TR', [['TH', 'Date d’enregistrement :'], ['TD', formatJour('2026-03-04T09:30:00.000Z')]]],
              ['TR', [['TH', 'Valable jusqu’au :'], ['TD', formatJour('2027-03-04T09:30:00.000Z')]]],
            ],
          ],
          ['P', 'L’ancienneté de la demande court à partir de sa date d’enregistrement.'],
          ['P', 'Fait à Aix-en-Provence, le 15/04/2026.'],
          ['P', 'Mairie annexe du Jas de Bouffan — Quartier Vivant'],
        ],
      ],
    ]);
    expect(lu.horsBalisage.trim()).toBe('');
    expect(await portees(pdf)).toEqual(['/Row', '/Row', '/Row', '/Row']);
    // Fonts embedded (no reader's substitute), each with its map back to Unicode (accents, ’, « », —).
    const fontes = await polices(pdf);
    expect(fontes.length).toBeGreaterThan(0);
    for (const f of fontes) expect(f, f.nom).toMatchObject({ integree: true, unicode: true });
    // The button says « PDF, environ 20 Ko » (CycleDeVie.tsx): the font subsets keep it there.
    expect(pdf.length).toBeLessThan(25 * 1024);
  });

  it('writes a character its font lacks as « ? », and wraps a long name under itself', async () => {
    const long = { ...LIGNE, prenom: 'Marie-Ange Éléonore Bénédicte', nom: 'de La Tour d’Auvergne-Lauraguais 李 Ǹgozi' };
    const pdf = await attestationPdf(long, new Date('2026-04-15T12:00:00.000Z'));
    const lu = await lecture(pdf);
    const table = (lu.structure[0]![1] as Noeud[]).find(([role]) => role === 'Table')!;
    // Ǹ is in the embedded font (Latin Extended-B), 李 is not.
    expect((table[1] as Noeud[])[1]).toEqual(['TR', [['TH', 'Demandeur :'], ['TD', 'Marie-Ange Éléonore Bénédicte de La Tour d’Auvergne-Lauraguais ? Ǹgozi']]]);
    // The name takes two lines, both starting where the value starts, right of « Demandeur : ».
    const doc = await getDocumentProxy(new Uint8Array(pdf));
    const { items } = await (await doc.getPage(1)).getTextContent();
    const lignes = items.filter((i) => 'str' in i && i.str.trim() !== '' && /Marie-Ange|Ǹgozi/u.test(i.str)) as { str: string; transform: number[] }[];
    expect(lignes.length).toBe(2);
    const demandeur = items.find((i) => 'str' in i && i.str.startsWith('Demandeur')) as { transform: number[] };
    expect(lignes[0]!.transform[4]).toBeGreaterThan(demandeur.transform[4]! + 50);
    expect(lignes[1]!.transform[4]).toBeCloseTo(lignes[0]!.transform[4]!, 3);
    expect(lignes[1]!.transform[5]).toBeCloseTo(lignes[0]!.transform[5]! - 12 * 1.45, 3);
  });

  it('draws every text at the same place whether its layout was made for it or kept from the documents before', async () => {
    const dessin = async (pdf: Buffer) => {
      const { items } = await (await (await getDocumentProxy(new Uint8Array(pdf))).getPage(1)).getTextContent();
      return items.map((i) => ('str' in i ? [i.str, i.transform, i.width] : i));
    };
    const emise = new Date('2026-04-16T12:00:00.000Z');
    oublierLesMisesEnPage();
    const seul = await dessin(await attestationPdf(LIGNE, emise));
    await attestationPdf({ ...LIGNE, prenom: 'Zoé', nom: 'Ébrard-Lacombe' }, emise);
    const apres = await dessin(await attestationPdf(LIGNE, emise));
    expect(apres).toEqual(seul);
    expect(seul.length).toBeGreaterThan(10);
  });

  it('is attached to the first e-mail, composed when the mail leaves', async () => {
    horloge = new Date('2026-05-06T07:00:00.000Z');
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013attest002', email: 'joelle@example.org', prenom: 'Joëlle', nom: 'Dupré' }) });
    expect(created.statusCode).toBe(201);
    const row = await ctx.app.deps.db.selectFrom('mailOutbox').select('piecesJointes').where('recipient', '=', 'joelle@example.org').executeTakeFirstOrThrow();
    expect(JSON.parse(row.piecesJointes!)).toMatchObject([{ type: 'attestation', demandeId: created.json().data.id }]);
    const [mail] = await mailsTo(ctx, 'joelle@example.org');
    expect(mail).toContain('Vous trouverez en pi=C3=A8ce jointe votre attestation');
    const pdf = pieceJointe(mail!);
    expect(pdf).not.toBeNull();
    expect(mail).toContain('filename=attestation-enregistrement-013attest002.pdf');
    const text = await texte(pdf!);
    expect(text).toContain('Numéro unique : 013attest002');
    expect(text).toContain('Demandeur : Joëlle Dupré');
    expect(text).toContain('Fait à Aix-en-Provence, le 06/05/2026.');
  });

  /** The first e-mail of request `demandeId` (its text and its attestation by reference), queued straight in the outbox: one that left late. */
  const premierMailEnFile = async (recipient: string, demandeId: string) => {
    const row = (await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('id', '=', demandeId).executeTakeFirst()) ?? { ...LIGNE, id: demandeId, statutDeLaDemande: 'Enregistrée' };
    const mail = mailDemandeEnregistree(row as Parameters<typeof mailDemandeEnregistree>[0], 'http://localhost/logement/x#cle=y');
    await ctx.app.deps.db
      .insertInto('mailOutbox')
      .values({
        id: randomUUID(),
        recipient,
        subject: mail.subject,
        body: mail.text,
        createdAt: new Date().toISOString(),
        sendAfter: new Date().toISOString(),
        attempts: 0,
        piecesJointes: JSON.stringify(mail.piecesJointes),
      })
      .execute();
  };

  it('leaves without its attachment when the request is gone by then', async () => {
    await premierMailEnFile('parti@example.org', randomUUID());
    const [mail] = await mailsTo(ctx, 'parti@example.org');
    expect(mail).toContain('Voici votre lien priv=C3=A9');
    expect(pieceJointe(mail!)).toBeNull();
    // Nor does its text announce one.
    expect(mail).not.toContain('jointe');
  });

  it('leaves without its attachment when the request was closed by then, as the site gives none for a closed request', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013attest009', email: 'close@example.org' }) });
    expect(created.statusCode, created.body).toBe(201);
    await mailsTo(ctx, 'close@example.org');
    // A first mail held back (an SMTP server down for days) while a manager refused the request.
    await ctx.app.deps.db.updateTable('housingRequests').set({ statutDeLaDemande: 'Refusé' }).where('numeroUnique', '=', '013attest009').execute();
    await premierMailEnFile('close.retard@example.org', created.json().data.id as string);
    const [mail] = await mailsTo(ctx, 'close.retard@example.org');
    expect(mail).toContain('Voici votre lien priv=C3=A9');
    expect(pieceJointe(mail!)).toBeNull();
    expect(mail).not.toContain('jointe');
  });
});
