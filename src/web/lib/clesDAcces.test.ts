// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { brouillonDemande, brouillonSignalement } from './brouillon.js';
import { getCleSignalement, saveCleSignalement } from './clesSignalements.js';
import { estMemorisee, getCle, numerosEnregistres, oublierToutesLesCles, saveCle, setSeSouvenir, takeCleFromHash } from './clesDAcces.js';

const STORAGE_KEY = 'quartier-vivant.cles';

describe('private keys kept on this device', () => {
  beforeEach(() => {
    localStorage.clear();
    sessionStorage.clear();
  });

  it('keeps a key for the browser session only unless the resident asks to be remembered', () => {
    saveCle('013a', 'cle-a');
    expect(sessionStorage.getItem(STORAGE_KEY)).toBe(JSON.stringify({ '013a': 'cle-a' }));
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(estMemorisee('013a')).toBe(false);

    setSeSouvenir('013a', true);
    expect(localStorage.getItem(STORAGE_KEY)).toBe(JSON.stringify({ '013a': 'cle-a' }));
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(getCle('013a')).toBe('cle-a');

    setSeSouvenir('013a', false);
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(getCle('013a')).toBe('cle-a');
  });

  it('still reads keys that earlier versions left in localStorage, as remembered', () => {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ '013ancien': 'cle-ancienne', bad: 3 }));
    saveCle('013b', 'cle-b');
    expect(getCle('013ancien')).toBe('cle-ancienne');
    expect(estMemorisee('013ancien')).toBe(true);
    expect(numerosEnregistres()).toEqual(['013ancien', '013b']);
  });

  it('forgets every key from both storages', () => {
    localStorage.setItem('autre', 'x');
    saveCle('013a', 'cle-a', true);
    saveCle('013b', 'cle-b');
    oublierToutesLesCles();
    expect(localStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
    expect(numerosEnregistres()).toEqual([]);
    expect(getCle('013a')).toBeUndefined();
    expect(localStorage.getItem('autre')).toBe('x');
  });

  it('forgets the technical reports’ keys and both drafts too (sign-out on a shared computer)', () => {
    saveCleSignalement('2026-00042', 'cle-signalement');
    brouillonDemande.ecrire({ prenom: 'Hélène' });
    brouillonSignalement.ecrire({ email: 'helene@example.org' });
    oublierToutesLesCles();
    expect(getCleSignalement('2026-00042')).toBeUndefined();
    expect(brouillonDemande.lire()).toBeNull();
    expect(brouillonSignalement.lire()).toBeNull();
    expect(Object.keys(localStorage).filter((k) => k.startsWith('quartier-vivant.'))).toEqual([]);
    expect(Object.keys(sessionStorage).filter((k) => k.startsWith('quartier-vivant.'))).toEqual([]);
  });

  it('takes the key from the address into the session and removes it from the address', () => {
    window.history.replaceState(null, '', '/logement/013c#cle=abc_DEF-123');
    expect(takeCleFromHash('013c')).toBe(true);
    expect(window.location.hash).toBe('');
    expect(JSON.parse(sessionStorage.getItem(STORAGE_KEY)!)).toEqual({ '013c': 'abc_DEF-123' });
    expect(takeCleFromHash('013c')).toBe(false);
  });

  it('keeps a remembered key remembered when its link is opened again', () => {
    saveCle('013d', 'ancienne', true);
    window.history.replaceState(null, '', '/logement/013d#cle=nouvelle');
    takeCleFromHash('013d');
    expect(JSON.parse(localStorage.getItem(STORAGE_KEY)!)).toEqual({ '013d': 'nouvelle' });
    expect(sessionStorage.getItem(STORAGE_KEY)).toBeNull();
  });
});
