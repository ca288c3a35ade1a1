import { describe, expect, it } from 'vitest';
import { typeFromExtension } from './documents.js';
import { DEMANDE_VALEURS_INITIALES, demandeSaisieSchema } from './demande.js';
import { foldForSearch, isValidNumeroUnique, normaliseEmail, normaliseNumeroUnique, slugify } from './normalise.js';
import { QUARTIERS, QUARTIERS_SOUHAITES } from './options.js';
import { ETAPES, etapeIndex, STATUT_COULEURS, STATUTS } from './statut.js';

describe('normalisation', () => {
  it('lowercases the numéro unique and removes every whitespace', () => {
    expect(normaliseNumeroUnique(' 013 ABC\t12\u00a034 ')).toBe('013abc1234');
    expect(isValidNumeroUnique('013abc1234')).toBe(true);
    expect(isValidNumeroUnique('01234')).toBe(false);
    expect(isValidNumeroUnique('0'.repeat(33))).toBe(false);
  });
  it('lowercases and trims e-mail; folds accents for search; slugs places', () => {
    expect(normaliseEmail('  Helene@Exemple.FR ')).toBe('helene@exemple.fr');
    expect(foldForSearch('Hélène ÇA')).toBe('helene ca');
    expect(slugify('Jas de Bouffan')).toBe('jas-de-bouffan');
    expect(slugify('Aix-en-Provence')).toBe('aix-en-provence');
  });
});

describe('options and statuses', () => {
  it('has the 16 current quartiers and their desired keys plus pasDePreference', () => {
    expect(QUARTIERS).toHaveLength(16);
    expect(QUARTIERS_SOUHAITES).toHaveLength(17);
    expect(QUARTIERS_SOUHAITES.map((q) => q.value)).toContain('jasDeBouffan');
    expect(QUARTIERS_SOUHAITES.at(-1)?.value).toBe('pasDePreference');
  });
  it('orders six steps then Radiée and Refusé, with the spec colours', () => {
    expect(STATUTS).toHaveLength(8);
    expect(ETAPES).toEqual(['En attente des documents', 'En cours de traitement', 'Demande envoyée', 'En attente', 'Passage CAL', 'Attribué']);
    expect(etapeIndex('Passage CAL')).toBe(4);
    expect(etapeIndex('Refusé')).toBe(-1);
    expect(Object.values(STATUT_COULEURS)).toEqual(['#808080', '#A9A9A9', '#E9D66B', '#FFBF00', '#00BFFF', '#74C365', '#C9A0DC', '#FF7F7F']);
  });
  it('maps extensions to accepted types', () => {
    expect(typeFromExtension('a.PDF')).toBe('application/pdf');
    expect(typeFromExtension('a.jpeg')).toBe('image/jpeg');
    expect(typeFromExtension('a.JPG')).toBe('image/jpeg');
    expect(typeFromExtension('a.gif')).toBeNull();
  });
});

describe('request schema', () => {
  it('turns the form defaults plus the three required fields into a valid request', () => {
    const parsed = demandeSaisieSchema.parse({ ...DEMANDE_VALEURS_INITIALES, numeroUnique: '013 000 111', prenom: 'Ali', email: 'ali@example.org', motivations: 'x' });
    expect(parsed).toMatchObject({
      situationFamiliale: 'celibataire',
      nombreDEnfants: 0,
      logementActuel: 'sans domicile fixe',
      typeDeLogementActuel: 'studio',
      bailleurActuel: 'pah',
      typeDeLogementSouhaite: 'studio',
      salaireBrut: null,
      quartierActuel: null,
      dateDeNaissance: null,
    });
  });
  it('reads French-typed amounts', () => {
    const parsed = demandeSaisieSchema.parse({ numeroUnique: '013000111', prenom: 'A', email: 'a@b.fr', motivations: 'x', salaireBrut: '1 850,50' });
    expect(parsed.salaireBrut).toBe(1850.5);
  });
});

describe('messages read as French', () => {
  it('agrees a plural field name with its verb, and names the field of every length limit', async () => {
    const { inscriptionSchema } = await import('./compte.js');
    const demandeTropLongue = demandeSaisieSchema.safeParse({ numeroUnique: '013000111', prenom: 'A', email: 'a@b.fr', motivations: 'x', commentaires: 'x'.repeat(5001) });
    expect(demandeTropLongue.error?.issues[0]?.message).toBe('Les commentaires ne doivent pas dépasser 5000 caractères.');
    const inscription = inscriptionSchema.safeParse({ nom: 'A', prenom: 'B', birthday: '1980-01-01', residence: 'r'.repeat(201), rue: 'r'.repeat(201), pays: 'p'.repeat(101), email: 'a@b.fr', password: 'x'.repeat(12) });
    const messages = Object.fromEntries(inscription.error!.issues.map((i) => [String(i.path[0]), i.message]));
    expect(messages).toMatchObject({
      residence: 'La résidence ne doit pas dépasser 200 caractères.',
      rue: 'La rue ne doit pas dépasser 200 caractères.',
      pays: 'Le pays ne doit pas dépasser 100 caractères.',
    });
    for (const inviterUid of [42, 'u'.repeat(65)]) {
      const invitation = inscriptionSchema.safeParse({ nom: 'A', prenom: 'B', birthday: '1980-01-01', residence: 'R', rue: 'Rue', email: 'a@b.fr', password: 'x'.repeat(12), inviterUid });
      expect(invitation.error?.issues[0]?.message).toBe("L’invitation n’est pas valide.");
    }
  });
});
