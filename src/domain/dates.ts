/** Dates as the town hall reads them: French format, Paris time (docs/produit.md « Liste des gestionnaires »: dd/mm/yyyy). */
import { aLaPremiereUtilisation } from './paresseux.js';

const jour = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('fr-FR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'Europe/Paris' }));
const horodatage = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'Europe/Paris' }));
// A birth date is a calendar day, not an instant: format it as written.
const jourCivil = aLaPremiereUtilisation(() => new Intl.DateTimeFormat('fr-FR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }));

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

/** The earliest birth date accepted: an older one is a typing mistake (« 0192 » for « 1992 »). */
export const NAISSANCE_MIN = '1900-01-01';

/** Today as a calendar date (AAAA-MM-JJ) in Paris: a birth date may be today at the latest. */
export function aujourdhui(): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris' }).format(new Date());
}

/** Why a birth date (AAAA-MM-JJ, already a valid date) is refused, or null: never in the future, 1900 or later. */
export function erreurDateDeNaissance(date: string): string | null {
  if (date > aujourdhui()) return 'La date de naissance ne peut pas être dans le futur.';
  if (date < NAISSANCE_MIN) return 'La date de naissance doit être en 1900 ou après.';
  return null;
}
