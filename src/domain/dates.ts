/** Dates as the town hall reads them: French format, Paris time (docs/produit.md « Liste des gestionnaires »: dd/mm/yyyy). */
import { aLaPremiereUtilisation } from './paresseux.js';

const jour = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('fr-FR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'Europe/Paris' }));
const horodatage = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'Europe/Paris' }));
// A birth date is a calendar day, not an instant: format it as written.
const jourCivil = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('fr-FR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }));
// Sweden's format is ISO's (AAAA-MM-JJ).
const jourIso = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris' }));

/** An instant (ISO time) as dd/mm/yyyy in Paris. */
export function formatJour(iso: string): string {
  return jour().format(new Date(iso));
}

/** An instant as dd/mm/yyyy hh:mm in Paris. */
export function formatHorodatage(iso: string): string {
  return horodatage().format(new Date(iso));
}

/** A calendar date (AAAA-MM-JJ) as dd/mm/yyyy. */
export function formatJourCivil(date: string): string {
  return jourCivil().format(new Date(date));
}

const heureDeParis = aLaPremiereUtilisation(
  () =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: 'Europe/Paris',
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    }),
);

/** Paris's offset from UTC at an instant, in ms (one or two hours), read from the time zone database. */
function decalageDeParis(instant: number): number {
  const v: Record<string, number> = {};
  for (const p of heureDeParis().formatToParts(new Date(instant))) v[p.type] = Number(p.value);
  return Date.UTC(v.year!, v.month! - 1, v.day!, v.hour!, v.minute!, v.second!) - instant;
}

/**
 * The instant a Paris wall-clock time happens (`mois` from 1; a day out of the month's range rolls over, as with
 * Date.UTC). Twice: the offset at that time read as UTC may differ from the offset at that time in Paris on a day
 * the clocks change.
 */
export function instantAParis(annee: number, mois: number, jour: number, heure = 0): Date {
  const commeUtc = Date.UTC(annee, mois - 1, jour, heure);
  const approche = commeUtc - decalageDeParis(commeUtc);
  return new Date(commeUtc - decalageDeParis(approche));
}

/** The earliest birth date accepted: an older one is a typing mistake (« 0192 » for « 1992 »). */
export const NAISSANCE_MIN = '1900-01-01';

/** The calendar date (AAAA-MM-JJ) in Paris at an instant, today by default: a birth date may be today at the latest. */
export function aujourdhui(maintenant: Date = new Date()): string {
  return jourIso().format(maintenant);
}

/** Why a birth date (AAAA-MM-JJ, already a valid date) is refused, or null: never in the future, 1900 or later. */
export function erreurDateDeNaissance(date: string): string | null {
  if (date > aujourdhui()) return 'La date de naissance ne peut pas être dans le futur.';
  if (date < NAISSANCE_MIN) return 'La date de naissance doit être en 1900 ou après.';
  return null;
}
