/** Dates as the town hall reads them: French format, Paris time (docs/produit.md « Liste des gestionnaires »: dd/mm/yyyy). */

const jour = new Intl.DateTimeFormat('fr-FR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'Europe/Paris' });
const horodatage = new Intl.DateTimeFormat('fr-FR', { dateStyle: 'short', timeStyle: 'short', timeZone: 'Europe/Paris' });
// A birth date is a calendar day, not an instant: format it as written.
const jourCivil = new Intl.DateTimeFormat('fr-FR', { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });

/** An instant (ISO time) as dd/mm/yyyy in Paris. */
export function formatJour(iso: string): string {
  return jour.format(new Date(iso));
}

/** An instant as dd/mm/yyyy hh:mm in Paris. */
export function formatHorodatage(iso: string): string {
  return horodatage.format(new Date(iso));
}

/** A calendar date (AAAA-MM-JJ) as dd/mm/yyyy. */
export function formatJourCivil(date: string): string {
  return jourCivil.format(new Date(date));
}
