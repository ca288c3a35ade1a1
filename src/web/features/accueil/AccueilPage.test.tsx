// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test-utils.js';
import { AccueilPage } from './AccueilPage.js';

describe('the landing page’s « Sécurité » card', () => {
  it('leads to /securite, says what the page holds, and no longer says « Bientôt disponible » for it', () => {
    renderWithProviders(<AccueilPage />);
    const carte = screen.getByRole('link', { name: /^Sécurité/u });
    expect(carte).toHaveAttribute('href', '/securite');
    expect(carte).toHaveTextContent('Les numéros d’urgence et les services en ligne de l’État pour signaler une infraction ou porter plainte.');
    expect(carte).not.toHaveTextContent(/bientôt/iu);
    expect(carte).not.toHaveTextContent('Signalez une situation');
  });
});
