import { describe, expect, it } from 'vitest';
import {
  capitaliser,
  emailSchema,
  inscriptionSchema,
  isGestionnaire,
  isPhotoType,
  isRole,
  modificationProfilSchema,
  motDePasseSaisiSchema,
  motDePasseSchema,
  nomsDepuisNomAffiche,
  roleSchema,
  utilisateursQuerySchema,
} from './compte.js';
import { fieldMessages } from './erreurs.js';

/** The message of each field a schema refuses (the first one per field), or {} when it accepts. */
function refus(schema: { safeParse(v: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }, value: unknown) {
  const result = schema.safeParse(value);
  return result.success ? {} : fieldMessages(result.error!);
}

const INSCRIPTION = {
  nom: 'de la fontaine',
  prenom: 'jean-pierre',
  birthday: '1980-01-01',
  residence: 'Les Lauriers',
  rue: 'Avenue Marcel-Pagnol',
  email: 'Jean.Pierre@Example.org',
  password: 'une phrase de passe assez longue',
};

describe('roles', () => {
  it('knows the three roles and nothing else', () => {
    for (const role of ['habitant', 'manager', 'admin']) expect(isRole(role)).toBe(true);
    for (const other of ['', 'Admin', 'gestionnaire', 'root', 1, null, undefined, ['admin']]) expect(isRole(other), String(other)).toBe(false);
  });

  it('counts managers and admins as managers, nobody else', () => {
    expect(isGestionnaire('manager')).toBe(true);
    expect(isGestionnaire('admin')).toBe(true);
    for (const other of ['habitant', '', 'Manager', null, undefined]) expect(isGestionnaire(other), String(other)).toBe(false);
  });

  it('reads a role change, refusing unknown roles in French', () => {
    expect(roleSchema.parse({ role: 'manager' })).toEqual({ role: 'manager' });
    expect(refus(roleSchema, { role: 'root' })).toEqual({ role: 'Rôle inconnu : choisissez habitant, manager, admin.' });
  });
});

describe('capitaliser', () => {
  it('capitalises word by word after a space, a hyphen or an apostrophe, lowercasing the rest', () => {
    expect(capitaliser('jean-pierre')).toBe('Jean-Pierre');
    expect(capitaliser('MARIE-CLAIRE DUPONT')).toBe('Marie-Claire Dupont');
    expect(capitaliser('élodie ÉMILIE')).toBe('Élodie Émilie');
  });

  it('writes the apostrophe ’ and the capital after it, but for the particle d’', () => {
    expect(capitaliser("o'neill")).toBe('O’Neill');
    expect(capitaliser("d’ornano")).toBe('d’Ornano');
    expect(capitaliser("D’ORNANO")).toBe('d’Ornano');
    expect(capitaliser("JEANNE d’ARC o’NEIL")).toBe('Jeanne d’Arc O’Neil');
  });

  it('puts the particles of a name typed all in lower or upper case in lower case, but for the first word', () => {
    expect(capitaliser('jean de la fontaine')).toBe('Jean de la Fontaine');
    expect(capitaliser('JEAN DE LA FONTAINE')).toBe('Jean de la Fontaine');
    expect(capitaliser('de la fontaine')).toBe('De la Fontaine');
    expect(capitaliser('vincent van gogh')).toBe('Vincent van Gogh');
    expect(capitaliser('ludwig von mises')).toBe('Ludwig von Mises');
    expect(capitaliser('leonardo da vinci')).toBe('Leonardo da Vinci');
    expect(capitaliser('bertrand du guesclin')).toBe('Bertrand du Guesclin');
    expect(capitaliser('le goff')).toBe('Le Goff');
    expect(capitaliser('di maria')).toBe('Di Maria');
    expect(capitaliser('du')).toBe('Du');
  });

  it('keeps the case the person gave a particle in a name typed in mixed case', () => {
    expect(capitaliser('Jean de La Fontaine')).toBe('Jean de La Fontaine');
    expect(capitaliser('de La Fontaine')).toBe('de La Fontaine');
    expect(capitaliser('De La Fontaine')).toBe('De La Fontaine');
    expect(capitaliser('jean De LA fontaine')).toBe('Jean De La Fontaine');
    expect(capitaliser("Philippe D’Ornano")).toBe('Philippe D’Ornano');
  });

  it('gives the same name when applied again (the form on leaving the field, then the server)', () => {
    for (const typed of ['jean de la fontaine', "d’ornano", "o'neill", 'JEAN-PIERRE DE LA TOUR', 'Jean de La Fontaine', 'le goff']) {
      const once = capitaliser(typed);
      expect(capitaliser(once), typed).toBe(once);
    }
  });

  it('trims and turns each run of whitespace into one space', () => {
    expect(capitaliser('  anne \t  marie  ')).toBe('Anne Marie');
  });

  it('leaves letters after other characters alone', () => {
    expect(capitaliser('ab.cd 2ef')).toBe('Ab.cd 2ef');
  });
});

describe('password and e-mail', () => {
  it('takes 12 to 128 characters, with a French message on each side', () => {
    expect(motDePasseSchema.parse('a'.repeat(12))).toBe('a'.repeat(12));
    expect(motDePasseSchema.parse('a'.repeat(128))).toBe('a'.repeat(128));
    expect(refus(motDePasseSchema, '')).toEqual({ _: 'Le mot de passe est obligatoire.' });
    expect(refus(motDePasseSchema, undefined)).toEqual({ _: 'Le mot de passe est obligatoire.' });
    expect(refus(motDePasseSchema, 'a'.repeat(11))).toEqual({ _: 'Le mot de passe doit contenir au moins 12 caractères.' });
    expect(refus(motDePasseSchema, 'a'.repeat(129))).toEqual({ _: 'Le mot de passe doit contenir au plus 128 caractères.' });
  });

  it('takes any non-empty password of at most 128 characters to sign in', () => {
    expect(motDePasseSaisiSchema.parse('a')).toBe('a');
    expect(motDePasseSaisiSchema.parse('a'.repeat(128))).toBe('a'.repeat(128));
    expect(refus(motDePasseSaisiSchema, '')).toEqual({ _: 'Le mot de passe est obligatoire.' });
    expect(refus(motDePasseSaisiSchema, null)).toEqual({ _: 'Le mot de passe est obligatoire.' });
    expect(refus(motDePasseSaisiSchema, 'a'.repeat(129))).toEqual({ _: 'Le mot de passe doit contenir au plus 128 caractères.' });
  });

  it('takes JPEG and PNG profile pictures only', () => {
    expect(isPhotoType('image/jpeg')).toBe(true);
    expect(isPhotoType('image/png')).toBe(true);
    for (const other of ['image/gif', 'image/svg+xml', 'application/pdf', 'image/JPEG', '', undefined]) expect(isPhotoType(other), String(other)).toBe(false);
  });

  it('normalises an e-mail and refuses an empty, malformed or too long one', () => {
    expect(emailSchema.parse('  Ali@Example.ORG ')).toBe('ali@example.org');
    const long = `${'a'.repeat(242)}@example.org`;
    expect(long).toHaveLength(254);
    expect(emailSchema.parse(long)).toBe(long);
    expect(refus(emailSchema, `a${long}`)).toEqual({ _: "L’adresse e-mail est trop longue." });
    expect(refus(emailSchema, '   ')).toEqual({ _: "L’adresse e-mail est obligatoire." });
    expect(refus(emailSchema, 12)).toEqual({ _: "L’adresse e-mail est obligatoire." });
    expect(refus(emailSchema, 'ali@')).toEqual({ _: "L’adresse e-mail n’est pas valide." });
  });
});

describe('sign-up', () => {
  it('fills the defaults and normalises what was typed', () => {
    expect(inscriptionSchema.parse({ ...INSCRIPTION, residence: '  Les Lauriers ', rue: ' Avenue Marcel-Pagnol ', inviterUid: 'abc' })).toEqual({
      nom: 'De la Fontaine',
      prenom: 'Jean-Pierre',
      gender: 'F',
      birthday: '1980-01-01',
      pays: 'France',
      ville: 'Aix-en-Provence',
      quartier: 'Jas de Bouffan',
      residence: 'Les Lauriers',
      rue: 'Avenue Marcel-Pagnol',
      email: 'jean.pierre@example.org',
      password: 'une phrase de passe assez longue',
      inviterUid: 'abc',
    });
  });

  it('takes each gender, a country, and the one city and quartier', () => {
    for (const gender of ['F', 'H', 'Autre']) expect(inscriptionSchema.parse({ ...INSCRIPTION, gender }).gender).toBe(gender);
    const parsed = inscriptionSchema.parse({ ...INSCRIPTION, pays: '  Italie ', ville: 'Aix-en-Provence', quartier: 'Jas de Bouffan' });
    expect([parsed.pays, parsed.ville, parsed.quartier]).toEqual(['Italie', 'Aix-en-Provence', 'Jas de Bouffan']);
    expect(inscriptionSchema.parse({ ...INSCRIPTION, nom: 'x'.repeat(100), pays: 'p'.repeat(100), residence: 'r'.repeat(200), rue: 'r'.repeat(200), inviterUid: 'u'.repeat(64) })).toMatchObject({
      nom: `X${'x'.repeat(99)}`,
    });
  });

  it('refuses each wrong field with its French message', () => {
    expect(
      refus(inscriptionSchema, {
        nom: '   ',
        prenom: 'p'.repeat(101),
        gender: 'X',
        birthday: '1980-02-30',
        pays: '  ',
        ville: 'Marseille',
        quartier: 'Encagnane',
        residence: ' ',
        rue: '',
        email: 'pas-une-adresse',
        password: 'court',
      }),
    ).toEqual({
      nom: 'Le nom est obligatoire.',
      prenom: 'Le prénom ne doit pas dépasser 100 caractères.',
      gender: 'Choisissez F, H ou Autre.',
      birthday: 'La date de naissance doit être une date valide (JJ/MM/AAAA).',
      pays: 'Le pays est obligatoire.',
      ville: 'La ville doit être Aix-en-Provence.',
      quartier: 'Le quartier doit être Jas de Bouffan.',
      residence: 'La résidence est obligatoire.',
      rue: 'La rue est obligatoire.',
      email: "L’adresse e-mail n’est pas valide.",
      password: 'Le mot de passe doit contenir au moins 12 caractères.',
    });
    expect(refus(inscriptionSchema, { email: 'a@b.fr', password: 'une phrase de passe assez longue' })).toEqual({
      nom: 'Le nom est obligatoire.',
      prenom: 'Le prénom est obligatoire.',
      birthday: 'La date de naissance est obligatoire.',
      residence: 'La résidence est obligatoire.',
      rue: 'La rue est obligatoire.',
    });
    expect(refus(inscriptionSchema, { ...INSCRIPTION, nom: 'n'.repeat(101), prenom: '  ', residence: 'r'.repeat(201), rue: 'r'.repeat(201), pays: 'p'.repeat(101), inviterUid: 'u'.repeat(65) })).toEqual({
      nom: 'Le nom ne doit pas dépasser 100 caractères.',
      prenom: 'Le prénom est obligatoire.',
      // Reported: these two read « … est obligatoire. » (the string's own message), not « trop long ».
      residence: expect.any(String),
      rue: expect.any(String),
      pays: expect.any(String),
      inviterUid: expect.any(String),
    });
  });

  it('takes a birthday from 1900 up to today (Paris), never in the future, never left empty', () => {
    const day = (offset: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris' }).format(new Date(Date.now() + offset * 86_400_000));
    expect(inscriptionSchema.parse({ ...INSCRIPTION, birthday: day(0) }).birthday).toBe(day(0));
    expect(inscriptionSchema.parse({ ...INSCRIPTION, birthday: '1900-01-01' }).birthday).toBe('1900-01-01');
    expect(refus(inscriptionSchema, { ...INSCRIPTION, birthday: day(1) })).toEqual({ birthday: 'La date de naissance ne peut pas être dans le futur.' });
    expect(refus(inscriptionSchema, { ...INSCRIPTION, birthday: '1899-12-31' })).toEqual({ birthday: 'La date de naissance doit être en 1900 ou après.' });
    // The form's empty date field.
    expect(refus(inscriptionSchema, { ...INSCRIPTION, birthday: '' })).toEqual({ birthday: 'La date de naissance est obligatoire.' });
  });
});

describe("admins' list of users", () => {
  it('defaults to the first page and no search', () => {
    expect(utilisateursQuerySchema.parse({})).toEqual({ q: '', page: 1 });
    expect(utilisateursQuerySchema.parse({ q: '  martin ', page: '3' })).toEqual({ q: 'martin', page: 3 });
    expect(utilisateursQuerySchema.parse({ q: 'x'.repeat(200), page: '1000000' })).toEqual({ q: 'x'.repeat(200), page: 1_000_000 });
  });

  it('refuses a bad search or page in French', () => {
    expect(refus(utilisateursQuerySchema, { q: 'x'.repeat(201), page: 'abc' })).toEqual({ q: 'La recherche est trop longue.', page: 'La page doit être un nombre.' });
    expect(refus(utilisateursQuerySchema, { q: 3, page: '1.5' })).toEqual({ q: 'La recherche doit être un texte.', page: 'La page doit être un nombre entier.' });
    expect(refus(utilisateursQuerySchema, { page: '0' })).toEqual({ page: 'Les pages commencent à 1.' });
    expect(refus(utilisateursQuerySchema, { page: '1000001' })).toEqual({ page: 'Cette page est trop loin.' });
  });
});

describe('names from elsewhere and profile changes', () => {
  it('turns a display name into nom and prenom under the typed names\' rules', () => {
    expect(nomsDepuisNomAffiche('  bernard   sophie ')).toEqual({ nom: 'Bernard', prenom: 'Sophie' });
    expect(nomsDepuisNomAffiche("o'neill sean")).toEqual({ nom: 'O’Neill', prenom: 'Sean' });
    expect(nomsDepuisNomAffiche(undefined)).toEqual({ nom: '', prenom: '' });
    const long = nomsDepuisNomAffiche(`${'x'.repeat(14_000)} y`);
    expect(long.nom).toHaveLength(100);
    const { nom } = nomsDepuisNomAffiche('a\u0000b<script> c');
    expect(nom).not.toContain('\u0000');
    expect(nom).not.toMatch(/[<>]/u);
  });

  it('checks PATCH /user/me\'s names like sign-up and takes only a known visibility', () => {
    expect(modificationProfilSchema.parse({ visibilite: 'quartier' })).toEqual({ visibilite: 'quartier' });
    expect(modificationProfilSchema.parse({ nom: 'de la tour' })).toEqual({ nom: 'De la Tour' });
    expect(modificationProfilSchema.parse({ nom: "d’ornano", prenom: 'jean-pierre' })).toEqual({ nom: 'd’Ornano', prenom: 'Jean-Pierre' });
    expect(refus(modificationProfilSchema, { nom: 'x'.repeat(101) }).nom).toBe('Le nom ne doit pas dépasser 100 caractères.');
    expect(refus(modificationProfilSchema, { visibilite: 'monde' }).visibilite).toMatch(/^Choix inconnu/u);
  });
});
