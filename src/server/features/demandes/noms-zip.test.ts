import { describe, expect, it } from 'vitest';
import { CATEGORIE_PIECE, CATEGORIES, libelleCategorie, nomDeFichierCategorie } from '../../../domain/documents.js';
import { foldForSearch } from '../../../domain/normalise.js';
import { nomsDansLeZip } from './upload.js';

const doc = (id: string, category: string, position: number, nom: string) => ({ id, category, position, storageKey: `r1/${id}/${category}-${position}-${nom}` });

describe('nomDeFichierCategorie', () => {
  it('names each category in French, in words of its label', () => {
    expect(Object.fromEntries([...CATEGORIES.map((c) => c.value), CATEGORIE_PIECE].map((c) => [c, nomDeFichierCategorie(c)]))).toEqual({
      livret: 'livret-famille',
      identity: 'piece-identite',
      tax: 'avis-imposition',
      salary: 'bulletin-salaire',
      other: 'autre-document',
      message: 'piece-jointe-message',
    });
    for (const c of [...CATEGORIES.map((c) => c.value), CATEGORIE_PIECE]) {
      // Every word of the file name is a word of the label, in the singular.
      const label = foldForSearch(libelleCategorie(c));
      for (const word of nomDeFichierCategorie(c).split('-')) expect(label).toContain(word);
    }
  });

  it('makes a safe name of an unknown category’s label', () => {
    expect(nomDeFichierCategorie('Quittance de loyer')).toBe('quittance-de-loyer');
    expect(nomDeFichierCategorie('../../etc')).toBe('etc');
    expect(nomDeFichierCategorie('«»')).toBe('document');
    expect(nomDeFichierCategorie('toString')).toBe('tostring');
    expect(nomDeFichierCategorie('x'.repeat(100))).toHaveLength(40);
  });
});

describe('nomsDansLeZip', () => {
  it('names each document by its French category, its position and its stored name', () => {
    const noms = nomsDansLeZip([doc('a', 'identity', 1, 'cni.pdf'), doc('b', 'tax', 2, 'avis_2025.pdf'), doc('c', 'salary', 1, 'mars.jpg'), doc('d', 'message', 1, 'photo.png')]);
    expect([...noms]).toEqual([
      ['a', 'piece-identite-1-cni.pdf'],
      ['b', 'avis-imposition-2-avis_2025.pdf'],
      ['c', 'bulletin-salaire-1-mars.jpg'],
      ['d', 'piece-jointe-message-1-photo.png'],
    ]);
  });

  it('reads the stored name from a key without the position (files kept since positions are given on recording)', () => {
    const noms = nomsDansLeZip([
      { id: 'a', category: 'tax', position: 2, storageKey: 'r1/a/tax-avis_2025.pdf' },
      { id: 'b', category: 'tax', position: 3, storageKey: 'r1/b/tax-3-avis.pdf' },
      { id: 'c', category: 'other', position: 1, storageKey: 'r1/c/other-1-2-notes.pdf' },
    ]);
    expect([...noms]).toEqual([
      ['a', 'avis-imposition-2-avis_2025.pdf'],
      ['b', 'avis-imposition-3-avis.pdf'],
      ['c', 'autre-document-1-2-notes.pdf'],
    ]);
  });

  it('keeps names unique, whatever the case, and safe, whatever the stored key', () => {
    const noms = nomsDansLeZip([
      doc('a', 'identity', 1, 'cni.pdf'),
      doc('b', 'identity', 1, 'cni.pdf'),
      doc('c', 'identity', 1, 'CNI.pdf'),
      { id: 'd', category: 'other', position: 3, storageKey: 'r1/d/../../secret .PDF' },
    ]);
    expect([...noms.values()]).toEqual(['piece-identite-1-cni.pdf', 'piece-identite-1-cni-2.pdf', 'piece-identite-1-CNI-3.pdf', 'autre-document-3-secret.pdf']);
  });
});
