/** Request statuses (SPEC §4): six steps in order, then Refusé outside the progress bar. */

export const STATUTS = [
  'En attente des documents',
  'En cours de traitement',
  'Demande envoyée',
  'En attente',
  'Passage CAL',
  'Attribué',
  'Refusé',
] as const;
export type Statut = (typeof STATUTS)[number];

export const STATUT_INITIAL: Statut = 'En attente des documents';
export const STATUT_REFUSE: Statut = 'Refusé';

/** The six steps of the progress bar, in order. */
export const ETAPES: readonly Statut[] = STATUTS.filter((s) => s !== STATUT_REFUSE);

/** Colours of SPEC §4, in status order. Text on them is always dark (contrast ≥ 4.5:1). */
export const STATUT_COULEURS: Readonly<Record<Statut, string>> = {
  'En attente des documents': '#808080',
  'En cours de traitement': '#A9A9A9',
  'Demande envoyée': '#E9D66B',
  'En attente': '#FFBF00',
  'Passage CAL': '#00BFFF',
  Attribué: '#74C365',
  Refusé: '#FF7F7F',
};
export const STATUT_COULEUR_TEXTE = '#111111';

export function isStatut(value: unknown): value is Statut {
  return typeof value === 'string' && (STATUTS as readonly string[]).includes(value);
}

/** Index of the status in the progress bar (0..5), or -1 for Refusé. */
export function etapeIndex(statut: Statut): number {
  return ETAPES.indexOf(statut);
}

/** The status's place in STATUTS: the six steps in order, then Refusé. */
export function statutRang(statut: Statut): number {
  return STATUTS.indexOf(statut);
}
