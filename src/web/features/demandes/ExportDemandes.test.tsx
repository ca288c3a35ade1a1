// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { listeQuerySchema } from '../../../domain/demande.js';
import { renderWithProviders } from '../../test-utils.js';
import { ExportDemandes } from './ExportDemandes.js';

afterEach(() => localStorage.clear());

describe('« Exporter… »', () => {
  it('counts the chosen columns with the French plural, 0 and 1 in the singular', async () => {
    localStorage.setItem('qv-export-colonnes', JSON.stringify(['numeroUnique', 'statutDeLaDemande']));
    renderWithProviders(<ExportDemandes params={listeQuerySchema.parse({})} />);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Exporter…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Exporter la liste' });
    expect(within(dialog).getByRole('link', { name: 'Télécharger (2 colonnes)' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Statut' }));
    expect(within(dialog).getByRole('link', { name: 'Télécharger (1 colonne)' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Numéro unique' }));
    expect(within(dialog).getByRole('link', { name: 'Télécharger (0 colonne)' })).toBeInTheDocument();
  });
});
