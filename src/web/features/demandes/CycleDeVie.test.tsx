// @vitest-environment jsdom
import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { CycleDeVie as Cycle } from '../../../domain/cycleDeVie.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { CycleDeVie } from './CycleDeVie.js';

const { calls, answers } = recordFetch();
const jour = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString();

const URL_CYCLE = '/app/api/logement/013ABC12345/cycle-de-vie';

describe('« Validité de la demande »', () => {
  it('shows until when, renews in one click and says so, the focus on the message', async () => {
    const cycle: Cycle = { valideJusqua: jour(20), renouvelableDes: jour(-40), radieeLe: null, reactivableJusqua: null, clotureeLe: null, effaceeAPartirDu: null };
    answers[`GET ${URL_CYCLE}`] = { status: 200, body: { data: cycle } };
    answers['POST /app/api/logement/013ABC12345/renouveler'] = { status: 200, body: { data: { ...cycle, valideJusqua: '2031-05-06T10:00:00.000Z' } } };
    renderWithProviders(<CycleDeVie numero="013ABC12345" />);
    expect(await screen.findByText(/^Valable jusqu’au/u)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Télécharger l’attestation d’enregistrement (PDF, environ 20\u00a0Ko)' })).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Renouveler ma demande' }));
    const message = await screen.findByText('Votre demande est renouvelée : elle est valable jusqu’au 06/05/2031.');
    expect(calls.some((c) => c.method === 'POST' && c.url.endsWith('/renouveler'))).toBe(true);
    await waitFor(() => expect(message.closest('[role="status"]')).toHaveFocus());
  });

  it('waits for the renewal window, and offers « Réactiver » once struck off', async () => {
    answers[`GET ${URL_CYCLE}`] = { status: 200, body: { data: { valideJusqua: jour(200), renouvelableDes: jour(140), radieeLe: null, reactivableJusqua: null, clotureeLe: null, effaceeAPartirDu: null } } };
    const { unmount } = renderWithProviders(<CycleDeVie numero="013ABC12345" />);
    expect(await screen.findByText(/vous pourrez la renouveler à partir du/u)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Renouveler ma demande' })).toBeNull();
    unmount();
    answers[`GET ${URL_CYCLE}`] = { status: 200, body: { data: { valideJusqua: jour(-40), renouvelableDes: null, radieeLe: jour(-10), reactivableJusqua: jour(140), clotureeLe: jour(-10), effaceeAPartirDu: jour(355) } } };
    renderWithProviders(<CycleDeVie numero="013ABC12345" />);
    expect(await screen.findByText(/Vous pouvez la réactiver jusqu’au/u)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Réactiver ma demande' })).toBeInTheDocument();
    expect(screen.getByText(/seront effacés à partir du/u)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Télécharger l’attestation/u })).toBeNull();
  });

  it('once closed, says since when and from when it is erased, with no validity date nor attestation', async () => {
    const cycle: Cycle = {
      valideJusqua: '2027-03-01T08:00:00.000Z',
      renouvelableDes: null,
      radieeLe: null,
      reactivableJusqua: null,
      clotureeLe: '2026-04-10T09:00:00.000Z',
      effaceeAPartirDu: '2027-04-10T09:00:00.000Z',
    };
    answers[`GET ${URL_CYCLE}`] = { status: 200, body: { data: cycle } };
    renderWithProviders(<CycleDeVie numero="013ABC12345" />);
    expect(await screen.findByText('Demande close le 10/04/2026 : elle n’a plus de date de validité.')).toBeInTheDocument();
    expect(screen.getByText('Ses données personnelles et ses documents seront effacés à partir du 10/04/2027 ; seul l’historique anonyme de ses statuts restera.')).toBeInTheDocument();
    expect(screen.queryByText(/Valable jusqu’au/u)).toBeNull();
    expect(screen.queryByRole('button', { name: /Télécharger l’attestation/u })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Renouveler ma demande' })).toBeNull();
  });
});
