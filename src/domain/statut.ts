/** Request statuses (docs/produit.md « Statuts »): six steps in order, then Radiée and Refusé outside the progress bar. */

/**
 * Each status with its stored sort rank and its colour. The rank is written in the database
 * (`statut_rang`, for the list's sort by status): it is explicit so that inserting a status later
 * takes a free number between two others instead of shifting every stored rank.
 */
export const STATUTS_DEFINIS = [
  { value: 'En attente des documents', rang: 10, couleur: '#808080' },
  { value: 'En cours de traitement', rang: 20, couleur: '#A9A9A9' },
  { value: 'Demande envoyée', rang: 30, couleur: '#E9D66B' },
  { value: 'En attente', rang: 40, couleur: '#FFBF00' },
  { value: 'Passage CAL', rang: 50, couleur: '#00BFFF' },
  { value: 'Attribué', rang: 60, couleur: '#74C365' },
  { value: 'Radiée', rang: 80, couleur: '#C9A0DC' },
  { value: 'Refusé', rang: 90, couleur: '#FF7F7F' },
] as const;

export type Statut = (typeof STATUTS_DEFINIS)[number]['value'];
export const STATUTS = STATUTS_DEFINIS.map((s) => s.value) as [Statut, ...Statut[]];

export const STATUT_INITIAL: Statut = 'En attente des documents';
export const STATUT_REFUSE: Statut = 'Refusé';
/** Struck off for want of renewal (docs/produit.md « Cycle de vie »), or by a manager. */
export const STATUT_RADIEE: Statut = 'Radiée';
/** Statuses outside the progress bar: it shows them apart, with their reason. */
export const HORS_ETAPES: readonly Statut[] = [STATUT_RADIEE, STATUT_REFUSE];

/** The six steps of the progress bar, in order. */
export const ETAPES: readonly Statut[] = STATUTS.filter((s) => !HORS_ETAPES.includes(s));

/** Colours of the statuses. Text on them is always dark (contrast ≥ 4.5:1). */
export const STATUT_COULEURS = Object.fromEntries(STATUTS_DEFINIS.map((s) => [s.value, s.couleur])) as Readonly<Record<Statut, string>>;
export const STATUT_COULEUR_TEXTE = '#111111';

/**
 * What each status means, in one sentence for the person who made the request (docs/glossaire.md « Les statuts
 * d’une demande » says the same words).
 */
export const STATUT_EXPLICATIONS: Readonly<Record<Statut, string>> = {
  'En attente des documents':
    'Votre demande est enregistrée : envoyez vos documents (livret de famille, pièce d’identité, avis d’imposition, bulletins de salaire) depuis votre lien privé, pour que la mairie annexe puisse l’étudier.',
  'En cours de traitement': 'La mairie annexe étudie votre demande et vos documents ; s’il manque quelque chose, elle vous demande des corrections par e-mail.',
  'Demande envoyée': 'La mairie annexe a transmis votre dossier pour qu’il soit étudié en vue d’un logement social.',
  'En attente': 'Votre demande attend qu’un logement qui lui corresponde se libère ; pensez à la renouveler chaque année pour qu’elle reste active.',
  'Passage CAL':
    'Votre dossier passe devant la commission d’attribution des logements (CAL), qui choisit parmi les candidats celui ou celle à qui attribuer un logement.',
  Attribué: 'Un logement vous a été attribué : votre demande est arrivée à son terme.',
  Radiée:
    'Votre demande n’est plus active, faute de renouvellement ou sur décision de la mairie annexe ; si elle n’a pas été renouvelée à temps, vous pouvez la réactiver pendant quelques mois depuis votre lien privé («\u00a0Réactiver ma demande\u00a0»).',
  Refusé: 'Votre demande n’a pas été retenue ; le motif, s’il a été donné, figure dans l’e-mail reçu et dans l’historique, et la mairie annexe du Jas de Bouffan peut vous en dire plus.',
};

const RANGS = new Map<string, number>(STATUTS_DEFINIS.map((s) => [s.value, s.rang]));

export function isStatut(value: unknown): value is Statut {
  return typeof value === 'string' && RANGS.has(value);
}

/** Index of the status in the progress bar (0..5), or -1 for Radiée and Refusé. */
export function etapeIndex(statut: Statut): number {
  return ETAPES.indexOf(statut);
}

/** The status's stored sort rank (steps in order, Refusé last). */
export function statutRang(statut: Statut): number {
  return RANGS.get(statut)!;
}
