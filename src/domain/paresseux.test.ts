import { describe, expect, it } from 'vitest';
import { aLaPremiereUtilisation } from './paresseux.js';

describe('aLaPremiereUtilisation', () => {
  it('makes the value at its first use only, then gives the same one', () => {
    const made: number[] = [];
    const valeur = aLaPremiereUtilisation(() => {
      made.push(made.length);
      return { n: made.length };
    });
    expect(made).toEqual([]);
    const premiere = valeur();
    expect(valeur()).toBe(premiere);
    expect(made).toEqual([0]);
  });
});
