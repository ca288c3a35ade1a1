// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { ConfirmationAlertePage, DesabonnementPage } from './LiensEmailPages.js';

const { calls, answers } = recordFetch();
const JETON = 'jeton-de-test_0123456789abcdef';

afterEach(() => window.history.replaceState(null, '', '/'));

describe('the pages of the e-mailed links', () => {
  it('unsubscribes from a report with the token of the fragment, once, and takes it out of the address', async () => {
    window.history.replaceState(null, '', `/technique/desabonnement#jeton=${JETON}`);
    answers['POST /app/api/technique/desabonnement'] = { status: 200, body: { data: { quoi: 'suivi', numero: '2026-00042' } } };
    renderWithProviders(<DesabonnementPage />, { url: '/technique/desabonnement' });
    await screen.findByText('C’est fait');
    expect(screen.getByRole('status')).toHaveTextContent('Vous ne recevrez plus d’e-mail sur le signalement n° 2026-00042.');
    expect(screen.getByRole('link', { name: 'n° 2026-00042' })).toHaveAttribute('href', '/technique/2026-00042');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([{ url: '/app/api/technique/desabonnement', method: 'POST', body: { jeton: JETON } }]);
    expect(window.location.hash).toBe('');
  });

  it('says how to go on when the link is cut or no longer works', async () => {
    window.history.replaceState(null, '', '/technique/alertes/confirmation');
    const premier = renderWithProviders(<ConfirmationAlertePage />, { url: '/technique/alertes/confirmation' });
    expect(screen.getByRole('alert')).toHaveTextContent('Le lien est incomplet : ouvrez-le de nouveau depuis l’e-mail reçu, en entier.');
    expect(calls).toEqual([]);
    premier.unmount();

    window.history.replaceState(null, '', `/technique/alertes/confirmation#jeton=${JETON}`);
    answers['POST /app/api/technique/alertes/confirmer'] = { status: 404, body: { error: { code: 'NOT_FOUND', message: 'Ce lien ne fonctionne plus.' } } };
    renderWithProviders(<ConfirmationAlertePage />, { url: '/technique/alertes/confirmation' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Ce lien ne fonctionne plus. Vous pouvez aussi en demander une nouvelle depuis la page des signalements.');
    expect(screen.queryByRole('button', { name: 'Réessayer' })).toBeNull();
  });

  it('offers to try again with the same token when the network failed (the address no longer holds it), not when the link is dead', async () => {
    window.history.replaceState(null, '', `/technique/desabonnement#jeton=${JETON}`);
    answers['POST /app/api/technique/desabonnement'] = () => {
      throw new TypeError('Failed to fetch');
    };
    renderWithProviders(<DesabonnementPage />, { url: '/technique/desabonnement' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Le désabonnement n’a pas pu se faire');
    expect(window.location.hash).toBe('');
    answers['POST /app/api/technique/desabonnement'] = { status: 200, body: { data: { quoi: 'alerte', numero: null } } };
    await userEvent.click(screen.getByRole('button', { name: 'Réessayer' }));
    await screen.findByText('C’est fait');
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.body)).toEqual([{ jeton: JETON }, { jeton: JETON }]);
  });

  it('confirms the area alert', async () => {
    window.history.replaceState(null, '', `/technique/alertes/confirmation#jeton=${JETON}`);
    answers['POST /app/api/technique/alertes/confirmer'] = { status: 200, body: { data: { confirme: true } } };
    renderWithProviders(<ConfirmationAlertePage />, { url: '/technique/alertes/confirmation' });
    await screen.findByText('Votre alerte est confirmée');
    expect(screen.getByRole('status')).toHaveTextContent('Vous recevrez un e-mail à chaque nouveau signalement au Jas de Bouffan.');
  });
});
