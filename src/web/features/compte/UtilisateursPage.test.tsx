// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Moi, ProfilPersonnel } from '../../../domain/compte.js';
import { recordFetch, renderWithProviders, largeurDeFenetre } from '../../test-utils.js';
import { UtilisateursPage } from './UtilisateursPage.js';

const compte = (uid: string, prenom: string, nom: string, emailVerified: boolean, userType: ProfilPersonnel['userType'] = 'habitant'): ProfilPersonnel => ({
  uid,
  pic: '',
  nom,
  prenom,
  quartier: 'Jas de Bouffan',
  ville: 'Aix-en-Provence',
  pays: 'France',
  emailVerified,
  gender: 'F',
  visibilite: 'voisins',
  email: `${uid}@example.org`,
  birthday: null,
  residence: 'Les Lauriers',
  rue: 'Avenue Marcel-Pagnol',
  userType,
  dateDEnregistrement: '2026-03-05T09:30:00.000Z',
});

const ADMIN = compte('admin1', 'Claire', 'Admin', true, 'admin');
const MOI: Moi = { ...ADMIN, invitationLink: '', followers: [], following: [] };
let comptes: ProfilPersonnel[];
const { calls, answers } = recordFetch();
/** The role changes sent to the server. */
const roles = () => calls.filter((c) => c.method === 'POST' && c.url.endsWith('/role')).map(({ url, body }) => ({ url, body }));


beforeEach(() => {
  comptes = [ADMIN, compte('elodie1', 'Élodie', 'Martin', false), compte('marc1', 'Marc', 'de La Fontaine', true, 'manager')];
  answers['GET /app/api/user/me'] = { status: 200, body: { data: MOI } };
  answers['GET /app/api/admin/users?'] = () => ({ status: 200, body: { data: comptes, total: comptes.length } });
  answers['POST /app/api/admin/users/elodie1/role'] = () => ({ status: 200, body: { data: comptes[1] } });
});

describe('/admin/utilisateurs', () => {
  it('counts the accounts with the French plural', async () => {
    largeurDeFenetre(1280);
    renderWithProviders(<UtilisateursPage />);
    expect(await screen.findByText('3 comptes')).toBeInTheDocument();
  });

  it('pages past 50 accounts: the next page is asked for, and a new search starts again at its first page', async () => {
    largeurDeFenetre(1280);
    answers['GET /app/api/admin/users?'] = (call) => {
      const page = Number(new URL(call.url, 'http://x').searchParams.get('page'));
      return { status: 200, body: { data: page === 2 ? [compte('dernier', 'Zoé', 'Dernière', true)] : comptes, total: 51 } };
    };
    renderWithProviders(<UtilisateursPage />);
    expect(await screen.findByText('51 comptes')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Page 2' }));
    expect(await screen.findByText('Zoé Dernière')).toBeInTheDocument();
    expect(calls.some((c) => c.url.includes('page=2'))).toBe(true);
    await userEvent.type(screen.getByLabelText('Rechercher'), 'zo');
    await screen.findByText('Élodie Martin');
    expect(calls.at(-1)!.url).toMatch(/q=zo&page=1$/u);
  });

  it('says « 1 compte » and « 0 compte » in the singular', async () => {
    largeurDeFenetre(1280);
    comptes = [ADMIN];
    const { unmount } = renderWithProviders(<UtilisateursPage />);
    expect(await screen.findByText('1 compte')).toBeInTheDocument();
    unmount();
    comptes = [];
    renderWithProviders(<UtilisateursPage />);
    expect(await screen.findByText('0 compte')).toBeInTheDocument();
  });

  it('shows a table at 1280 px, each role select named with « de » elided before a vowel', async () => {
    largeurDeFenetre(1280);
    renderWithProviders(<UtilisateursPage />);
    const table = await screen.findByRole('table');
    expect(within(table).getByRole('combobox', { name: 'Rôle d’Élodie Martin' })).toHaveValue('habitant');
    expect(within(table).getByRole('combobox', { name: 'Rôle de Marc de La Fontaine' })).toHaveValue('manager');
    expect(within(table).getByRole('combobox', { name: 'Rôle de Claire Admin' })).toBeDisabled();
    expect(screen.queryByRole('list', { name: 'Comptes' })).toBeNull();
  });

  it('stacks the accounts as cards at 375 px: name, e-mail, address confirmed or not, the same role select', async () => {
    largeurDeFenetre(375);
    renderWithProviders(<UtilisateursPage />);
    const liste = await screen.findByRole('list', { name: 'Comptes' });
    expect(screen.queryByRole('table')).toBeNull();
    const cartes = within(liste).getAllByRole('listitem');
    expect(cartes).toHaveLength(3);
    const elodie = cartes[1]!;
    expect(elodie).toHaveTextContent('Élodie Martin');
    expect(elodie).toHaveTextContent('elodie1@example.org');
    expect(elodie).toHaveTextContent('Adresse non confirmée');
    expect(elodie).toHaveTextContent('Inscription le 05/03/2026');
    expect(cartes[2]).toHaveTextContent('Adresse confirmée');
    const select = within(elodie).getByRole('combobox', { name: 'Rôle d’Élodie Martin' });
    await userEvent.setup().selectOptions(select, 'manager');
    expect(roles()).toEqual([{ url: '/app/api/admin/users/elodie1/role', body: { role: 'manager' } }]);
    expect(await screen.findByText('Élodie Martin a maintenant le rôle gestionnaire.')).toBeInTheDocument();
  });

  it('says a role changed politely, in the status region, with no alert (RGAA 7.5)', async () => {
    largeurDeFenetre(1280);
    renderWithProviders(<UtilisateursPage />);
    const table = await screen.findByRole('table');
    const statut = screen.getByRole('status');
    expect(statut).toBeEmptyDOMElement();
    await userEvent.setup().selectOptions(within(table).getByRole('combobox', { name: 'Rôle d’Élodie Martin' }), 'manager');
    expect(await within(statut).findByText('Élodie Martin a maintenant le rôle gestionnaire.')).toBeInTheDocument();
    // The status region says it; the Alert inside adds no role (Mantine's default, alert, would be assertive).
    expect(statut.firstElementChild).toHaveAttribute('role', 'none');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says a refused role change as an alert, outside the status region', async () => {
    largeurDeFenetre(1280);
    answers['POST /app/api/admin/users/elodie1/role'] = {
      status: 409,
      body: { error: { code: 'CONFLICT', message: 'L’adresse e-mail de ce compte n’est pas confirmée.' } },
    };
    renderWithProviders(<UtilisateursPage />);
    const table = await screen.findByRole('table');
    await userEvent.setup().selectOptions(within(table).getByRole('combobox', { name: 'Rôle d’Élodie Martin' }), 'manager');
    expect(await screen.findByRole('alert')).toHaveTextContent('L’adresse e-mail de ce compte n’est pas confirmée.');
    expect(screen.getByRole('status')).toBeEmptyDOMElement();
  });
});
