/**
 * A manager's saved views of the list (issue 12 point 2): a name and the list's query (search, filters, tab,
 * sort), kept for that manager only.
 */
import { listeQuerySchema, requeteDeVue } from './demande.js';
import { z } from './zod.js';

export const VUE_NOM_MAX = 60;
/** Saved views per manager. */
export const VUES_MAX = 30;

export const nouvelleVueSchema = z.object({
  nom: z
    .string({ error: 'Donnez un nom à la vue.' })
    .trim()
    .min(1, { error: 'Donnez un nom à la vue.' })
    .max(VUE_NOM_MAX, { error: `Le nom de la vue dépasse ${VUE_NOM_MAX} caractères.` }),
  /** The list's query string; read with the list's own schema, stored in its canonical form. */
  requete: z
    .string({ error: 'La vue doit dire ce qu’elle filtre.' })
    .max(1000, { error: 'La vue est trop longue.' })
    .transform((texte, ctx) => {
      const lue = listeQuerySchema.safeParse(Object.fromEntries(new URLSearchParams(texte)));
      if (!lue.success) {
        ctx.addIssue({ code: 'custom', message: 'Cette vue ne décrit pas une liste valable.' });
        return z.NEVER;
      }
      return requeteDeVue(lue.data);
    }),
});
export type NouvelleVue = z.input<typeof nouvelleVueSchema>;

export const vueSchema = z.object({ id: z.string(), nom: z.string(), requete: z.string() });
export type Vue = z.infer<typeof vueSchema>;
