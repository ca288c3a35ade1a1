// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../test-utils.js';
import { NumeroLookup } from './NumeroLookup.js';

describe('NumeroLookup', () => {
  it('asks for the numéro unique of a housing request by default, with its example', async () => {
    const onFound = vi.fn();
    renderWithProviders(<NumeroLookup label="Numéro unique de la demande" submitLabel="Voir ma demande" onFound={onFound} />);
    const champ = screen.getByRole('textbox', { name: 'Numéro unique de la demande' });
    expect(champ).toHaveAttribute('placeholder', '013…');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Voir ma demande' }));
    expect(await screen.findByText('Saisissez votre numéro unique.')).toBeInTheDocument();
    await user.type(champ, ' 013 ABC ');
    await user.click(screen.getByRole('button', { name: 'Voir ma demande' }));
    expect(onFound).toHaveBeenCalledWith('013abc');
  });

  it('says what the service asks for when told', async () => {
    renderWithProviders(<NumeroLookup label="Numéro du signalement" requiredMessage="Saisissez le numéro de votre signalement." placeholder="" submitLabel="Suivre" onFound={vi.fn()} />);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Suivre' }));
    expect(await screen.findByText('Saisissez le numéro de votre signalement.')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Numéro du signalement' })).not.toHaveAttribute('placeholder');
  });
});
