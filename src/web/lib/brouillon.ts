/**
 * Drafts of the forms a resident types at length, kept on this device while they are typed (issue 13: a closed tab
 * loses nothing) and offered back on the next visit: the housing request's and the technical report's. They hold
 * personal data: each goes when its form is saved, when the resident clears it, at sign-out (with the keys,
 * clesDAcces.ts), and after BROUILLON_DUREE_JOURS; the forms say so. Photos and files are never kept.
 */
export const BROUILLON_DUREE_JOURS = 7;
const DUREE_MS = BROUILLON_DUREE_JOURS * 24 * 3600 * 1000;

export interface Brouillon<T> {
  valeurs: T;
  /** ISO time of the last save. */
  enregistreLe: string;
}

/** The draft kept under one storage key. */
function brouillonSous(cle: string) {
  return {
    lire<T>(): Brouillon<T> | null {
      try {
        const brut = localStorage.getItem(cle);
        if (!brut) return null;
        const brouillon = JSON.parse(brut) as Brouillon<T>;
        if (!brouillon.enregistreLe || Date.now() - new Date(brouillon.enregistreLe).getTime() > DUREE_MS) {
          localStorage.removeItem(cle);
          return null;
        }
        return brouillon;
      } catch {
        return null;
      }
    },
    ecrire<T>(valeurs: T): void {
      try {
        localStorage.setItem(cle, JSON.stringify({ valeurs, enregistreLe: new Date().toISOString() } satisfies Brouillon<T>));
      } catch {
        /* storage full or refused: the form still works, without a draft */
      }
    },
    effacer(): void {
      try {
        localStorage.removeItem(cle);
      } catch {
        /* nothing to remove */
      }
    },
  };
}

export const brouillonDemande = brouillonSous('quartier-vivant.brouillon-demande');
export const brouillonSignalement = brouillonSous('quartier-vivant.brouillon-signalement');

/** Every draft of this device goes (sign-out). */
export function effacerTousLesBrouillons(): void {
  brouillonDemande.effacer();
  brouillonSignalement.effacer();
}
