import { describe, expect, it } from 'vitest';
import {
  foldForSearch,
  isValidNumeroUnique,
  normaliseEmail,
  normaliseNumeroUnique,
  NUMERO_UNIQUE_MAX,
  NUMERO_UNIQUE_MESSAGE,
  NUMERO_UNIQUE_MIN,
  slugify,
} from './normalise.js';

describe('numéro unique', () => {
  it('is lowercased with every whitespace removed, inside and around', () => {
    expect(normaliseNumeroUnique('  013 ABC\t12\u00a034\n')).toBe('013abc1234');
    expect(normaliseNumeroUnique('013abc1234')).toBe('013abc1234');
    expect(normaliseNumeroUnique('0 1 3')).toBe('013');
  });

  it('takes 6 to 32 ASCII letters and digits, once normalised', () => {
    expect([NUMERO_UNIQUE_MIN, NUMERO_UNIQUE_MAX]).toEqual([6, 32]);
    expect(isValidNumeroUnique('a1b2c3')).toBe(true);
    expect(isValidNumeroUnique('9'.repeat(32))).toBe(true);
    expect(isValidNumeroUnique('a1b2c')).toBe(false);
    expect(isValidNumeroUnique('9'.repeat(33))).toBe(false);
    for (const bad of ['', '013 abc', '013-abc', '013abç', '013ABC', 'x013abc\n', '\n013abc']) {
      expect(isValidNumeroUnique(bad), JSON.stringify(bad)).toBe(false);
    }
    expect(NUMERO_UNIQUE_MESSAGE).toBe('Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.');
  });
});

describe('e-mail, search and slugs', () => {
  it('trims both ends of an e-mail and lowercases it', () => {
    expect(normaliseEmail('  Helene.Martin@Exemple.FR \t')).toBe('helene.martin@exemple.fr');
  });

  it('folds case and accents, and nothing else', () => {
    expect(foldForSearch('Hélène ÇA Œuvre, n° 12')).toBe('helene ca œuvre, n° 12');
    expect(foldForSearch('e\u0301te\u0301')).toBe('ete');
  });

  it('slugs a place name: trimmed, lowercased, each run of spaces one hyphen', () => {
    expect(slugify('  Jas de   Bouffan ')).toBe('jas-de-bouffan');
    expect(slugify('Aix-en-Provence')).toBe('aix-en-provence');
  });
});
