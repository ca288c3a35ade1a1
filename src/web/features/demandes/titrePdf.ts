/**
 * A PDF's title, set for its preview. Chrome's PDF viewer names what it shows by the document's own title (the
 * /Title of its information dictionary), else by the last segment of its address: for the local blob: address a
 * preview is shown from, a random id. No address can end with the file's name without the server (the file is
 * fetched with the request's key, in a header), so the preview's copy carries the name as its title.
 *
 * The title is added by an incremental update (ISO 32000-1, 7.5.6), as PDF editors save: the file's bytes stay
 * whole, followed by a new information dictionary and a cross-reference section that points back to the file's
 * last one. Whatever is not a PDF this can read with certainty (no cross-reference where the file says, an
 * encrypted file, whose strings would have to be encrypted too) is left as it is.
 */

/** Bytes read as text, one character a byte (offsets in the text are offsets in the file). */
function enTexte(octets: Uint8Array): string {
  let texte = '';
  for (let i = 0; i < octets.length; i += 8192) texte += String.fromCharCode(...octets.subarray(i, i + 8192));
  return texte;
}

/** ASCII text as bytes. */
function enOctets(texte: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(texte, (c) => c.charCodeAt(0));
}

async function lire(pdf: Blob, debut: number, fin: number): Promise<string> {
  return enTexte(new Uint8Array(await pdf.slice(debut, Math.min(fin, pdf.size)).arrayBuffer()));
}

/** A PDF text string in UTF-16BE with its byte order mark, as hexadecimal: any name, written in ASCII. */
function chaineHexa(texte: string): string {
  let hexa = 'FEFF';
  for (let i = 0; i < texte.length; i++) hexa += texte.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0');
  return `<${hexa}>`;
}

/**
 * The dictionary that starts at `debut` (at « << »), up to its closing « >> », or null if it does not close
 * there. Strings and comments are skipped: a « >> » inside them closes nothing.
 */
function dictionnaire(texte: string, debut: number): string | null {
  let profondeur = 0;
  let i = debut;
  while (i < texte.length) {
    const c = texte[i];
    if (c === '<' && texte[i + 1] === '<') {
      profondeur++;
      i += 2;
    } else if (c === '>' && texte[i + 1] === '>') {
      profondeur--;
      i += 2;
      if (profondeur === 0) return texte.slice(debut, i);
    } else if (c === '<') {
      const fin = texte.indexOf('>', i);
      if (fin < 0) return null;
      i = fin + 1;
    } else if (c === '(') {
      // A literal string: balanced parentheses, a backslash escapes the next character.
      let ouvertes = 0;
      for (; i < texte.length; i++) {
        if (texte[i] === '\\') i++;
        else if (texte[i] === '(') ouvertes++;
        else if (texte[i] === ')' && --ouvertes === 0) break;
      }
      i++;
    } else if (c === '%') {
      while (i < texte.length && texte[i] !== '\n' && texte[i] !== '\r') i++;
    } else {
      i++;
    }
  }
  return null;
}

/** How far a trailer may be from its cross-reference table's start: 20 bytes an entry, a million entries. */
const TABLE_MAX = 20 * 1024 * 1024;
const MORCEAU = 64 * 1024;

/** The trailer of the cross-reference section at `offset`: a table's trailer, or a cross-reference stream's dictionary. */
async function trailerA(pdf: Blob, offset: number): Promise<{ dictionnaire: string; flux: boolean } | null> {
  const debut = await lire(pdf, offset, offset + MORCEAU);
  const objet = /^\s*\d+\s+\d+\s+obj\s*<</u.exec(debut);
  if (objet) {
    const dict = dictionnaire(debut, objet[0].length - 2);
    return dict && /\/Type\s*\/XRef\b/u.test(dict) ? { dictionnaire: dict, flux: true } : null;
  }
  if (!/^\s*xref\s/u.test(debut)) return null;
  // A table: its trailer follows the entries, read a piece at a time (overlapping, for a keyword across two).
  for (let position = offset; position < Math.min(pdf.size, offset + TABLE_MAX); position += MORCEAU) {
    const morceau = await lire(pdf, position, position + MORCEAU + 16);
    const trailer = morceau.indexOf('trailer');
    if (trailer < 0) continue;
    const suite = await lire(pdf, position + trailer, position + trailer + MORCEAU);
    const ouvre = suite.indexOf('<<');
    const dict = ouvre < 0 ? null : dictionnaire(suite, ouvre);
    return dict ? { dictionnaire: dict, flux: false } : null;
  }
  return null;
}

/**
 * The bytes to append to `pdf` for its title to read `titre`, or null when the file is left as it is.
 */
export async function ajoutDuTitre(pdf: Blob, titre: string): Promise<Uint8Array<ArrayBuffer> | null> {
  if (pdf.size < 32 || !(await lire(pdf, 0, 5)).startsWith('%PDF-')) return null;
  // The last cross-reference section: « startxref », its offset, then « %%EOF », at the end of the file.
  const fin = await lire(pdf, Math.max(0, pdf.size - 2048), pdf.size);
  const startxref = /startxref\s+(\d+)\s*(?:%%EOF\s*)?$/u.exec(fin.slice(fin.lastIndexOf('startxref')));
  const precedente = startxref ? Number(startxref[1]) : NaN;
  if (!Number.isSafeInteger(precedente) || precedente <= 0 || precedente >= pdf.size) return null;
  const trailer = await trailerA(pdf, precedente);
  if (!trailer || /\/Encrypt\b/u.test(trailer.dictionnaire)) return null;
  const racine = /\/Root\s+(\d+)\s+(\d+)\s+R\b/u.exec(trailer.dictionnaire);
  const taille = /\/Size\s+(\d+)/u.exec(trailer.dictionnaire);
  if (!racine || !taille) return null;
  const n = Number(taille[1]);
  // No /ID: optional without encryption, and a binary one cannot be copied with certainty.
  const commun = `/Root ${racine[1]} ${racine[2]} R/Info ${n} 0 R/Prev ${precedente}`;

  // The new information dictionary, object n, on a line of its own.
  let texte = '\n';
  const offsetInfo = pdf.size + texte.length;
  texte += `${n} 0 obj\n<</Title ${chaineHexa(titre)}>>\nendobj\n`;
  const offsetXref = pdf.size + texte.length;
  if (!trailer.flux) {
    // A table as the file's own, one entry of exactly 20 bytes.
    texte += `xref\n${n} 1\n${String(offsetInfo).padStart(10, '0')} 00000 n \ntrailer\n<</Size ${n + 1}${commun}>>\nstartxref\n${offsetXref}\n%%EOF\n`;
    return enOctets(texte);
  }
  // A cross-reference stream as the file's own (object n + 1): the Info's entry and its own, 7 bytes each.
  const entrees = new Uint8Array(14);
  const vue = new DataView(entrees.buffer);
  for (const [i, offset] of [offsetInfo, offsetXref].entries()) {
    vue.setUint8(i * 7, 1);
    vue.setUint32(i * 7 + 1, offset);
  }
  const avant = enOctets(`${texte}${n + 1} 0 obj\n<</Type/XRef/Size ${n + 2}/Index[${n} 2]/W[1 4 2]${commun}/Length 14>>\nstream\n`);
  const apres = enOctets(`\nendstream\nendobj\nstartxref\n${offsetXref}\n%%EOF\n`);
  const ajout = new Uint8Array(avant.length + entrees.length + apres.length);
  ajout.set(avant);
  ajout.set(entrees, avant.length);
  ajout.set(apres, avant.length + entrees.length);
  return ajout;
}
