/** French grammar for the interface's texts: plurals by count, and « de » elided before a name. */
import { aLaPremiereUtilisation } from './paresseux.js';

const regles = aLaPremiereUtilisation(() => new Intl.PluralRules('fr-FR'));
const nombre = aLaPremiereUtilisation(() => new Intl.NumberFormat('fr-FR'));

/** The word agreeing with n: French takes the singular for 0 and 1 (and 1,5), the plural from 2. */
export function accord(n: number, singulier: string, pluriel: string): string {
  return regles().select(n) === 'one' ? singulier : pluriel;
}

/**
 * The count and its word: « 0 compte », « 1 compte », « 2 comptes », « 12 345 comptes » (fr-FR thousands, a
 * narrow no-break space). The words may carry their agreement: pluriel(n, 'demande choisie', 'demandes choisies').
 */
export function pluriel(n: number, singulier: string, pluriel: string): string {
  return `${nombre().format(n)} ${accord(n, singulier, pluriel)}`;
}

const VOYELLE = /^[aeiouœæ]/u;

/**
 * Whether a name starts with a vowel sound, so that « de » is elided before it: a vowel, an h before a vowel
 * (taken as mute: « Hugo », « Hélène »), a y before a consonant (« Yves », not « Yann »).
 */
function commenceParUneVoyelle(nom: string): boolean {
  const lettres = nom.trimStart().normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase('fr-FR');
  if (VOYELLE.test(lettres)) return true;
  if (lettres.startsWith('h')) return VOYELLE.test(lettres.slice(1)) || /^y/u.test(lettres.slice(1));
  if (lettres.startsWith('y')) return /^y[^\Waeiouyœæ]/u.test(lettres);
  return false;
}

/** « de Marc », « d’Élodie », « d’Hugo », « d’Yves », « de Yann » (for « Rôle de … », « la demande de … »). */
export function de(nom: string): string {
  return commenceParUneVoyelle(nom) ? `d’${nom.trimStart()}` : `de ${nom.trimStart()}`;
}
