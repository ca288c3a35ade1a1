import { describe, expect, it } from 'vitest';
import { accord, de, pluriel } from './pluriel.js';

describe('pluriel', () => {
  it('takes the singular for 0 and 1, the plural from 2, as French does', () => {
    expect(pluriel(0, 'compte', 'comptes')).toBe('0 compte');
    expect(pluriel(1, 'compte', 'comptes')).toBe('1 compte');
    expect(pluriel(2, 'compte', 'comptes')).toBe('2 comptes');
    expect(pluriel(1.5, 'kilo', 'kilos')).toBe('1,5 kilo');
    expect(pluriel(1_000_000, 'demande', 'demandes')).toBe('1\u202f000\u202f000 demandes');
  });

  it('writes thousands the French way, with a narrow no-break space', () => {
    expect(pluriel(12_345, 'demande choisie', 'demandes choisies')).toBe('12\u202f345 demandes choisies');
  });

  it('gives the word alone with accord', () => {
    expect(accord(0, 'modifiée', 'modifiées')).toBe('modifiée');
    expect(accord(1, 'modifiée', 'modifiées')).toBe('modifiée');
    expect(accord(3, 'modifiée', 'modifiées')).toBe('modifiées');
  });
});

describe('de', () => {
  it('elides before a vowel or a mute h, not before a consonant', () => {
    expect(de('Marc')).toBe('de Marc');
    expect(de('Élodie Martin')).toBe('d’Élodie Martin');
    expect(de('Hugo')).toBe('d’Hugo');
    expect(de('Hélène')).toBe('d’Hélène');
    expect(de('Agnès')).toBe('d’Agnès');
    expect(de('œdipe')).toBe('d’œdipe');
    expect(de('Ugo')).toBe('d’Ugo');
  });

  it('reads a y as a vowel before a consonant only', () => {
    expect(de('Yves')).toBe('d’Yves');
    expect(de('Yann')).toBe('de Yann');
    expect(de('Yasmine')).toBe('de Yasmine');
  });

  it('keeps « de » before anything else', () => {
    expect(de('')).toBe('de ');
    expect(de('2 Rue')).toBe('de 2 Rue');
    expect(de('  Bérénice')).toBe('de Bérénice');
  });
});
