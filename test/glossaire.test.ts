import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ETAPES, STATUT_EXPLICATIONS, STATUTS } from '../src/domain/statut.js';

const glossaire = fs.readFileSync(new URL('../docs/glossaire.md', import.meta.url), 'utf8');

describe('docs/glossaire.md', () => {
  it('explains each status with the words the site shows (STATUT_EXPLICATIONS), in the order of the steps', () => {
    for (const statut of STATUTS) {
      const etape = ETAPES.indexOf(statut);
      const ligne = `- **${statut}** (${etape >= 0 ? `étape ${etape + 1} sur ${ETAPES.length}` : 'hors des étapes'}) : ${STATUT_EXPLICATIONS[statut]}`;
      expect(glossaire.split('\n'), statut).toContain(ligne);
    }
    const positions = STATUTS.map((statut) => glossaire.indexOf(`- **${statut}** (`));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });

  it('is linked from docs/produit.md and writes French apostrophes and no-break spaces in « »', () => {
    expect(fs.readFileSync(new URL('../docs/produit.md', import.meta.url), 'utf8')).toContain('](glossaire.md)');
    expect(glossaire).not.toMatch(/'/u);
    expect(glossaire).not.toMatch(/« | »/u);
  });
});
