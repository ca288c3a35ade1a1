import { describe, expect, it } from 'vitest';
import { separerComplement } from './adresses.js';

describe('separerComplement', () => {
  it.each([
    ['Bât. C, 12 av Jean Monnet', '12 av Jean Monnet', 'Bât. C'],
    ['12 av jean monnet, bât C', '12 av jean monnet', 'Bât C'],
    ['Résidence Les Lauriers 12 rue Paul Cézanne', '12 rue Paul Cézanne', 'Résidence Les Lauriers'],
    ['esc 3, apt 12, 8 avenue Marcel Pagnol', '8 avenue Marcel Pagnol', 'Esc 3, apt 12'],
    ['cité 2, 4 rue X', '4 rue X', 'Cité 2'],
  ])('« %s » searches « %s » and keeps « %s »', (saisie, recherche, complement) => {
    expect(separerComplement(saisie)).toEqual({ recherche, complement });
  });

  it.each(['12 rue Paul Cézanne', '8 rue de la cité', 'bâtiment', 'Avenue de l’Europe'])('« %s » is all street', (saisie) => {
    expect(separerComplement(saisie)).toEqual({ recherche: saisie, complement: '' });
  });
});
