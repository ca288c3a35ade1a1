// @vitest-environment jsdom
import { screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../domain/erreurs.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { MotDePasseOubliePage, NouveauMotDePassePage } from './MotDePassePages.js';

// The network is the browser's fetch: recorded here so the tests can say what was (not) sent.
const { calls, answers } = recordFetch();

function renderAt(url: string) {
  return renderWithProviders(
    <Routes>
        <Route path="/connexion/nouveau-mot-de-passe" element={<NouveauMotDePassePage />} />
        <Route path="/connexion/mot-de-passe-oublie" element={<MotDePasseOubliePage />} />
    </Routes>,
    { url },
  );
}

// As read on the page (toHaveTextContent reads its non-breaking spaces as spaces).
const PERIME_LU = MESSAGES.lienMotDePassePerime.replace(/\s+/gu, ' ');
const PERIME = { status: 400, body: { error: { code: 'INVALID_TOKEN', message: MESSAGES.lienMotDePassePerime } } };

describe('a reset link that cannot serve', () => {
  it('opened already refused (?error=INVALID_TOKEN): the server’s words and « Demander un nouveau lien », no form', async () => {
    renderAt('/connexion/nouveau-mot-de-passe?error=INVALID_TOKEN');
    const alerte = await screen.findByRole('alert');
    expect(alerte).toHaveTextContent(PERIME_LU);
    expect(screen.getByRole('link', { name: 'Demander un nouveau lien' })).toHaveAttribute('href', '/connexion/mot-de-passe-oublie');
    expect(screen.queryByLabelText(/^Nouveau mot de passe/u)).not.toBeInTheDocument();
  });

  it('refused when the password is sent (used or expired meanwhile): the same, and the way to a new one works', async () => {
    answers['POST /app/api/auth/reset-password'] = PERIME;
    const user = userEvent.setup();
    renderAt('/connexion/nouveau-mot-de-passe?token=abc');
    await user.type(screen.getByLabelText(/^Nouveau mot de passe/u), 'les platanes du cours mirabeau');
    await user.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(PERIME_LU);
    expect(calls).toEqual([{ url: '/app/api/auth/reset-password', method: 'POST', body: { token: 'abc', newPassword: 'les platanes du cours mirabeau' } }]);
    await user.click(screen.getByRole('link', { name: 'Demander un nouveau lien' }));
    expect(await screen.findByRole('heading', { name: 'Mot de passe oublié' })).toBeInTheDocument();
  });

  it('without its token (cut when copied): says so, with the same way to a new one', async () => {
    renderAt('/connexion/nouveau-mot-de-passe');
    expect(await screen.findByRole('alert')).toHaveTextContent('Ce lien est incomplet');
    expect(screen.getByRole('link', { name: 'Demander un nouveau lien' })).toBeInTheDocument();
  });

  it('keeps the form for any other refusal (a password too easy to guess), said on the field', async () => {
    answers['POST /app/api/auth/reset-password'] = {
      status: 400,
      body: { error: { code: 'PASSWORD_TOO_COMMON', message: 'Ce mot de passe est trop facile à deviner.' } },
    };
    const user = userEvent.setup();
    renderAt('/connexion/nouveau-mot-de-passe?token=abc');
    await user.type(screen.getByLabelText(/^Nouveau mot de passe/u), 'motdepasse123456');
    await user.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Ce mot de passe est trop facile à deviner.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Demander un nouveau lien' })).not.toBeInTheDocument();
    // The next attempt, refused before any call, does not keep the server's message beside its own.
    await user.clear(screen.getByLabelText(/^Nouveau mot de passe/u));
    await user.type(screen.getByLabelText(/^Nouveau mot de passe/u), 'court');
    await user.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Le mot de passe doit contenir au moins 12 caractères.')).toBeInTheDocument();
    expect(screen.queryByText('Ce mot de passe est trop facile à deviner.')).not.toBeInTheDocument();
    // Typing a long enough one again: the old refusal does not come back from under the field's message.
    await user.clear(screen.getByLabelText(/^Nouveau mot de passe/u));
    await user.type(screen.getByLabelText(/^Nouveau mot de passe/u), 'les platanes du cours mirabeau');
    expect(screen.queryByText('Le mot de passe doit contenir au moins 12 caractères.')).not.toBeInTheDocument();
    expect(screen.queryByText('Ce mot de passe est trop facile à deviner.')).not.toBeInTheDocument();
  });
});

describe('« Mot de passe oublié »', () => {
  it('drops the server’s refusal at the next attempt, also when the address is refused before any call', async () => {
    answers['POST /app/api/auth/request-password-reset'] = {
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'Trop de demandes de lien pour cette adresse. Réessayez dans 2 minutes.' } },
    };
    const user = userEvent.setup();
    renderAt('/connexion/mot-de-passe-oublie');
    await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'lucas@example.org');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByText(/Trop de demandes de lien/u)).toBeInTheDocument();
    await user.clear(screen.getByLabelText(/^Adresse e-mail/u));
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByText("L’adresse e-mail est obligatoire.")).toBeInTheDocument();
    // Typing a valid address again: the old refusal does not come back from under the field's message.
    await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'lucas@example.org');
    expect(screen.queryByText(/Trop de demandes de lien/u)).not.toBeInTheDocument();
  });
});
