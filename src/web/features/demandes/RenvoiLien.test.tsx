// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { RenvoiLien } from './RenvoiLien.js';

const { answers } = recordFetch();
const RENVOYER = 'POST /app/api/logement/013abc12345/renvoyer-lien';

async function demander(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/^Adresse e-mail de la demande/u), 'helene@example.org');
  await user.click(screen.getByRole('button', { name: 'Recevoir un nouveau lien' }));
}

describe('« Vous avez perdu votre lien privé ? »', () => {
  it('says the answer as a status message, not an alert', async () => {
    answers[RENVOYER] = { status: 200, body: { data: { message: 'Si cette adresse est celle de la demande, un nouveau lien privé vient d’y être envoyé.' } } };
    const user = userEvent.setup();
    renderWithProviders(<RenvoiLien numero="013abc12345" />);
    const statut = screen.getByRole('status');
    expect(statut).toBeEmptyDOMElement();
    await demander(user);
    expect(await within(statut).findByText('Si cette adresse est celle de la demande, un nouveau lien privé vient d’y être envoyé.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says a failure as an alert', async () => {
    answers[RENVOYER] = { status: 429, body: { error: { code: 'RATE_LIMITED', message: 'Trop de demandes de lien pour cette adresse.' } } };
    const user = userEvent.setup();
    renderWithProviders(<RenvoiLien numero="013abc12345" />);
    await demander(user);
    expect(await screen.findByRole('alert')).toHaveTextContent('Trop de demandes de lien pour cette adresse.');
    expect(screen.getByRole('status')).toBeEmptyDOMElement();
  });
});
