import { describe, expect, it } from 'vitest';
import {
  ETAPES,
  etapeIndex,
  isStatut,
  STATUT_COULEUR_TEXTE,
  STATUT_COULEURS,
  STATUT_EXPLICATIONS,
  STATUT_INITIAL,
  STATUT_REFUSE,
  statutRang,
  STATUTS,
  STATUTS_DEFINIS,
} from './statut.js';

/** docs/produit.md « Statuts »: the eight statuses, their stored rank and their colour. */
const ATTENDUS = [
  ['En attente des documents', 10, '#808080'],
  ['En cours de traitement', 20, '#A9A9A9'],
  ['Demande envoyée', 30, '#E9D66B'],
  ['En attente', 40, '#FFBF00'],
  ['Passage CAL', 50, '#00BFFF'],
  ['Attribué', 60, '#74C365'],
  ['Radiée', 80, '#C9A0DC'],
  ['Refusé', 90, '#FF7F7F'],
] as const;

describe('statuses', () => {
  it('defines the eight statuses in order, each with its rank and colour', () => {
    expect(STATUTS_DEFINIS.map((s) => [s.value, s.rang, s.couleur])).toEqual(ATTENDUS);
    expect(STATUTS).toEqual(ATTENDUS.map(([value]) => value));
    expect(STATUT_COULEURS).toEqual(Object.fromEntries(ATTENDUS.map(([value, , couleur]) => [value, couleur])));
    expect(STATUT_COULEUR_TEXTE).toBe('#111111');
  });

  it('starts at « En attente des documents » and keeps Refusé out of the progress bar', () => {
    expect(STATUT_INITIAL).toBe('En attente des documents');
    expect(STATUT_REFUSE).toBe('Refusé');
    expect(ETAPES).toEqual(ATTENDUS.slice(0, 6).map(([value]) => value));
    ATTENDUS.slice(0, 6).forEach(([value], i) => expect(etapeIndex(value)).toBe(i));
    expect(etapeIndex('Refusé')).toBe(-1);
    expect(etapeIndex('Radiée')).toBe(-1);
  });

  it('gives each status its stored sort rank: steps in order, Refusé last', () => {
    for (const [value, rang] of ATTENDUS) expect(statutRang(value)).toBe(rang);
  });

  it('recognises the seven statuses and nothing else', () => {
    for (const [value] of ATTENDUS) expect(isStatut(value)).toBe(true);
    for (const other of ['', 'refusé', 'Refuse', ' Attribué', 'Inconnu', 10, null, undefined, ['Attribué'], { value: 'Attribué' }]) {
      expect(isStatut(other), String(other)).toBe(false);
    }
  });
});

describe('STATUT_EXPLICATIONS', () => {
  it('explains every status, and only them, in one French sentence for the applicant', () => {
    expect(Object.keys(STATUT_EXPLICATIONS).sort()).toEqual([...STATUTS].sort());
    for (const statut of STATUTS) {
      const explication = STATUT_EXPLICATIONS[statut];
      expect(explication.trim(), statut).not.toBe('');
      expect(explication, statut).toMatch(/^\p{Lu}[^]*\.$/u);
      // Typographic apostrophes, and « » with no-break spaces.
      expect(explication, statut).not.toMatch(/'/u);
      expect(explication, statut).not.toMatch(/« | »/u);
    }
  });
});
