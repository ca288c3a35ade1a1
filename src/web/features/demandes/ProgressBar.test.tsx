// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
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

  it('shows Refusé on its own, outside the bar, with no step active', () => {
    renderWithProviders(<ProgressBar statut="Refusé" />);
    expect(screen.getByText('Statut : Refusé')).toBeInTheDocument();
    expect(screen.getByText('Demande refusée')).toBeInTheDocument();
    expect(steps().some((li) => li.getAttribute('data-active') === 'true')).toBe(false);
    expect(steps().map((li) => li.textContent)).not.toContain('Refusé');
  });

  it('shows Radiée on its own too, outside the bar, saying it can be reactivated', () => {
    renderWithProviders(<ProgressBar statut="Radiée" />);
    expect(screen.getByText('Statut : Radiée')).toBeInTheDocument();
    expect(screen.getByText('Demande radiée')).toBeInTheDocument();
    expect(screen.getByText(/vous pouvez la réactiver/u)).toBeInTheDocument();
    expect(steps().some((li) => li.getAttribute('data-active') === 'true')).toBe(false);
    expect(steps().map((li) => li.textContent)).not.toContain('Radiée');
  });
});
