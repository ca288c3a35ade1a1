// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { DemandeComplete } from '../../../domain/demande.js';
import { renderWithProviders } from '../../test-utils.js';
import { Details } from './DemandePage.js';

const demande: DemandeComplete = {
  acces: 'complet',
  id: 'd1',
  numeroUnique: '013abc12345',
  prenom: 'Hélène',
  nom: '',
  sexe: 'femme',
  dateDeNaissance: '1990-03-15',
  email: 'helene@example.org',
  numeroDeTelephone: '',
  adresse: '12 Avenue Marcel-Pagnol',
  adresseComplement: '',
  codePostal: '13090',
  ville: 'Aix-en-Provence',
  salaireBrut: 1850.5,
  salaireAvisImpot1: null,
  salaireAvisImpot2: null,
  situationFamiliale: 'marie',
  nombreDEnfants: 0,
  logementActuel: 'appartement',
  typeDeLogementActuel: 't2',
  quartierActuel: 'jas de bouffan',
  bailleurActuel: 'pah',
  typeDeLogementSouhaite: 't3',
  quartierSouhaite: ['encagnane', 'pasDePreference'],
  dateDEnregistrement: '2026-01-01T00:00:00.000Z',
  statutDeLaDemande: 'En attente des documents',
  motivations: 'Logement trop petit',
  commentaires: '',
  documents: { livret: [], identity: [], tax: [], salary: [], other: [] },
  correction: null,
};

/** The value a description list gives to a term. */
function valeur(terme: string): string | null {
  const dt = screen.getByText(terme, { selector: 'dt' });
  return dt.nextElementSibling?.tagName === 'DD' ? dt.nextElementSibling.textContent : null;
}

describe('the detail of a request', () => {
  it('reads every field as people read it, from the field table', () => {
    renderWithProviders(<Details demande={demande} />);
    expect(valeur('Prénom')).toBe('Hélène');
    expect(valeur('Sexe')).toBe('Femme');
    expect(valeur('Date de naissance')).toBe('15/03/1990');
    expect(valeur('Situation familiale')).toBe('Marié(e)');
    expect(valeur("Nombre d’enfants")).toBe('0');
    expect(valeur('Quartier actuel')).toBe('Jas de Bouffan');
    expect(valeur('Bailleur actuel')).toBe("Pays d’Aix Habitat");
    expect(valeur('Quartiers souhaités')).toBe('Encagnane, Pas de préférence');
    expect(valeur('Salaire brut mensuel')?.replace(/\s/gu, ' ')).toBe('1 850,50 €');
  });

  it('says "Non renseigné" for what was not given', () => {
    renderWithProviders(<Details demande={demande} />);
    expect(valeur('Nom')).toBe('Non renseigné');
    expect(valeur('Téléphone')).toBe('Non renseigné');
    expect(valeur('Revenu fiscal N-1')).toBe('Non renseigné');
    expect(valeur('Commentaires')).toBe('Non renseigné');
  });

  it('groups the fields in titled sections, each a description list', () => {
    renderWithProviders(<Details demande={demande} />);
    const titres = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(titres).toEqual(['Identité et coordonnées', 'Situation', 'Logement souhaité', 'Ressources', 'Motivations et commentaires']);
    const ressources = screen.getByRole('heading', { name: 'Ressources' }).closest('section')!;
    expect(within(ressources).getAllByRole('term').map((t) => t.textContent)).toEqual(['Salaire brut mensuel', 'Revenu fiscal N-1', 'Revenu fiscal N-2']);
  });
});
