/**
 * The clock of the signed-in session, for the warning managers and admins get before it ends
 * (features/compte/FinDeSession.tsx, docs/produit.md « Comptes »). The server ends such a session 30 minutes after
 * the activity it records, and 12 hours after the sign-in whatever happens; it records a request's time as
 * activity only when the request comes a minute or more after the time it holds (src/server/auth/sessions.ts).
 *
 * The clock is set by GET /user/session (`reglerHorloge`), then moved by every answer of the API
 * (`noterReponse`, called by fetchOk): without asking the server, it keeps the two times between which the
 * activity the server holds surely lies. The warning reckons from the earliest (it comes early rather than
 * late); the session is said ended from the latest (never while it may still run). Tabs of the same browser
 * share one session cookie: they share the clock through localStorage. All times are this device's (ms).
 *
 * Nothing here makes a request: a request would itself be activity, and an open tab would keep the session
 * alive forever. It is the person's calls that move the clock.
 */
import type { EcheancesSession } from '../../domain/compte.js';

export interface HorlogeSession {
  /** The activity the server holds is this time or later. */
  activiteAuPlusTot: number;
  /** … and this time or earlier (the last request it answered). */
  activiteAuPlusTard: number;
  /** The session ends then whatever happens. */
  finAbsolue: number;
  inactiviteMs: number;
  activiteEcriteToutesLesMs: number;
  /** The server answered that no session is open any more (401 UNAUTHENTICATED). */
  terminee: boolean;
}

const CLE = 'quartier-vivant.session';

let horloge: HorlogeSession | null = null;
const abonnes = new Set<() => void>();

function publier(suivante: HorlogeSession | null, partager = true): void {
  horloge = suivante;
  if (partager) {
    try {
      if (suivante) localStorage.setItem(CLE, JSON.stringify(suivante));
      else localStorage.removeItem(CLE);
    } catch {
      /* storage unavailable: each tab keeps its own clock */
    }
  }
  for (const abonne of abonnes) abonne();
}

function lirePartagee(valeur: string | null): HorlogeSession | null {
  if (!valeur) return null;
  try {
    const lue = JSON.parse(valeur) as Partial<HorlogeSession>;
    const nombres = [lue.activiteAuPlusTot, lue.activiteAuPlusTard, lue.finAbsolue, lue.inactiviteMs, lue.activiteEcriteToutesLesMs];
    return nombres.every((n) => typeof n === 'number' && Number.isFinite(n)) ? (lue as HorlogeSession) : null;
  } catch {
    return null;
  }
}

/** Another tab moved the clock (a request of its own, its « Rester connecté », a sign-out): this one follows. */
function depuisUnAutreOnglet(event: StorageEvent): void {
  if (event.key !== CLE && event.key !== null) return;
  publier(lirePartagee(event.key === null ? null : event.newValue), false);
}

/** For useSyncExternalStore. */
export function abonnerHorloge(abonne: () => void): () => void {
  if (abonnes.size === 0 && typeof window !== 'undefined') window.addEventListener('storage', depuisUnAutreOnglet);
  abonnes.add(abonne);
  return () => {
    abonnes.delete(abonne);
    if (abonnes.size === 0 && typeof window !== 'undefined') window.removeEventListener('storage', depuisUnAutreOnglet);
  };
}

export function lireHorloge(): HorlogeSession | null {
  return horloge;
}

/**
 * Sets the clock from the server's answer to GET /user/session, sent at `envoi` and received at `reception`:
 * the server's times become this device's by the difference between the two clocks (the server's `maintenant`
 * taken as the middle of the exchange).
 */
export function reglerHorloge(echeances: EcheancesSession, envoi: number, reception: number): void {
  const ecart = (envoi + reception) / 2 - Date.parse(echeances.maintenant);
  const activite = Date.parse(echeances.derniereActivite) + ecart;
  publier({
    activiteAuPlusTot: activite,
    activiteAuPlusTard: activite,
    finAbsolue: Date.parse(echeances.finAbsolue) + ecart,
    inactiviteMs: echeances.inactiviteMs,
    activiteEcriteToutesLesMs: echeances.activiteEcriteToutesLesMs,
    terminee: false,
  });
}

/** Signed out, or signed in anew (another session): the clock is dropped until GET /user/session sets it again. */
export function oublierHorloge(): void {
  if (horloge !== null) publier(null);
}

/** Calls that end the session or open another one. */
const NOUVELLE_SESSION = /^\/app\/api\/(?:auth\/sign-(?:in|out)|user\/inscription)(?:[/?]|$)/u;

/**
 * An answer of the API to a request sent at `envoi`, received at `reception` (`code`: an error's code). The
 * server read the session and recorded the request as activity if its last one was a minute or more before:
 * its activity is now at least `envoi` less a minute (at least `envoi` if the latest it could be is a
 * minute before), and at most `reception`. A 401 UNAUTHENTICATED says the session is over.
 */
export function noterReponse(url: string, envoi: number, reception: number, status: number, code?: string): void {
  if (NOUVELLE_SESSION.test(url)) {
    if (status < 400) oublierHorloge();
    return;
  }
  const h = horloge;
  if (!h || h.terminee) return;
  if (status === 401 && code === 'UNAUTHENTICATED') {
    publier({ ...h, terminee: true });
    return;
  }
  const ecrite = envoi - h.activiteAuPlusTard >= h.activiteEcriteToutesLesMs;
  const auPlusTot = Math.max(h.activiteAuPlusTot, ecrite ? envoi : envoi - h.activiteEcriteToutesLesMs);
  const auPlusTard = Math.max(h.activiteAuPlusTard, reception);
  if (auPlusTot === h.activiteAuPlusTot && auPlusTard === h.activiteAuPlusTard) return;
  publier({ ...h, activiteAuPlusTot: auPlusTot, activiteAuPlusTard: auPlusTard });
}
