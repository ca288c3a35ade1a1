import { describe, expect, it } from 'vitest';
import { connexionPour, destinationSure } from './session.js';

describe('destinationSure: where a person may be sent after signing in', () => {
  it('keeps a path of this site as it was given, with its query and fragment', () => {
    for (const path of ['/profile', '/logement/list?q=martin&page=2', '/logement/013ABC12345#documents', '/admin/utilisateurs', '/', '/technique/list?statut=ouvert']) {
      expect(destinationSure(path)).toBe(path);
    }
  });

  it('refuses anything that could leave the site: another host, a scheme, a backslash read as a slash', () => {
    for (const value of [
      '//evil.example/profile',
      '///evil.example',
      '/\\evil.example',
      '\\\\evil.example',
      'https://evil.example/profile',
      'http:/evil.example',
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'evil.example',
      'profile',
      './profile',
      '../profile',
      '/a\\b',
    ]) {
      expect(destinationSure(value), value).toBeNull();
    }
  });

  it('refuses the spaces and control characters a browser drops or reads as a slash', () => {
    for (const value of ['/\t/evil.example', '/\n/evil.example', '/\r/evil.example', ' /profile', '/profile ', '/\u0000profile', '/\u007f', '/pro file']) {
      expect(destinationSure(value), JSON.stringify(value)).toBeNull();
    }
  });

  it('refuses the sign-in and sign-out screens (no loop, no sign-out right after signing in), nothing and too much', () => {
    for (const value of ['/connexion', '/connexion?retour=/profile', '/connexion/mot-de-passe-oublie', '/deconnexion', '/invitation/abc', '', null, undefined, 42, {}, `/${'a'.repeat(2000)}`]) {
      expect(destinationSure(value), String(value).slice(0, 40)).toBeNull();
    }
    // A page whose name only starts like them is a page of its own.
    expect(destinationSure('/connexions')).toBe('/connexions');
  });
});

describe('connexionPour: the sign-in screen that brings the person back', () => {
  it('carries the destination in ?retour=, slashes kept readable, the rest encoded', () => {
    expect(connexionPour('/profile')).toBe('/connexion?retour=/profile');
    expect(connexionPour('/logement/list?q=martin&page=2')).toBe('/connexion?retour=/logement/list%3Fq%3Dmartin%26page%3D2');
    expect(new URLSearchParams(connexionPour('/logement/list?q=martin&page=2').split('?')[1]).get('retour')).toBe('/logement/list?q=martin&page=2');
  });

  it('is the plain sign-in screen when there is nowhere safe to come back to, or it is the home page', () => {
    for (const value of ['/', '//evil.example', 'https://evil.example', '/deconnexion', '', null, undefined]) {
      expect(connexionPour(value)).toBe('/connexion');
    }
  });
});
