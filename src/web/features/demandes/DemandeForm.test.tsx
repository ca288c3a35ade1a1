// @vitest-environment jsdom
import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, screen, waitFor, within } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { hydrateRoot } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { brouillonDemande } from '../../lib/brouillon.js';
import { theme } from '../../app/theme.js';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { DemandeForm } from './NouvelleDemandePage.js';

// The network is the browser's fetch: recorded here so the tests can say what was (not) sent.
const { calls, answers } = recordFetch();

/** The calls the form made, but the reading of the session (whether someone is signed in). */
const envois = () => calls.filter((c) => c.url !== '/app/api/user/me');

async function fillRequired(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText(/Numéro unique/u), '013 ABC 12345');
  await user.type(screen.getByLabelText(/^Prénom/u), 'Hélène');
  await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'helene@example.org');
  await user.type(screen.getByLabelText(/^Motivations/u), 'Logement trop petit');
}

/** The form as the app draws it, providers included: rendered to HTML at build (prerendu), then hydrated. */
const arbre = () => (
  <MantineProvider theme={theme} env="test">
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <DemandeForm onCreated={() => {}} />
      </MemoryRouter>
    </QueryClientProvider>
  </MantineProvider>
);

/** The page prerendered at build, in the document, before any script has taken it over. */
function prerendu(): HTMLDivElement {
  const conteneur = document.createElement('div');
  conteneur.innerHTML = renderToString(arbre());
  document.body.appendChild(conteneur);
  return conteneur;
}

/** A signed-in resident's account, as /user/me answers it. */
const COMPTE = {
  status: 200,
  body: {
    data: {
      uid: 'u1', prenom: 'Lucas', nom: 'Garcia', pic: null, email: 'lucas@example.org', gender: 'H', birthday: '1992-03-15',
      residence: 'Le Mail, bât. C', rue: 'Avenue Jean-Monnet', userType: 'user', visibilite: 'voisins', dateDEnregistrement: '2026-01-01T00:00:00.000Z',
      invitationLink: 'http://x/invitation/u1', followers: [], following: [],
    },
  },
};

describe('the request form', () => {
  it('shows the form defaults of the domain', () => {
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    expect(screen.getByLabelText('Situation familiale')).toHaveValue('celibataire');
    expect(screen.getByLabelText("Nombre d’enfants à charge")).toHaveValue('0');
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
    expect(screen.getByText("L’adresse e-mail est obligatoire.")).toBeInTheDocument();
    expect(screen.getByText('Les motivations sont obligatoires.')).toBeInTheDocument();
    expect(screen.getByText('Le numéro unique est obligatoire.')).toBeInTheDocument();
    expect(screen.getByLabelText(/^Prénom/u)).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent('4 champs sont à corriger.');
    expect(envois()).toEqual([]);
  });

  it('fills adresse, code postal, ville and the complement typed about the building from a suggestion', async () => {
    answers[`GET /app/api/adresses?q=${encodeURIComponent('Bât. C, 8 av marcel')}`] = {
      status: 200,
      body: {
        source: 'ban',
        data: [{ label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence', adresse: '8 Avenue Marcel Pagnol', codePostal: '13090', ville: 'Aix-en-Provence', complement: 'Bât. C' }],
      },
    };
    const user = userEvent.setup();
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    await user.type(screen.getByLabelText('Adresse', { selector: 'input' }), 'Bât. C, 8 av marcel');
    await waitFor(() => expect(calls.map((c) => c.url)).toContain(`/app/api/adresses?q=${encodeURIComponent('Bât. C, 8 av marcel')}`));
    await user.click(await screen.findByText('8 Avenue Marcel Pagnol 13090 Aix-en-Provence'));
    expect(screen.getByLabelText('Adresse', { selector: 'input' })).toHaveValue('8 Avenue Marcel Pagnol');
    expect(screen.getByLabelText(/^Complément/u)).toHaveValue('Bât. C');
    expect(screen.getByLabelText('Code postal')).toHaveValue('13090');
    expect(screen.getByLabelText('Ville')).toHaveValue('Aix-en-Provence');
  });

  it('keeps what is typed on the device and offers it back on the next visit; « Effacer le brouillon » removes it', async () => {
    localStorage.clear();
    const user = userEvent.setup();
    const premier = renderWithProviders(<DemandeForm onCreated={() => {}} />);
    await user.type(screen.getByLabelText(/^Prénom/u), 'Hélène');
    await user.type(screen.getByLabelText(/^Motivations/u), 'Logement trop petit');
    await waitFor(() => expect(localStorage.getItem('quartier-vivant.brouillon-demande')).toContain('Logement trop petit'));
    premier.unmount();

    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    // Offered, not put in the form unasked.
    expect(screen.getByLabelText(/^Prénom/u)).toHaveValue('');
    const offre = screen.getByRole('region', { name: 'Une demande commencée sur cet appareil' });
    expect(offre).toHaveTextContent('Vous aviez commencé une demande au nom de Hélène le');
    await user.click(screen.getByRole('button', { name: 'Reprendre ce brouillon' }));
    expect(screen.getByLabelText(/^Prénom/u)).toHaveValue('Hélène');
    expect(screen.getByLabelText(/^Motivations/u)).toHaveValue('Logement trop petit');
    expect(screen.queryByRole('region', { name: 'Une demande commencée sur cet appareil' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'effacez le brouillon' }));
    expect(localStorage.getItem('quartier-vivant.brouillon-demande')).toBeNull();
  });

  it('fills the form from the signed-in account', async () => {
    localStorage.clear();
    answers['GET /app/api/user/me'] = COMPTE;
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    // The account arrives after the first render; on a loaded machine, past waitFor's default second.
    await waitFor(() => expect(screen.getByLabelText(/^Prénom/u)).toHaveValue('Lucas'), { timeout: 5000 });
    expect(screen.getByLabelText('Nom', { exact: true })).toHaveValue('Garcia');
    expect(screen.getByLabelText(/^Adresse e-mail/u)).toHaveValue('lucas@example.org');
    expect(screen.getByLabelText('Date de naissance')).toHaveValue('1992-03-15');
    expect(screen.getByLabelText('Adresse', { selector: 'input' })).toHaveValue('Avenue Jean-Monnet');
    expect(screen.getByLabelText(/^Complément/u)).toHaveValue('Le Mail, bât. C');
    expect(screen.getByLabelText('Sexe')).toHaveValue('homme');
  });

  it('keeps what was typed when the account arrives late (a slow link), and a draft taken back', async () => {
    localStorage.clear();
    let repondre: () => void = () => {};
    answers['GET /app/api/user/me'] = () => new Promise((resolve) => (repondre = () => resolve(COMPTE)));
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    const user = userEvent.setup();
    await user.type(screen.getByLabelText(/Numéro unique/u), '013 ABC 12345');
    await user.type(screen.getByLabelText(/^Motivations/u), 'Logement trop petit');
    repondre();
    await waitFor(() => expect(calls.some((c) => c.url === '/app/api/user/me')).toBe(true));
    await new Promise((r) => setTimeout(r, 300));
    expect(screen.getByLabelText(/Numéro unique/u)).toHaveValue('013 ABC 12345');
    expect(screen.getByLabelText(/^Motivations/u)).toHaveValue('Logement trop petit');
  });

  it('is sent by POST, never in the address, if it is submitted before the app’s script has loaded', () => {
    renderWithProviders(<DemandeForm onCreated={() => {}} />);
    expect(screen.getByRole('form', { name: 'Demande de logement social' })).toHaveAttribute('method', 'post');
  });

  it('hydrates the prerendered form without redrawing it when a draft waits on the device, then offers the draft', async () => {
    localStorage.clear();
    // The page as built: no draft. Then the device holds one when the script hydrates it.
    const conteneur = prerendu();
    brouillonDemande.ecrire({ prenom: 'Awa' });
    const erreurs: unknown[] = [];
    await act(async () => {
      hydrateRoot(conteneur, arbre(), { onRecoverableError: (e) => erreurs.push(e) });
    });
    expect(erreurs).toEqual([]);
    expect(await within(conteneur).findByRole('button', { name: 'Reprendre ce brouillon' })).toBeInTheDocument();
    conteneur.remove();
    localStorage.clear();
  });

  it('cannot be sent from the prerendered page before the app’s script has taken it over (it would come back empty)', async () => {
    const conteneur = prerendu();
    expect(within(conteneur).getByRole('button', { name: 'Enregistrer ma demande' })).toBeDisabled();
    expect(conteneur.querySelector('noscript')?.textContent).toContain('activez-le');
    await act(async () => {
      hydrateRoot(conteneur, arbre());
    });
    expect(within(conteneur).getByRole('button', { name: 'Enregistrer ma demande' })).toBeEnabled();
    conteneur.remove();
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
    expect(await screen.findByText("L’adresse e-mail n’est pas valide.")).toBeInTheDocument();
    expect(screen.getByText('Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.')).toBeInTheDocument();
    expect(envois()).toEqual([]);
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
    const alerte = await screen.findByRole('alert');
    expect(alerte).toHaveTextContent(MESSAGES.doublon);
    // Not a dead end: the request's page, where one who lost its private link gets it again.
    expect(within(alerte).getByRole('link', { name: 'Voir la demande n° 013abc12345' })).toHaveAttribute('href', '/logement/013abc12345');
    expect(envois().map((c) => `${c.method} ${c.url}`)).toEqual(['GET /app/api/logement/013abc12345']);
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
