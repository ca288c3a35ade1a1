import { describe, expect, it } from 'vitest';
import { fieldMessages } from './erreurs.js';
import { numeroDePageSchema, RECHERCHE_MAX, rechercheSchema } from './pagination.js';

const refus = (schema: typeof rechercheSchema | typeof numeroDePageSchema, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? {} : fieldMessages(result.error);
};

describe('search words', () => {
  it('are trimmed, empty when absent, up to 200 characters', () => {
    expect(RECHERCHE_MAX).toBe(200);
    expect(rechercheSchema.parse(undefined)).toBe('');
    expect(rechercheSchema.parse('  Hélène  Martin ')).toBe('Hélène  Martin');
    expect(rechercheSchema.parse(` ${'x'.repeat(200)} `)).toBe('x'.repeat(200));
  });

  it('are refused in French when too long or not a text', () => {
    expect(refus(rechercheSchema, 'x'.repeat(201))).toEqual({ _: 'La recherche est trop longue.' });
    expect(refus(rechercheSchema, 12)).toEqual({ _: 'La recherche doit être un texte.' });
  });
});

describe('page numbers', () => {
  it('start at 1, read from a query string, up to a million', () => {
    expect(numeroDePageSchema.parse(undefined)).toBe(1);
    expect(numeroDePageSchema.parse('1')).toBe(1);
    expect(numeroDePageSchema.parse('42')).toBe(42);
    expect(numeroDePageSchema.parse(1_000_000)).toBe(1_000_000);
  });

  it('are refused in French when not a whole number from 1 to a million', () => {
    expect(refus(numeroDePageSchema, 'abc')).toEqual({ _: 'La page doit être un nombre.' });
    expect(refus(numeroDePageSchema, '2.5')).toEqual({ _: 'La page doit être un nombre entier.' });
    expect(refus(numeroDePageSchema, '0')).toEqual({ _: 'Les pages commencent à 1.' });
    expect(refus(numeroDePageSchema, '1000001')).toEqual({ _: 'Cette page est trop loin.' });
  });
});
