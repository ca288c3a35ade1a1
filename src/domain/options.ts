/**
 * Option lists of the housing request (docs/produit.md « La demande »), each value with its French label.
 * Values are what the API and the database hold; labels are what people read.
 */

export interface Option<V extends string = string> {
  readonly value: V;
  readonly label: string;
}

function values<V extends string>(options: readonly Option<V>[]): [V, ...V[]] {
  return options.map((o) => o.value) as [V, ...V[]];
}

export function labelOf<V extends string>(options: readonly Option<V>[], value: V | null | undefined): string {
  if (value == null) return '';
  return options.find((o) => o.value === value)?.label ?? value;
}

export const SEXES = [
  { value: 'femme', label: 'Femme' },
  { value: 'homme', label: 'Homme' },
] as const satisfies readonly Option[];
export const SEXE_VALUES = values(SEXES);
export type Sexe = (typeof SEXE_VALUES)[number];

export const SITUATIONS_FAMILIALES = [
  { value: 'celibataire', label: 'Célibataire' },
  { value: 'concubinage', label: 'En concubinage' },
  { value: 'pacse', label: 'Pacsé(e)' },
  { value: 'marie', label: 'Marié(e)' },
  { value: 'separe', label: 'Séparé(e)' },
  { value: 'divorce', label: 'Divorcé(e)' },
  { value: 'veuf', label: 'Veuf / veuve' },
] as const satisfies readonly Option[];
export const SITUATION_FAMILIALE_VALUES = values(SITUATIONS_FAMILIALES);

export const NOMBRE_D_ENFANTS_MAX = 7;
export const NOMBRES_D_ENFANTS: readonly Option[] = Array.from({ length: NOMBRE_D_ENFANTS_MAX + 1 }, (_, n) => ({
  value: String(n),
  label: n === NOMBRE_D_ENFANTS_MAX ? `${n} ou plus` : String(n),
}));

export const LOGEMENTS_ACTUELS = [
  { value: 'sans domicile fixe', label: 'Sans domicile fixe' },
  { value: 'appartement', label: 'Appartement' },
  { value: 'maison', label: 'Maison' },
  { value: 'centre hebergement', label: "Centre d’hébergement" },
] as const satisfies readonly Option[];
export const LOGEMENT_ACTUEL_VALUES = values(LOGEMENTS_ACTUELS);

export const TYPES_DE_LOGEMENT = [
  { value: 'studio', label: 'Studio' },
  { value: 't2', label: 'T2' },
  { value: 't3', label: 'T3' },
  { value: 't4', label: 'T4' },
  { value: 't5', label: 'T5' },
  { value: 't6', label: 'T6' },
] as const satisfies readonly Option[];
export const TYPE_DE_LOGEMENT_VALUES = values(TYPES_DE_LOGEMENT);

export const BAILLEURS = [
  { value: 'pah', label: "Pays d’Aix Habitat" },
  { value: 'famille et provence', label: 'Famille et Provence' },
  { value: 'logirem', label: 'Logirem' },
  { value: 'sacogiva', label: 'Sacogiva' },
  { value: '13 habitat', label: '13 Habitat' },
  { value: 'unicil', label: 'Unicil' },
  { value: 'prive', label: 'Bailleur privé' },
] as const satisfies readonly Option[];
export const BAILLEUR_VALUES = values(BAILLEURS);
export type Bailleur = (typeof BAILLEUR_VALUES)[number];

/**
 * The 16 quartiers of Aix-en-Provence of docs/produit.md « La demande ». `value` is the current-quartier value
 * (as the spec writes it), `key` the camelCase key of the desired-quartier checklist.
 */
export const QUARTIERS = [
  { value: 'celony', key: 'celony', label: 'Celony' },
  { value: 'centre ville', key: 'centreVille', label: 'Centre-ville' },
  { value: 'encagnane', key: 'encagnane', label: 'Encagnane' },
  { value: 'jas de bouffan', key: 'jasDeBouffan', label: 'Jas de Bouffan' },
  { value: 'duranne', key: 'duranne', label: 'La Duranne' },
  { value: 'beisson', key: 'beisson', label: 'Beisson' },
  { value: 'st eutrope', key: 'stEutrope', label: 'Saint-Eutrope' },
  { value: 'platanes', key: 'platanes', label: 'Les Platanes' },
  { value: 'les milles', key: 'lesMilles', label: 'Les Milles' },
  { value: 'luynes', key: 'luynes', label: 'Luynes' },
  { value: 'pont de beraud', key: 'pontDeBeraud', label: 'Pont de Béraud' },
  { value: 'pont de l Arc', key: 'pontDeLArc', label: "Pont de l’Arc" },
  { value: 'puyricard couteron', key: 'puyricardCouteron', label: 'Puyricard – Couteron' },
  { value: 'sextius mirabeau', key: 'sextiusMirabeau', label: 'Sextius – Mirabeau' },
  { value: 'st mitre granettes', key: 'stMitreGranettes', label: 'Saint-Mitre – Granettes' },
  { value: 'val st andre torse', key: 'valStAndreTorse', label: 'Val Saint-André – Torse' },
] as const;
export const QUARTIER_VALUES = QUARTIERS.map((q) => q.value) as unknown as [
  (typeof QUARTIERS)[number]['value'],
  ...(typeof QUARTIERS)[number]['value'][],
];
export type Quartier = (typeof QUARTIERS)[number]['value'];

export const PAS_DE_PREFERENCE = 'pasDePreference';
export const QUARTIERS_SOUHAITES = [
  ...QUARTIERS.map((q) => ({ value: q.key, label: q.label })),
  { value: PAS_DE_PREFERENCE, label: 'Pas de préférence' },
] as const satisfies readonly Option[];
export const QUARTIER_SOUHAITE_VALUES = values(QUARTIERS_SOUHAITES);
export const QUARTIER_OPTIONS: readonly Option[] = QUARTIERS.map((q) => ({ value: q.value, label: q.label }));
