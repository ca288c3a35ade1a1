/** Normalisation rules shared by web and server (docs/produit.md « La demande »: what people typed is kept). */

/** Numéro unique: lowercased, every whitespace removed. */
export function normaliseNumeroUnique(raw: string): string {
  return raw.replace(/\s+/gu, '').toLowerCase();
}

export const NUMERO_UNIQUE_MIN = 6;
export const NUMERO_UNIQUE_MAX = 32;
const NUMERO_UNIQUE_PATTERN = new RegExp(`^[a-z0-9]{${NUMERO_UNIQUE_MIN},${NUMERO_UNIQUE_MAX}}$`, 'u');

/** Loose check on an already normalised numéro: 6 to 32 letters and digits (format varies by department). */
export function isValidNumeroUnique(normalised: string): boolean {
  return NUMERO_UNIQUE_PATTERN.test(normalised);
}

export const NUMERO_UNIQUE_MESSAGE = `Le numéro unique doit contenir de ${NUMERO_UNIQUE_MIN} à ${NUMERO_UNIQUE_MAX} lettres ou chiffres.`;

export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

/**
 * Accents and case removed, every apostrophe written ' (’ ‘ ʼ ` ´ too): the form used for case- and
 * accent-insensitive matching, so that « N’Diaye » and « n'diaye » meet.
 */
export function foldForSearch(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').replace(/[’‘ʼ`´]/gu, "'").toLowerCase();
}

/** Only the letters and digits of a folded text: « n'diaye » → « ndiaye », « 06 12 34 » → « 061234 ». */
export function compacter(folded: string): string {
  return folded.replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Slug of a place name (docs/produit.md « Comptes »): lowercased, spaces turned into hyphens. */
export function slugify(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/gu, '-');
}
