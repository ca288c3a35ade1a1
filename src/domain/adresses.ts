import { z } from './zod.js';

/**
 * An address suggestion of the request form (national address base, or the territory's street list). `complement`:
 * what the person typed about the building (« Bât. C », « Résidence Les Lauriers »), kept apart from the street.
 * `lat`/`lon`: where the national base places it (WGS 84), which places a technical report; the territory's street
 * list has no position, so its suggestions have none.
 */
export const suggestionSchema = z.object({
  label: z.string(),
  adresse: z.string(),
  codePostal: z.string(),
  ville: z.string(),
  complement: z.string().optional(),
  lat: z.number().min(-90).max(90).optional(),
  lon: z.number().min(-180).max(180).optional(),
});
export type Suggestion = z.infer<typeof suggestionSchema>;

export const ADRESSE_MIN = 3;

export const adressesQuerySchema = z.object({
  q: z
    .string({ error: 'Saisissez une adresse.' })
    .trim()
    .min(ADRESSE_MIN, { error: `Saisissez au moins ${ADRESSE_MIN} caractères.` })
    .max(200, { error: "L’adresse saisie est trop longue." }),
  limit: z.coerce.number({ error: 'La limite doit être un nombre.' }).int().min(1).max(10).default(5),
});

export const adressesReponseSchema = z.object({ data: z.array(suggestionSchema), source: z.enum(['ban', 'territoire']) });

/** Words that start an address's complement (building, staircase, floor, flat), as people type them. */
const COMPLEMENT =
  /^(?:b[aâ]t(?:iment)?|bt|r[eé]s(?:idence)?|esc(?:alier)?|[eé]tage|[eé]t|appt?|appartement|apt|porte|entr[eé]e|logement|log|lgt|hall|tour|villa|immeuble|imm|cit[eé])(?!\p{L})/iu;

/**
 * Splits what was typed into the street part, to search, and the complement around it: « Bât. C, 12 av Jean
 * Monnet » and « 12 av Jean Monnet, bât C » give « 12 av Jean Monnet » and « Bât. C ». Parts are split on commas;
 * a part before the house number that starts with a complement word (« Résidence Les Lauriers 12 rue… ») too.
 */
export function separerComplement(saisie: string): { recherche: string; complement: string } {
  const complements: string[] = [];
  const rues: string[] = [];
  for (const partie of saisie.split(',').map((p) => p.trim()).filter(Boolean)) {
    if (COMPLEMENT.test(partie)) {
      // « Résidence Les Lauriers 12 rue X »: the complement runs up to the house number.
      const numero = /\s(\d+\s?(?:bis|ter|[a-d])?\s+\p{L}.*)$/iu.exec(partie);
      if (numero?.[1] && rues.length === 0) {
        complements.push(partie.slice(0, numero.index).trim());
        rues.push(numero[1]);
      } else {
        complements.push(partie);
      }
    } else {
      rues.push(partie);
    }
  }
  const complement = complements.join(', ');
  const majuscule = complement.charAt(0).toLocaleUpperCase('fr-FR') + complement.slice(1);
  return { recherche: rues.length > 0 ? rues.join(' ') : saisie.trim(), complement: rues.length > 0 ? majuscule : '' };
}
