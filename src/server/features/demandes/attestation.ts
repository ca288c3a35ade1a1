import type { PDFFont } from 'pdf-lib';
import { formatJour } from '../../../domain/dates.js';
import type { DemandeRow } from '../../db/schema.js';
import { enArrierePlan } from '../../worker/index.js';

/** The office that registers the requests, as the attestation names it. */
export const GUICHET = ['Mairie annexe du Jas de Bouffan', 'Rue Charloun-Rieu', '13090 Aix-en-Provence'];

/** The attestation's file name. */
export function nomAttestation(numeroUnique: string): string {
  return `attestation-enregistrement-${numeroUnique}.pdf`;
}

/**
 * Text the standard fonts can write (WinAnsi: French accents, ’, « », €, œ): any other character becomes
 * its letter without accent (ł, ő → l, o) or, failing that, « ? ».
 */
function ecrivable(font: PDFFont, text: string): string {
  let out = '';
  for (const ch of text.normalize('NFC')) {
    if (peutEcrire(font, ch)) out += ch;
    else {
      const base = ch.normalize('NFD').replace(/\p{M}/gu, '');
      out += base !== ch && [...base].every((c) => peutEcrire(font, c)) ? base : '?';
    }
  }
  return out;
}

function peutEcrire(font: PDFFont, ch: string): boolean {
  try {
    font.encodeText(ch);
    return true;
  } catch {
    return false;
  }
}

/**
 * « Attestation d'enregistrement de demande de logement social » (issue 10 point 8), dated `emiseLe`:
 * the numéro unique, the applicant's name, the registration date, the validity's end, the office.
 */
export async function attestationPdf(row: Pick<DemandeRow, 'numeroUnique' | 'prenom' | 'nom' | 'dateDEnregistrement' | 'valideJusqua'>, emiseLe: Date): Promise<Buffer> {
  // pdf-lib loads when a PDF is first composed (on the background thread: attestationHorsBoucle).
  const { PDFDocument, rgb, StandardFonts } = await import('pdf-lib');
  const pdf = await PDFDocument.create();
  pdf.setTitle(`Attestation d’enregistrement — demande n° ${row.numeroUnique}`);
  pdf.setAuthor('Mairie annexe du Jas de Bouffan, Aix-en-Provence');
  pdf.setCreationDate(emiseLe);
  pdf.setModificationDate(emiseLe);
  const page = pdf.addPage([595.28, 841.89]);
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const marge = 64;
  const largeur = page.getWidth() - 2 * marge;
  let y = page.getHeight() - marge;

  const ligne = (text: string, options: { font?: PDFFont; size?: number; avant?: number } = {}) => {
    const font = options.font ?? regular;
    const size = options.size ?? 11;
    y -= options.avant ?? 0;
    // Long lines wrap at word boundaries.
    let courante = '';
    const lignes: string[] = [];
    for (const mot of ecrivable(font, text).split(' ')) {
      const essai = courante ? `${courante} ${mot}` : mot;
      if (font.widthOfTextAtSize(essai, size) > largeur && courante) {
        lignes.push(courante);
        courante = mot;
      } else courante = essai;
    }
    lignes.push(courante);
    for (const l of lignes) {
      y -= size * 1.45;
      page.drawText(l, { x: marge, y, size, font, color: rgb(0.07, 0.07, 0.07) });
    }
  };

  for (const l of GUICHET) ligne(l, { size: 10 });
  ligne('Ville d’Aix-en-Provence', { size: 10 });
  ligne('Attestation d’enregistrement de demande de logement social', { font: bold, size: 16, avant: 36 });
  ligne(
    'La mairie annexe du Jas de Bouffan atteste que la demande de logement social ci-dessous est enregistrée. Elle est valable un an à compter de son enregistrement ou de son dernier renouvellement, et doit être renouvelée chaque année pour rester active.',
    { avant: 18 },
  );
  const champs: [string, string][] = [
    ['Numéro unique', row.numeroUnique],
    ['Demandeur', `${row.prenom} ${row.nom}`.trim()],
    ['Date d’enregistrement', formatJour(row.dateDEnregistrement)],
    ['Valable jusqu’au', formatJour(row.valideJusqua)],
  ];
  y -= 12;
  for (const [label, valeur] of champs) {
    ligne(`${label} : ${valeur}`, { font: label === 'Numéro unique' ? bold : regular, size: 12, avant: 4 });
  }
  ligne('L’ancienneté de la demande court à partir de sa date d’enregistrement.', { avant: 18 });
  ligne(`Fait à Aix-en-Provence, le ${formatJour(emiseLe.toISOString())}.`, { avant: 24 });
  ligne('Mairie annexe du Jas de Bouffan — Quartier Vivant', { font: bold, avant: 6 });
  return Buffer.from(await pdf.save());
}

/** The same PDF, composed on the background thread (src/server/worker): the event loop stays free. */
export async function attestationHorsBoucle(row: Pick<DemandeRow, 'numeroUnique' | 'prenom' | 'nom' | 'dateDEnregistrement' | 'valideJusqua'>, emiseLe: Date): Promise<Buffer> {
  const { numeroUnique, prenom, nom, dateDEnregistrement, valideJusqua } = row;
  const bytes = await enArrierePlan('attestation', { numeroUnique, prenom, nom, dateDEnregistrement, valideJusqua }, emiseLe.toISOString());
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
