// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { STATUT_EXPLICATIONS } from '../../../domain/statut.js';
import { renderWithProviders } from '../../test-utils.js';
import { ProgressBar } from './ProgressBar.js';

function steps() {
  return within(screen.getByRole('list')).getAllByRole('listitem');
}

describe('ProgressBar', () => {
  it('marks the steps up to the current one active, in their colour, and says which step it is', () => {
    renderWithProviders(<ProgressBar statut="Demande envoyée" />);
    expect(screen.getByText('Étape 3 sur 6 : Demande envoyée')).toBeInTheDocument();
    const items = steps();
    expect(items).toHaveLength(6);
    expect(items.map((li) => li.getAttribute('data-active'))).toEqual(['true', 'true', 'true', 'false', 'false', 'false']);
    expect(items[2]).toHaveAttribute('aria-current', 'step');
    expect(items[2]).toHaveTextContent('Demande envoyée (étape actuelle)');
    expect(items[0]).toHaveTextContent('(étape franchie)');
    expect(items[5]).toHaveTextContent('(étape à venir)');
    const bar = items[2]!.querySelector('span') as HTMLElement;
    expect(bar.style.background).toBe('rgb(233, 214, 107)'); // #E9D66B
  });

  it('lights every step at Attribué', () => {
    renderWithProviders(<ProgressBar statut="Attribué" />);
    expect(steps().every((li) => li.getAttribute('data-active') === 'true')).toBe(true);
  });

  it('says what the current status means, in plain text under it', () => {
    renderWithProviders(<ProgressBar statut="Passage CAL" />);
    expect(screen.getByText('Étape 5 sur 6 : Passage CAL')).toBeInTheDocument();
    expect(screen.getByText(STATUT_EXPLICATIONS['Passage CAL'])).toBeVisible();
    expect(screen.getByText(/commission d’attribution des logements \(CAL\)/u)).toBeInTheDocument();
  });

  it('shows Refusé on its own: the status, what it means and its reason, never the six steps', () => {
    renderWithProviders(<ProgressBar statut="Refusé" motif="Vos ressources dépassent le plafond." />);
    expect(screen.getByText('Statut : Refusé')).toBeInTheDocument();
    expect(screen.getByText('Demande refusée')).toBeInTheDocument();
    expect(screen.getByText(STATUT_EXPLICATIONS.Refusé)).toBeInTheDocument();
    expect(screen.getByText('Motif : Vos ressources dépassent le plafond.')).toBeInTheDocument();
    expect(screen.queryByRole('list')).toBeNull();
    expect(document.body).not.toHaveTextContent(/étape/iu);
  });

  it('shows Refusé without a reason when none was given', () => {
    renderWithProviders(<ProgressBar statut="Refusé" />);
    expect(screen.queryByText(/^Motif/u)).toBeNull();
  });

  it('shows Radiée on its own too, saying it can be reactivated, without the six steps', () => {
    renderWithProviders(<ProgressBar statut="Radiée" />);
    expect(screen.getByText('Statut : Radiée')).toBeInTheDocument();
    expect(screen.getByText('Demande radiée')).toBeInTheDocument();
    expect(screen.getByText(/vous pouvez la réactiver/u)).toBeInTheDocument();
    expect(screen.queryByRole('list')).toBeNull();
    expect(document.body).not.toHaveTextContent(/étape à venir/u);
  });
});
