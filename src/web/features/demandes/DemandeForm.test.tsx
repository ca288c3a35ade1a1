// @vitest-environment jsdom
import { screen, waitFor } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '../../test-utils.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { DemandeForm } from './NouvelleDemandePage.js';

// The network is the browser's fetch: recorded here so the tests can say what was (not) sent.
const calls: { url: string; method: string; body?: unknown }[] = [];
let answers: Record<string, { status: number; body: unknown }>;

beforeEach(() => {
  calls.length = 0;
  answers = {};
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    calls.push({ url, method, body: init.body ? JSON.parse(String(init.body)) : undefined });
    const answer = answers[`${method} ${url}`] ?? { status: 404, body: { error: { code: 'NOT_FOUND', message: 'absent' } } };
    return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': 'application/json' } });
  });
});
afterEach(() => vi.unstubAllGlobals());

async function fillRequired(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/Numéro unique/u), '013 ABC 12345');
  await user.type(screen.getByLabelText(/^Prénom/u), 'Hélène');
  await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'helene@example.org');
  await user.type(screen.getByLabelText(/^Motivations/u), 'Logement trop petit');
}

describe('the request form', () => {
  it('shows the form defaults of the domain', () => {
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    expect(screen.getByLabelText('Situation familiale')).toHaveValue('celibataire');
    expect(screen.getByLabelText("Nombre d'enfants à charge")).toHaveValue('0');
    expect(screen.getByLabelText('Logement actuel')).toHaveValue('sans domicile fixe');
    expect(screen.getByLabelText('Type de logement actuel')).toHaveValue('studio');
    expect(screen.getByLabelText('Bailleur actuel')).toHaveValue('pah');
    expect(screen.getByLabelText('Type de logement souhaité')).toHaveValue('studio');
  });

  it('refuses missing required fields inline, in French, before any call', async () => {
    const user = userEvent.setup();
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    await user.click(screen.getByRole('button', { name: 'Enregistrer ma demande' }));
    expect(await screen.findByText('Le prénom est obligatoire.')).toBeInTheDocument();
    expect(screen.getByText("L'adresse e-mail est obligatoire.")).toBeInTheDocument();
    expect(screen.getByText('Les motivations sont obligatoires.')).toBeInTheDocument();
    expect(screen.getByText('Le numéro unique est obligatoire.')).toBeInTheDocument();
    expect(screen.getByLabelText(/^Prénom/u)).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent('4 champs sont à corriger.');
    expect(calls).toEqual([]);
  });

  it('refuses a malformed e-mail and numéro before any call', async () => {
    const user = userEvent.setup();
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    await fillRequired(user);
    await user.clear(screen.getByLabelText(/^Adresse e-mail/u));
    await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'helene@');
    await user.clear(screen.getByLabelText(/Numéro unique/u));
    await user.type(screen.getByLabelText(/Numéro unique/u), '013');
    await user.click(screen.getByRole('button', { name: 'Enregistrer ma demande' }));
    expect(await screen.findByText("L'adresse e-mail n'est pas valide.")).toBeInTheDocument();
    expect(screen.getByText('Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.')).toBeInTheDocument();
    expect(calls).toEqual([]);
  });

  it('stops on the duplicate pre-check without submitting', async () => {
    answers['GET /app/api/logement/013abc12345'] = {
      status: 200,
      body: { data: { acces: 'statut', numeroUnique: '013abc12345', statutDeLaDemande: 'En attente', dateDEnregistrement: '2026-01-01T00:00:00.000Z' } },
    };
    const user = userEvent.setup();
    const onCreated = vi.fn();
    renderWithProviders(<DemandeForm onCreated={onCreated} />);
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Enregistrer ma demande' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES.doublon);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /app/api/logement/013abc12345']);
    expect(onCreated).not.toHaveBeenCalled();
  });

  it('submits the normalised request and shows the server’s field messages when it refuses', async () => {
    answers['POST /app/api/logement'] = {
      status: 400,
      body: { error: { code: 'VALIDATION', message: 'Le formulaire contient des erreurs : corrigez les champs signalés.', fields: { ville: 'La ville est trop longue.' } } },
    };
    const user = userEvent.setup();
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Enregistrer ma demande' }));
    expect(await screen.findByText('La ville est trop longue.')).toBeInTheDocument();
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')).toBeDefined());
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.body).toMatchObject({ numeroUnique: '013abc12345', prenom: 'Hélène', email: 'helene@example.org', situationFamiliale: 'celibataire' });
  });
});
