// The wrappers of Kysely's driver (src/server/db/mandataire.ts): methods keep their own `this`, each bound once, a
// method replaced since is the new one, and the overrides come first.
import { describe, expect, it } from 'vitest';
import { mandataire } from '../src/server/db/mandataire.js';

class Pilote {
  #secret = 'privé';
  nom = 'pilote';
  lire(): string {
    return this.#secret;
  }
  ecrire(): string {
    return `écrit par ${this.nom}`;
  }
}

describe('mandataire', () => {
  it('calls the target’s methods on the target itself, private fields included, and lets the overrides answer first', () => {
    const cible = new Pilote();
    const m = mandataire(cible, { ecrire: () => 'remplacé' });
    expect(m.lire()).toBe('privé');
    expect(m.ecrire()).toBe('remplacé');
    expect(m.nom).toBe('pilote');
  });

  it('binds each method once: the same function at every read, until the method itself changes', () => {
    const cible = new Pilote();
    const m = mandataire(cible, {});
    const premiere = m.lire;
    expect(m.lire).toBe(premiere);
    cible.lire = () => 'nouvelle';
    expect(m.lire).not.toBe(premiere);
    expect(m.lire()).toBe('nouvelle');
  });
});
