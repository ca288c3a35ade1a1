/**
 * Labels (issue 12 point 6; docs/produit.md « Étiquettes »): admins create them (a name and a colour), managers
 * put them on requests and filter the list on them. Managers only: a resident never sees them.
 */
import { z } from './zod.js';

/** The colours a label may take: each carries white text at 4.5:1 or more. */
export const COULEURS_ETIQUETTE = {
  bleu: '#1c5fa8',
  vert: '#2b7a3d',
  rouge: '#b02a2a',
  violet: '#6b3fa0',
  orange: '#a33b00',
  rose: '#a61e4d',
  turquoise: '#0b6e7a',
  gris: '#495057',
} as const;
export type CouleurEtiquette = keyof typeof COULEURS_ETIQUETTE;
export const COULEUR_ETIQUETTE_VALUES = Object.keys(COULEURS_ETIQUETTE) as [CouleurEtiquette, ...CouleurEtiquette[]];

export const ETIQUETTE_NOM_MAX = 40;
/** Labels in all, and on one request. */
export const ETIQUETTES_MAX = 50;
export const ETIQUETTES_PAR_DEMANDE_MAX = 10;

export const nouvelleEtiquetteSchema = z.object({
  nom: z
    .string({ error: 'Donnez un nom à l’étiquette.' })
    .trim()
    .min(1, { error: 'Donnez un nom à l’étiquette.' })
    .max(ETIQUETTE_NOM_MAX, { error: `Le nom de l’étiquette dépasse ${ETIQUETTE_NOM_MAX} caractères.` }),
  couleur: z.enum(COULEUR_ETIQUETTE_VALUES, { error: `La couleur doit être ${COULEUR_ETIQUETTE_VALUES.join(', ')}.` }),
});
export type NouvelleEtiquette = z.infer<typeof nouvelleEtiquetteSchema>;

/**
 * The form of a label's name that two names share when they differ only by case (« École », « ÉCOLE », « école »):
 * unique among labels (migration 0033). Folded here, not by the database: SQLite's lower() knows only ASCII.
 */
export const cleEtiquette = (nom: string): string => nom.normalize('NFC').toLocaleLowerCase('fr');

export const etiquetteSchema = z.object({ id: z.string(), nom: z.string(), couleur: z.enum(COULEUR_ETIQUETTE_VALUES) });
export type Etiquette = z.infer<typeof etiquetteSchema>;

/** The labels of one request, all at once. */
export const etiquettesDemandeSchema = z.object({
  ids: z
    .array(z.uuid({ error: 'Cette étiquette n’existe pas.' }), { error: 'Donnez la liste des étiquettes.' })
    .max(ETIQUETTES_PAR_DEMANDE_MAX, { error: `Au plus ${ETIQUETTES_PAR_DEMANDE_MAX} étiquettes par demande.` }),
});
