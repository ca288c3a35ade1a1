import { z } from './zod.js';

/** An address suggestion of the request form (national address base, or the territory's street list). */
export const suggestionSchema = z.object({ label: z.string(), adresse: z.string(), codePostal: z.string(), ville: z.string() });
export type Suggestion = z.infer<typeof suggestionSchema>;

export const ADRESSE_MIN = 3;

export const adressesQuerySchema = z.object({
  q: z
    .string({ error: 'Saisissez une adresse.' })
    .trim()
    .min(ADRESSE_MIN, { error: `Saisissez au moins ${ADRESSE_MIN} caractères.` })
    .max(200, { error: "L'adresse saisie est trop longue." }),
  limit: z.coerce.number({ error: 'La limite doit être un nombre.' }).int().min(1).max(10).default(5),
});

export const adressesReponseSchema = z.object({ data: z.array(suggestionSchema), source: z.enum(['ban', 'territoire']) });
