import { createRequire } from 'node:module';
import type { Font } from 'fontkit';
import { formatJour } from '../../../domain/dates.js';
import type { DemandeRow } from '../../db/schema.js';
import { enArrierePlan } from '../../worker/index.js';

/** The office that registers the requests, as the attestation names it. */
export const GUICHET = ['Mairie annexe du Jas de Bouffan', 'Rue Charloun-Rieu', '13090 Aix-en-Provence'];

/** The attestation's file name. */
export function nomAttestation(numeroUnique: string): string {
  return `attestation-enregistrement-${numeroUnique}.pdf`;
}

type LigneAttestation = Pick<DemandeRow, 'numeroUnique' | 'prenom' | 'nom' | 'dateDEnregistrement' | 'valideJusqua'>;

/**
 * The embedded fonts (docs/decisions/0016): Arimo, metric-compatible with Helvetica (the layout is the one
 * the standard fonts gave), OFL, with Latin (accents, ’, « », œ, €, Ł, Ć…), Greek and Cyrillic. Read once per
 * thread: pdfkit given a path would parse each font again for every document (50 ms instead of 10).
 */
interface Polices {
  regular: Font;
  bold: Font;
}
let polices: Polices | undefined;

async function chargerPolices(): Promise<Polices> {
  const { openSync } = await import('fontkit');
  const resoudre = createRequire(import.meta.url).resolve;
  const ouvrir = (chemin: string): Font => {
    const police = openSync(resoudre(chemin));
    if (!('hasGlyphForCodePoint' in police)) throw new Error(`${chemin} : une collection, pas une police`);
    return police;
  };
  return (polices ??= {
    regular: ouvrir('@expo-google-fonts/arimo/400Regular/Arimo_400Regular.ttf'),
    bold: ouvrir('@expo-google-fonts/arimo/700Bold/Arimo_700Bold.ttf'),
  });
}

/**
 * The layout of each word, in each font, shared by the documents this thread composes: pdfkit lays out every word
 * anew for each document (fontkit's shaping, ~4 ms of an attestation's ~12), though most words are the same in all.
 * pdfkit keeps a document's layouts in its font's `layoutCache`, keyed by the word, scaled to 1000 units per em and
 * never changed after; the same fontkit font gives the same layout in every document, so one cache per font serves
 * them all. Emptied past MOTS_RETENUS words (the names and dates vary): some hundreds of KB at most. The words of the
 * applicants' names are among them, in memory only, as long as the background thread lives: it stops after a quiet
 * minute (worker/index.ts), and its caches with it.
 */
const MOTS_RETENUS = 2_000;
let misesEnPage = new WeakMap<Font, Record<string, unknown>>();

/** Forgets the shared layouts (tests: a document composed as the thread's first). */
export function oublierLesMisesEnPage(): void {
  misesEnPage = new WeakMap();
}

function miseEnPagePartagee(police: Font): Record<string, unknown> {
  let cache = misesEnPage.get(police);
  if (!cache || Object.keys(cache).length > MOTS_RETENUS) {
    cache = Object.create(null) as Record<string, unknown>;
    misesEnPage.set(police, cache);
  }
  return cache;
}

/** Text `police` can write: a character it has no glyph for (Chinese, emoji…) becomes « ? ». */
function ecrivable(police: Font, text: string): string {
  return [...text.normalize('NFC')].map((ch) => (police.hasGlyphForCodePoint(ch.codePointAt(0)!) ? ch : '?')).join('');
}

/**
 * « Attestation d'enregistrement de demande de logement social » (issue 10 point 8), dated `emiseLe`:
 * the numéro unique, the applicant's name, the registration date, the validity's end, the office.
 *
 * A tagged PDF (RGAA 13.3, PDF/UA-1): language fr-FR, the title shown by the viewer, fonts embedded with
 * their Unicode map, and a structure tree — Document › P (the office) › H1 › P › Table (a row header and a
 * cell per line) › P — in which every text drawn is marked content. The page draws nothing else, so it has
 * no artifact.
 */
export async function attestationPdf(row: LigneAttestation, emiseLe: Date): Promise<Buffer> {
  // pdfkit loads when a PDF is first composed (on the background thread: attestationHorsBoucle).
  const { default: PDFDocument } = await import('pdfkit');
  const { regular, bold } = await chargerPolices();
  const doc = new PDFDocument({
    // No default font: pdfkit would otherwise load Helvetica's metrics for every document (~0.6 ms), for nothing.
    font: null as unknown as string,
    size: [595.28, 841.89],
    margin: 0,
    pdfVersion: '1.7',
    // @types/pdfkit lists the PDF/A subsets only; pdfkit writes pdfuaid:part 1 in the XMP metadata.
    subset: 'PDF/UA' as PDFKit.Mixins.PDFSubsets,
    tagged: true,
    lang: 'fr-FR',
    displayTitle: true,
    info: {
      // Also written in the XMP metadata, unescaped: the numéro unique is letters and digits only.
      Title: `Attestation d’enregistrement — demande n° ${row.numeroUnique}`,
      Author: 'Mairie annexe du Jas de Bouffan, Aix-en-Provence',
      Creator: 'Quartier Vivant',
      CreationDate: emiseLe,
      ModDate: emiseLe,
    },
  });
  const fin = new Promise<Buffer>((resolve, reject) => {
    const morceaux: Buffer[] = [];
    doc.on('data', (morceau: Buffer) => morceaux.push(morceau));
    doc.on('end', () => resolve(Buffer.concat(morceaux)));
    doc.on('error', reject);
  });

  const document = doc.struct('Document');
  doc.addStructure(document);
  const hauteur = 841.89;
  const marge = 64;
  const largeur = 595.28 - 2 * marge;
  // The baseline of the last line written, from the page's bottom (as the standard-font version counted).
  let y = hauteur - marge;

  // pdfkit takes a fontkit font as it is (PDFFontFactory.open); @types/pdfkit knows paths and bytes only.
  doc.registerFont('regular', regular as unknown as Buffer);
  doc.registerFont('bold', bold as unknown as Buffer);
  doc.fillColor('#121212');
  // The shared layouts of each font, taken once for this document.
  const misesEnPageDuDocument = { regular: miseEnPagePartagee(regular), bold: miseEnPagePartagee(bold) };
  const style = (options: { gras?: boolean; size?: number }) => {
    const nom = options.gras ? 'bold' : 'regular';
    doc.font(nom).fontSize(options.size ?? 11);
    // pdfkit's font of this document (an EmbeddedFont), whose layouts are looked up in its layoutCache.
    (doc as unknown as { _font: { layoutCache?: Record<string, unknown> } })._font.layoutCache = misesEnPageDuDocument[nom];
    return options.gras ? bold : regular;
  };

  /**
   * Lines of at most `max` points, cut at spaces; each line but the last keeps its space, so that the marked
   * content reads « … ci-dessous est enregistrée » and not « ci-dessousest ».
   */
  const couper = (text: string, max: number): string[] => {
    const lignes: string[] = [];
    let courante = '';
    for (const mot of text.split(' ')) {
      const essai = courante ? `${courante} ${mot}` : mot;
      if (doc.widthOfString(essai) > max && courante) {
        lignes.push(`${courante} `);
        courante = mot;
      } else courante = essai;
    }
    lignes.push(courante);
    return lignes;
  };
  /** Draws `lignes` from `x`, each on the next baseline (the first one `pas` below the current one). */
  const dessiner = (lignes: string[], x: number, pas: number) => {
    let base = y;
    for (const l of lignes) {
      base -= pas;
      doc.text(l, x, hauteur - base, { baseline: 'alphabetic', lineBreak: false });
    }
    return base;
  };

  /** One block of text, in its own structure element (P, H1). */
  const bloc = (type: 'P' | 'H1', text: string, options: { gras?: boolean; size?: number; avant?: number } = {}) => {
    y -= options.avant ?? 0;
    document.add(
      doc.struct(type, {}, () => {
        const police = style(options);
        y = dessiner(couper(ecrivable(police, text), largeur), marge, (options.size ?? 11) * 1.45);
      }),
    );
  };

  for (const l of GUICHET) bloc('P', l, { size: 10 });
  bloc('P', 'Ville d’Aix-en-Provence', { size: 10 });
  bloc('H1', 'Attestation d’enregistrement de demande de logement social', { gras: true, size: 16, avant: 36 });
  bloc(
    'P',
    'La mairie annexe du Jas de Bouffan atteste que la demande de logement social ci-dessous est enregistrée. Elle est valable un an à compter de son enregistrement ou de son dernier renouvellement, et doit être renouvelée chaque année pour rester active.',
    { avant: 18 },
  );

  // The request's facts: a table whose rows are headed by their label (« Numéro unique : » | 013…).
  const champs: [string, string][] = [
    ['Numéro unique', row.numeroUnique],
    ['Demandeur', `${row.prenom} ${row.nom}`.trim()],
    ['Date d’enregistrement', formatJour(row.dateDEnregistrement)],
    ['Valable jusqu’au', formatJour(row.valideJusqua)],
  ];
  const table = doc.struct('Table');
  document.add(table);
  y -= 12;
  for (const [label, valeur] of champs) {
    const gras = label === 'Numéro unique';
    const pas = 12 * 1.45;
    y -= 4;
    const ligne = doc.struct('TR');
    table.add(ligne);
    let decalage = 0;
    // @types/pdfkit lacks `scope`, which pdfkit writes as the TH's /A << /O /Table /Scope /Row >>.
    const entete = { scope: 'Row' } as PDFKit.Mixins.StructureElementOptions;
    ligne.add(
      doc.struct('TH', entete, () => {
        const police = style({ gras, size: 12 });
        const texte = `${ecrivable(police, label)} : `;
        decalage = doc.widthOfString(texte);
        dessiner([texte], marge, pas);
      }),
    );
    ligne.add(
      doc.struct('TD', {}, () => {
        const police = style({ gras, size: 12 });
        y = dessiner(couper(ecrivable(police, valeur), largeur - decalage), marge + decalage, pas);
      }),
    );
    ligne.end();
  }
  table.end();

  bloc('P', 'L’ancienneté de la demande court à partir de sa date d’enregistrement.', { avant: 18 });
  bloc('P', `Fait à Aix-en-Provence, le ${formatJour(emiseLe.toISOString())}.`, { avant: 24 });
  bloc('P', 'Mairie annexe du Jas de Bouffan — Quartier Vivant', { gras: true, avant: 6 });
  document.end();
  doc.end();
  return fin;
}

/** The same PDF, composed on the background thread (src/server/worker): the event loop stays free. */
export async function attestationHorsBoucle(row: LigneAttestation, emiseLe: Date): Promise<Buffer> {
  const { numeroUnique, prenom, nom, dateDEnregistrement, valideJusqua } = row;
  const bytes = await enArrierePlan('attestation', { numeroUnique, prenom, nom, dateDEnregistrement, valideJusqua }, emiseLe.toISOString());
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
