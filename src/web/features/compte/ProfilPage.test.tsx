// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Moi, ProfilPersonnel } from '../../../domain/compte.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { ProfilPage } from './ProfilPage.js';

const MOI: Moi = {
  uid: 'lucas-uid',
  pic: '/avatar-defaut.svg',
  nom: 'Garcia',
  prenom: 'Lucas',
  quartier: 'Jas de Bouffan',
  ville: 'Aix-en-Provence',
  pays: 'France',
  emailVerified: true,
  gender: 'H',
  visibilite: 'voisins',
  email: 'lucas@example.org',
  birthday: '1992-03-15',
  residence: 'Le Mail',
  rue: 'Avenue Jean-Monnet',
  userType: 'habitant',
  dateDEnregistrement: '2025-01-01T00:00:00.000Z',
  invitationLink: 'http://quartier.test/invitation/lucas-uid',
  followers: [],
  following: [],
};

const { calls, answers } = recordFetch();

beforeEach(() => {
  answers['GET /app/api/user/me'] = { status: 200, body: { data: MOI } };
  answers['GET /app/api/logement/mine'] = { status: 200, body: { data: [] } };
  // The account saved (its personal profile: the Moi's extra fields are not read).
  answers['PATCH /app/api/user/me'] = ({ body }) => ({ status: 200, body: { data: { ...MOI, ...(body as Partial<ProfilPersonnel>) } } });
});

/** A card of the profile, a section named by its title. */
async function carte(nom: string) {
  return screen.findByRole('region', { name: nom });
}

describe('/profile: how the sending of a form ends (RGAA 7.5)', () => {
  it('says the names saved politely, in the status region, with no alert', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ProfilPage />);
    const infos = await carte('Mes informations');
    const statut = within(infos).getByRole('status');
    expect(statut).toBeEmptyDOMElement();
    await user.clear(within(infos).getByLabelText(/^Nom/u));
    await user.type(within(infos).getByLabelText(/^Nom/u), 'Garcia-Martin');
    await user.click(within(infos).getByRole('button', { name: 'Enregistrer' }));

    expect(await within(statut).findByText('Nom et prénom enregistrés.')).toBeInTheDocument();
    // The status region says it; the Alert inside adds no role (Mantine's default, alert, would be assertive).
    expect(statut.firstElementChild).toHaveAttribute('role', 'none');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls.filter((c) => c.method === 'PATCH')).toEqual([{ url: '/app/api/user/me', method: 'PATCH', body: { nom: 'Garcia-Martin', prenom: 'Lucas' } }]);
  });

  it('says a failure as an alert, and nothing in the status region', async () => {
    answers['PATCH /app/api/user/me'] = { status: 500, body: { error: { code: 'INTERNAL', message: 'Le serveur n’a pas pu enregistrer.' } } };
    const user = userEvent.setup();
    renderWithProviders(<ProfilPage />);
    const infos = await carte('Mes informations');
    await user.type(within(infos).getByLabelText(/^Prénom/u), 'ne');
    await user.click(within(infos).getByRole('button', { name: 'Enregistrer' }));

    expect(await within(infos).findByRole('alert')).toHaveTextContent('Le serveur n’a pas pu enregistrer.');
    expect(within(infos).getByRole('status')).toBeEmptyDOMElement();
  });

  it('sends the new address’s link once: saving the names afterwards does not send it again', async () => {
    answers['POST /app/api/auth/change-email'] = { status: 200, body: { status: true } };
    const user = userEvent.setup();
    renderWithProviders(<ProfilPage />);
    const infos = await carte('Mes informations');
    const statut = within(infos).getByRole('status');
    await user.clear(within(infos).getByLabelText(/^Adresse e-mail/u));
    await user.type(within(infos).getByLabelText(/^Adresse e-mail/u), 'lucas.garcia@example.org');
    await user.click(within(infos).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(statut).findByText(/Un lien de confirmation a été envoyé à lucas.garcia@example.org/u)).toBeInTheDocument();

    await user.type(within(infos).getByLabelText(/^Prénom/u), 'ne');
    await user.click(within(infos).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(statut).findByText('Nom et prénom enregistrés.')).toBeInTheDocument();
    expect(calls.filter((c) => c.url === '/app/api/auth/change-email')).toHaveLength(1);
  });

  it('says the names saved when the address’s link then fails, beside the failure', async () => {
    answers['POST /app/api/auth/change-email'] = { status: 429, body: { error: { code: 'RATE_LIMITED', message: 'Trop de demandes de lien pour cette adresse.' } } };
    const user = userEvent.setup();
    renderWithProviders(<ProfilPage />);
    const infos = await carte('Mes informations');
    await user.type(within(infos).getByLabelText(/^Prénom/u), 'ne');
    await user.clear(within(infos).getByLabelText(/^Adresse e-mail/u));
    await user.type(within(infos).getByLabelText(/^Adresse e-mail/u), 'lucas.garcia@example.org');
    await user.click(within(infos).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(infos).findByRole('alert')).toHaveTextContent('Trop de demandes de lien pour cette adresse.');
    expect(within(infos).getByRole('status')).toHaveTextContent('Nom et prénom enregistrés.');
  });

  it('says the visibility chosen politely, in the status region, with no alert', async () => {
    const user = userEvent.setup();
    renderWithProviders(<ProfilPage />);
    const visibilite = await carte('Ce que voient les autres habitants');
    await user.click(within(visibilite).getByRole('radio', { name: /^Les habitants de mon quartier/u }));
    await user.click(within(visibilite).getByRole('button', { name: 'Valider ce choix' }));

    const statut = within(visibilite).getByRole('status');
    expect(await within(statut).findByText('Votre choix est enregistré.')).toBeInTheDocument();
    expect(statut.firstElementChild).toHaveAttribute('role', 'none');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
