import { PDFDocument, StandardFonts } from 'pdf-lib';
import PDFKit from 'pdfkit';
import { getDocumentProxy } from 'unpdf';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ajoutDuTitre } from './titrePdf.js';

const NOM = 'Avis d’imposition 2024 — Hélène (copie) 😀.pdf';

/** A one-page PDF by pdf-lib: a cross-reference stream (its default), or a table. */
async function parPdfLib(flux: boolean): Promise<Uint8Array<ArrayBuffer>> {
  const doc = await PDFDocument.create();
  doc.setTitle('Titre d’origine');
  doc.addPage().drawText('Bonjour', { font: await doc.embedFont(StandardFonts.Helvetica), x: 50, y: 700 });
  return new Uint8Array(await doc.save({ useObjectStreams: flux }));
}

/** A one-page PDF by PDFKit (a cross-reference table), encrypted when a password is given. */
async function parPdfKit(userPassword?: string): Promise<Uint8Array<ArrayBuffer>> {
  const kit = new PDFKit(userPassword ? { userPassword, ownerPassword: 'proprietaire' } : {});
  const morceaux: Uint8Array[] = [];
  kit.on('data', (morceau: Uint8Array) => morceaux.push(morceau));
  const fini = new Promise<void>((resolve) => kit.on('end', () => resolve()));
  kit.text('Bonjour');
  kit.end();
  await fini;
  return new Uint8Array(Buffer.concat(morceaux));
}

/** The file as the preview shows it: its bytes, then what titles it. */
async function titre(octets: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer> | null> {
  const ajout = await ajoutDuTitre(new Blob([octets]), NOM);
  return ajout && new Uint8Array(await new Blob([octets, ajout]).arrayBuffer());
}

/** What a viewer reads (pdf.js, as Firefox's): the title, the pages, and whether it had to repair the file. */
async function lu(octets: Uint8Array) {
  const avertissements: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => avertissements.push(args.join(' ')));
  const doc = await getDocumentProxy(octets.slice());
  const { info } = await doc.getMetadata();
  return { titre: (info as { Title?: string }).Title, pages: doc.numPages, avertissements };
}

afterEach(() => vi.restoreAllMocks());

describe('a PDF titled with its file’s name, for its preview', () => {
  for (const [genre, fabrique] of [
    ['a cross-reference stream (pdf-lib)', () => parPdfLib(true)],
    ['a cross-reference table (pdf-lib)', () => parPdfLib(false)],
    ['a cross-reference table (PDFKit)', () => parPdfKit()],
  ] as const) {
    it(`reads the new title, the file otherwise unchanged: ${genre}`, async () => {
      const original = await fabrique();
      const titre1 = await titre(original);
      expect(titre1).not.toBeNull();
      // The original bytes come first, whole: an update appended, as PDF editors save.
      expect(titre1!.subarray(0, original.length)).toEqual(original);
      expect(await lu(titre1!)).toEqual({ titre: NOM, pages: 1, avertissements: [] });
      // pdf-lib, which reads the file its own way, agrees.
      expect((await PDFDocument.load(titre1!, { updateMetadata: false })).getTitle()).toBe(NOM);
      // Titled twice (a preview of a preview): the last title is read.
      const ajout = await ajoutDuTitre(new Blob([titre1!]), 'autre.pdf');
      expect((await lu(new Uint8Array(await new Blob([titre1!, ajout!]).arrayBuffer()))).titre).toBe('autre.pdf');
    });
  }

  it('leaves an encrypted PDF as it is (its strings would have to be encrypted too)', async () => {
    expect(await titre(await parPdfKit('secret'))).toBeNull();
  });

  it('leaves what is not a PDF, or not one it can read with certainty, as it is', async () => {
    const texte = (s: string) => new TextEncoder().encode(s);
    expect(await titre(texte('%PDF-1.4'))).toBeNull();
    expect(await titre(texte('Ceci n’est pas un PDF, même s’il est assez long.'))).toBeNull();
    // The last « startxref » points nowhere near a cross-reference section.
    const pdf = await parPdfKit();
    const faux = Buffer.from(pdf).toString('latin1').replace(/startxref\s+\d+/u, 'startxref\n12');
    expect(await titre(new Uint8Array(Buffer.from(faux, 'latin1')))).toBeNull();
    // Bytes after its end-of-file marker: not where the cross-reference's offset should be read.
    expect(await titre(new Uint8Array([...pdf, ...texte('\nquelque chose')]))).toBeNull();
  });
});
