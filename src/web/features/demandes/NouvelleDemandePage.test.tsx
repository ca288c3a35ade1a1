// @vitest-environment jsdom
import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../domain/erreurs.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { NouvelleDemandePage } from './NouvelleDemandePage.js';

const { answers } = recordFetch();

afterEach(() => {
  sessionStorage.clear();
  localStorage.clear();
});

describe('« Nouvelle demande de logement »', () => {
  it('says in the page’s title, as in its heading, that the request is saved', async () => {
    answers['POST /app/api/logement'] = {
      status: 201,
      body: {
        data: {
          numeroUnique: '013abc12345',
          statutDeLaDemande: 'En attente',
          email: 'helene@example.org',
          accessKey: 'cle',
          privateLink: 'http://quartier.test/logement/013abc12345#cle=cle',
        },
      },
    };
    const user = userEvent.setup();
    renderWithProviders(<NouvelleDemandePage />);
    await waitFor(() => expect(document.title).toBe('Nouvelle demande de logement — Quartier Vivant'));

    await user.type(screen.getByLabelText(/Numéro unique/u), '013 ABC 12345');
    await user.type(screen.getByLabelText(/^Prénom/u), 'Hélène');
    await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'helene@example.org');
    await user.type(screen.getByLabelText(/^Motivations/u), 'Logement trop petit');
    await user.click(screen.getByRole('button', { name: 'Enregistrer ma demande' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Votre demande est enregistrée' })).toBeInTheDocument();
    expect(document.title).toBe('Demande enregistrée — Nouvelle demande de logement — Quartier Vivant');
    // The banner is a status message, with no alert inside it.
    expect(screen.getByRole('status')).toHaveTextContent(MESSAGES.enregistre);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
