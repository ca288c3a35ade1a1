import { erreurDateDeNaissance } from './dates.js';
import { normaliseEmail } from './normalise.js';
import { numeroDePageSchema, rechercheSchema } from './pagination.js';
import { z } from './zod.js';

/** Accounts (docs/produit.md « Comptes » and « Rôles »). */

export const ROLES = [
  { value: 'habitant', label: 'Habitant' },
  { value: 'manager', label: 'Gestionnaire' },
  { value: 'admin', label: 'Administrateur' },
] as const;
export type Role = (typeof ROLES)[number]['value'];
export const ROLE_VALUES = ROLES.map((r) => r.value) as [Role, ...Role[]];
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLE_VALUES as string[]).includes(v);
/** Managers and admins process every housing request. */
export const isGestionnaire = (role: string | null | undefined): boolean => role === 'manager' || role === 'admin';
/**
 * Manager and admin read every request: they are given only to an account whose e-mail address is
 * confirmed (anyone can sign up as `agent@mairie-…` without owning it). Going back to habitant is always allowed.
 */
export const roleExigeAdresseConfirmee = (role: Role): boolean => role !== 'habitant';
export const adresseNonConfirmee = (email: string): string =>
  `L’adresse ${email} n’est pas confirmée : la personne doit d’abord cliquer le lien reçu par e-mail, puis vous pourrez lui donner ce rôle.`;

/**
 * Who sees a resident's name and photo (docs/produit.md « Comptes »). Everyone else sees the first name
 * only, with the default picture. The gender is never public.
 */
export const VISIBILITES = [
  {
    value: 'voisins',
    label: 'Mes voisins seulement',
    description: 'Les personnes que je suis ou qui me suivent voient mon nom et ma photo ; les autres ne voient que mon prénom.',
  },
  {
    value: 'quartier',
    label: 'Les habitants de mon quartier',
    description: 'Les habitants connectés de mon quartier voient aussi mon nom et ma photo, et me trouvent dans la liste des habitants.',
  },
  {
    value: 'tous',
    label: 'Tout le monde',
    description: "Même sans compte, qui ouvre mon lien d’invitation ou mon profil voit mon nom et ma photo.",
  },
] as const;
export type Visibilite = (typeof VISIBILITES)[number]['value'];
export const VISIBILITE_VALUES = VISIBILITES.map((v) => v.value) as [Visibilite, ...Visibilite[]];
export const VISIBILITE_DEFAUT: Visibilite = 'voisins';
export const isVisibilite = (v: unknown): v is Visibilite => typeof v === 'string' && (VISIBILITE_VALUES as string[]).includes(v);
/** The choices that put a resident in their quartier's and ville's inhabitants lists. */
export const VISIBILITES_LISTEES: readonly Visibilite[] = ['quartier', 'tous'];

export const GENRES = [
  { value: 'F', label: 'Femme' },
  { value: 'H', label: 'Homme' },
  { value: 'Autre', label: 'Autre' },
] as const;
export type Genre = (typeof GENRES)[number]['value'];

/** The only city and quartier of the sign-up lists (docs/produit.md « Comptes »). */
export const VILLE = 'Aix-en-Provence';
export const QUARTIER = 'Jas de Bouffan';
export const PAYS_DEFAUT = 'France';

/** OWASP ASVS 2.1 / CNIL 2022-100: length only, no composition rule, no forced renewal. */
export const MOT_DE_PASSE_MIN = 12;
export const MOT_DE_PASSE_MAX = 128;
export const MOT_DE_PASSE_COURT = `Le mot de passe doit contenir au moins ${MOT_DE_PASSE_MIN} caractères.`;
export const MOT_DE_PASSE_LONG = `Le mot de passe doit contenir au plus ${MOT_DE_PASSE_MAX} caractères.`;
export const MOT_DE_PASSE_COURANT =
  'Ce mot de passe est trop facile à deviner (mot courant, suite de touches, répétition, ou votre nom ou adresse) : choisissez-en un autre.';

/** Profile pictures: JPEG or PNG, checked on content by the server, at most 5 MB. */
export const PHOTO_TYPES = ['image/jpeg', 'image/png'] as const;
export const PHOTO_MAX_OCTETS = 5 * 1024 * 1024;
export const PHOTO_TYPE_MESSAGE = 'La photo doit être une image JPEG ou PNG.';
export const PHOTO_TAILLE_MESSAGE = `La photo dépasse la taille maximale de ${PHOTO_MAX_OCTETS / (1024 * 1024)} Mo.`;
export const isPhotoType = (type: string | undefined): boolean => (PHOTO_TYPES as readonly (string | undefined)[]).includes(type);

/**
 * Particles that stay lower-case inside a name (« Jean de la Fontaine », « Vincent van Gogh »); « d’ » is
 * handled apart, glued to the name it precedes.
 */
const PARTICULES: ReadonlySet<string> = new Set(['de', 'du', 'des', 'la', 'le', 'van', 'von', 'di', 'da', 'del']);

/** Each letter that starts the word or follows a hyphen or an apostrophe in upper case, the others in lower case. */
const initiales = (mot: string): string =>
  mot.toLocaleLowerCase('fr-FR').replace(/(^|[-’])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toLocaleUpperCase('fr-FR'));

/** A particle as typed: lower-case if typed so, else with its capital (« La » stays « La », « LA » becomes « La »). */
const commeSaisie = (particule: string): string => (particule.charAt(0) === particule.charAt(0).toLocaleLowerCase('fr-FR') ? particule.toLocaleLowerCase('fr-FR') : initiales(particule));

/**
 * A name as it is written (docs/produit.md « Comptes »): « jean-pierre » → « Jean-Pierre », « o'neill » →
 * « O’Neill », « d'ornano » → « d’Ornano » (apostrophes become ’). Particles (PARTICULES, « d’ ») keep the case
 * the person typed (« Jean de La Fontaine » stays so); when the whole name was typed in lower or upper case,
 * they go lower-case, but for a first word other than « d’ » (« le goff » → « Le Goff », « JEAN DE LA FONTAINE »
 * → « Jean de la Fontaine »). Applied twice, it gives the same name.
 */
export function capitaliser(text: string): string {
  const propre = text.trim().replace(/\s+/gu, ' ').replace(/'/gu, '’');
  const uniforme = propre === propre.toLocaleLowerCase('fr-FR') || propre === propre.toLocaleUpperCase('fr-FR');
  return propre
    .split(' ')
    .map((mot, i) => {
      const elision = /^([dD])’(?=\p{L})/u.exec(mot);
      if (elision) return `${uniforme ? 'd' : elision[1]}’${initiales(mot.slice(2))}`;
      if (!PARTICULES.has(mot.toLocaleLowerCase('fr-FR'))) return initiales(mot);
      if (!uniforme) return commeSaisie(mot);
      return i === 0 ? initiales(mot) : mot.toLocaleLowerCase('fr-FR');
    })
    .join(' ');
}

const nomPropre = (champ: string) =>
  z
    .string({ error: `${champ} est obligatoire.` })
    .trim()
    .min(1, { error: `${champ} est obligatoire.` })
    .max(100, { error: `${champ} ne doit pas dépasser 100 caractères.` })
    .transform(capitaliser);

/** A password as typed to sign in: only required (its length rules apply when it is chosen). */
export const motDePasseSaisiSchema = z
  .string({ error: 'Le mot de passe est obligatoire.' })
  .min(1, { error: 'Le mot de passe est obligatoire.' })
  .max(MOT_DE_PASSE_MAX, { error: MOT_DE_PASSE_LONG });

export const motDePasseSchema = z
  .string({ error: 'Le mot de passe est obligatoire.' })
  .min(1, { error: 'Le mot de passe est obligatoire.' })
  .min(MOT_DE_PASSE_MIN, { error: MOT_DE_PASSE_COURT })
  .max(MOT_DE_PASSE_MAX, { error: MOT_DE_PASSE_LONG });

export const emailSchema = z
  .string({ error: "L’adresse e-mail est obligatoire." })
  .transform(normaliseEmail)
  .refine((v) => v.length > 0, { error: "L’adresse e-mail est obligatoire." })
  .pipe(z.email({ error: "L’adresse e-mail n’est pas valide." }).max(254, { error: "L’adresse e-mail est trop longue." }));

export const inscriptionSchema = z.object({
  nom: nomPropre('Le nom'),
  prenom: nomPropre('Le prénom'),
  gender: z.enum(['F', 'H', 'Autre'], { error: 'Choisissez F, H ou Autre.' }).default('F'),
  birthday: z
    .string({ error: 'La date de naissance est obligatoire.' })
    .refine((d) => d !== '', { error: 'La date de naissance est obligatoire.', abort: true })
    .pipe(z.iso.date({ error: 'La date de naissance doit être une date valide (JJ/MM/AAAA).' }))
    .superRefine((d, ctx) => {
      const erreur = erreurDateDeNaissance(d);
      if (erreur) ctx.addIssue({ code: 'custom', message: erreur });
    }),
  pays: z.string().trim().min(1, { error: 'Le pays est obligatoire.' }).max(100, { error: 'Le pays ne doit pas dépasser 100 caractères.' }).default(PAYS_DEFAUT),
  ville: z.literal(VILLE, { error: `La ville doit être ${VILLE}.` }).default(VILLE),
  quartier: z.literal(QUARTIER, { error: `Le quartier doit être ${QUARTIER}.` }).default(QUARTIER),
  residence: z
    .string({ error: 'La résidence est obligatoire.' })
    .trim()
    .min(1, { error: 'La résidence est obligatoire.' })
    .max(200, { error: 'La résidence ne doit pas dépasser 200 caractères.' }),
  rue: z.string({ error: 'La rue est obligatoire.' }).trim().min(1, { error: 'La rue est obligatoire.' }).max(200, { error: 'La rue ne doit pas dépasser 200 caractères.' }),
  email: emailSchema,
  password: motDePasseSchema,
  inviterUid: z.string({ error: "L’invitation n’est pas valide." }).max(64, { error: "L’invitation n’est pas valide." }).optional(),
});
export type InscriptionInput = z.input<typeof inscriptionSchema>;
export type Inscription = z.output<typeof inscriptionSchema>;

/** Names as a person types them: the one rule for every place that writes nom and prenom. */
export const profilSchema = z.object({
  nom: nomPropre('Le nom'),
  prenom: nomPropre('Le prénom'),
});

export const visibiliteSchema = z.enum(VISIBILITE_VALUES, { error: `Choix inconnu : choisissez ${VISIBILITE_VALUES.join(', ')}.` });

/** PATCH /user/me: any of the names (same rules as above) and the visibility choice. */
export const modificationProfilSchema = profilSchema.partial().extend({ visibilite: visibiliteSchema.optional() });
export type ModificationProfil = z.output<typeof modificationProfilSchema>;

/**
 * A display name from elsewhere (Google's « Jean Martin ») as nom and prenom under the same rules as
 * typed names: first word nom, second prenom (docs/produit.md « Comptes »), capitalised, 100 characters at most.
 */
export function nomsDepuisNomAffiche(display: unknown): { nom: string; prenom: string } {
  const words = (typeof display === 'string' ? display : '').replace(/[\p{C}<>]/gu, ' ').trim().split(/\s+/u);
  const clean = (word: string | undefined) => capitaliser(word ?? '').slice(0, 100);
  return { nom: clean(words[0]), prenom: clean(words[1]) };
}

/**
 * Public profile: never e-mail, birthday, street, residence or gender. `nom` and the chosen picture only
 * for the viewers the person chose (VISIBILITES); others get the first name and the default picture.
 */
export const profilPublicSchema = z.object({
  uid: z.string(),
  pic: z.string(),
  nom: z.string().optional(),
  prenom: z.string(),
  quartier: z.string(),
  ville: z.string(),
  pays: z.string(),
  emailVerified: z.boolean(),
});
export type ProfilPublic = z.infer<typeof profilPublicSchema>;

/** Personal data, for the user and admins. */
export const profilPersonnelSchema = profilPublicSchema.extend({
  nom: z.string(),
  gender: z.string(),
  visibilite: z.enum(VISIBILITE_VALUES),
  email: z.string(),
  birthday: z.string().nullable(),
  residence: z.string(),
  rue: z.string(),
  userType: z.enum(ROLE_VALUES),
  dateDEnregistrement: z.string(),
});
export type ProfilPersonnel = z.infer<typeof profilPersonnelSchema>;

/** The signed-in account as its owner sees it: personal data, invitation link, neighbours. */
export const moiSchema = profilPersonnelSchema.extend({
  invitationLink: z.string(),
  followers: z.array(profilPublicSchema),
  following: z.array(profilPublicSchema),
});
export type Moi = z.infer<typeof moiSchema>;

/**
 * When the signed-in session ends (GET /user/session, docs/produit.md « Comptes »): times are ISO 8601 by the
 * server's clock, `maintenant` included, so that a client reckons with durations and not with its own clock.
 * With no further request the session ends at `finInactivite`, `inactiviteMs` after the activity the server
 * recorded (`derniereActivite`); a request moves that activity to its own time only when it comes
 * `activiteEcriteToutesLesMs` or more after it. Whatever happens, it ends at `finAbsolue`, which no
 * request moves.
 */
/** How long before a manager's session ends the site warns: before the idle end (extendable), before the absolute end (not). */
export const AVERTIR_AVANT_INACTIVITE_MS = 2 * 60_000;
export const AVERTIR_AVANT_FIN_ABSOLUE_MS = 10 * 60_000;

export const echeancesSessionSchema = z.object({
  maintenant: z.string(),
  derniereActivite: z.string(),
  finInactivite: z.string(),
  finAbsolue: z.string(),
  inactiviteMs: z.number(),
  activiteEcriteToutesLesMs: z.number(),
});
export type EcheancesSession = z.infer<typeof echeancesSessionSchema>;

/** An account's id in a path (better-auth ids: 32 letters and digits; bounded, never empty). */
export const uidSchema = z
  .string({ error: "L’identifiant est obligatoire." })
  .min(1, { error: "L’identifiant est obligatoire." })
  .max(64, { error: "L’identifiant est trop long." });

export const PAGE_UTILISATEURS = 50;
export const utilisateursQuerySchema = z.object({ q: rechercheSchema, page: numeroDePageSchema });

export const roleSchema = z.object({ role: z.enum(ROLE_VALUES, { error: `Rôle inconnu : choisissez ${ROLE_VALUES.join(', ')}.` }) });
