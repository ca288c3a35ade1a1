// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Moi } from '../../../domain/compte.js';
import type { LigneDemande } from '../../../domain/demande.js';
import { recordFetch, renderWithProviders, largeurDeFenetre } from '../../test-utils.js';
import { ListeDemandesPage } from './ListeDemandesPage.js';

/** The page in the app's providers (Mantine in its test environment, so a status list box opens in jsdom). */
const page = () => renderWithProviders(<ListeDemandesPage />);

const MOI: Moi = {
  uid: 'g1',
  pic: '',
  nom: 'Mairie',
  prenom: 'Camille',
  quartier: 'Jas de Bouffan',
  ville: 'Aix-en-Provence',
  pays: 'France',
  emailVerified: true,
  gender: 'F',
  visibilite: 'voisins',
  email: 'camille@example.org',
  birthday: null,
  residence: 'Mairie annexe',
  rue: 'Rue Charloun-Rieu',
  userType: 'manager',
  dateDEnregistrement: '2026-01-01T00:00:00.000Z',
  invitationLink: '',
  followers: [],
  following: [],
};

const ligne = (numeroUnique: string, prenom: string, nom: string, messagesNonLus: number): LigneDemande => ({
  id: numeroUnique,
  numeroUnique,
  prenom,
  nom,
  email: `${numeroUnique}@example.org`,
  numeroDeTelephone: '',
  typeDeLogementSouhaite: 't3',
  nombreDEnfants: 1,
  dateDEnregistrement: '2026-01-05T10:00:00.000Z',
  statutDeLaDemande: 'En attente des documents',
  valideJusqua: '2027-01-05T10:00:00.000Z',
  correction: null,
  messagesNonLus,
  etiquettes: [],
});

let lignes: LigneDemande[];
let total: number;
const { calls, answers } = recordFetch();
/** The lists asked of the server, by address. */
const listes = () => calls.filter((c) => c.url.startsWith('/app/api/logement?')).map((c) => c.url);
/** The status changes sent to the server. */
const changements = () => calls.filter((c) => c.method === 'POST' && c.url === '/app/api/logement/update/status').map((c) => c.body);


beforeEach(() => {
  lignes = [ligne('013liste0001', 'Hélène', 'Martin', 1), ligne('013liste0002', 'Bérénice', 'Arnaud', 3)];
  total = 2;
  answers['GET /app/api/user/me'] = { status: 200, body: { data: MOI } };
  answers['GET /app/api/logement?'] = () => ({ status: 200, body: { data: lignes, total, totalExact: true } });
  answers['POST /app/api/logement/update/status'] = ({ body }) => {
    const corps = body as { logementId: string; newStatus: string };
    return {
      status: 200,
      body: { data: { numeroUnique: corps.logementId, statutDeLaDemande: corps.newStatus, updatedAt: '2026-03-01T10:00:00.000Z', annulation: null } },
    };
  };
  vi.stubGlobal(
    'EventSource',
    class {
      static readonly CLOSED = 2;
      readyState = 0;
      addEventListener() {}
      close() {}
    },
  );
});

const legende = () => document.querySelector('caption')?.textContent;

/** The options of a status list box, once open (the filters' native selects have options too). */
const optionsDe = (select: HTMLElement) => within(document.getElementById(select.getAttribute('aria-controls') ?? '')!);

describe('the managers’ list', () => {
  it('says how it is sorted in words, for each column and direction', async () => {
    page();
    await screen.findByRole('table');
    expect(legende()).toBe('Demandes de logement, triées par date d’enregistrement, de la plus récente à la plus ancienne');
    const user = userEvent.setup();
    const attendues: [string, string, string][] = [
      ['Prénom', 'par prénom, de A à Z', 'par prénom, de Z à A'],
      ['Statut', 'par statut, dans l’ordre des étapes', 'par statut, dans l’ordre inverse des étapes'],
      ['Enregistrée le', 'par date d’enregistrement, de la plus ancienne à la plus récente', 'par date d’enregistrement, de la plus récente à la plus ancienne'],
      ['Valide jusqu’au', 'par fin de validité, de la plus proche à la plus lointaine', 'par fin de validité, de la plus lointaine à la plus proche'],
      ['Enfants', 'par nombre d’enfants, du plus petit au plus grand', 'par nombre d’enfants, du plus grand au plus petit'],
      ['Logement souhaité', 'par logement souhaité, du studio au T6', 'par logement souhaité, du T6 au studio'],
      ['Numéro unique', 'par numéro unique, dans l’ordre croissant', 'par numéro unique, dans l’ordre décroissant'],
      ['E-mail', 'par adresse e-mail, de A à Z', 'par adresse e-mail, de Z à A'],
      ['Nom', 'par nom, de A à Z', 'par nom, de Z à A'],
    ];
    for (const [colonne, croissant, decroissant] of attendues) {
      const bouton = within(screen.getByRole('columnheader', { name: new RegExp(`^${colonne}`, 'u') })).getByRole('button');
      await user.click(bouton);
      expect(legende()).toBe(`Demandes de logement, triées ${croissant}`);
      await user.click(bouton);
      expect(legende()).toBe(`Demandes de logement, triées ${decroissant}`);
    }
  });

  it('counts requests and unread messages with the French plural', async () => {
    page();
    expect(await screen.findByText('2 demandes')).toBeInTheDocument();
    expect(screen.getByText('1 message non lu')).toBeInTheDocument();
    expect(screen.getByText('3 messages non lus')).toBeInTheDocument();
  });

  it('says « 1 demande » in the singular', async () => {
    lignes = lignes.slice(0, 1);
    total = 1;
    page();
    expect(await screen.findByText('1 demande')).toBeInTheDocument();
  });

  it('asks before refusing « la demande d’Hélène Martin », de elided before the vowel', async () => {
    page();
    const user = userEvent.setup();
    const select = await screen.findByRole('combobox', { name: 'Statut de la demande n° 013liste0001' });
    await user.click(select);
    await user.click(optionsDe(select).getByRole('option', { name: 'Refusé' }));
    expect(await screen.findByRole('dialog', { name: 'Refuser la demande d’Hélène Martin (n° 013liste0001) ?' })).toBeInTheDocument();
    // Nothing changes until the manager confirms: the row still says its status.
    expect(select).toHaveValue('En attente des documents');
    expect(changements()).toEqual([]);
  });

  it('changes a status on a click of one of its options, once', async () => {
    page();
    const user = userEvent.setup();
    const select = await screen.findByRole('combobox', { name: 'Statut de la demande n° 013liste0002' });
    expect(select).toHaveValue('En attente des documents');
    await user.click(select);
    // Its list of statuses is named after it (e2e tests pick the option from it).
    const statuts = screen.getByRole('listbox', { name: 'Statut de la demande n° 013liste0002' });
    await user.click(within(statuts).getByRole('option', { name: 'En cours de traitement' }));
    expect(select).toHaveValue('En cours de traitement');
    expect(select).toHaveAttribute('data-statut', 'En cours de traitement');
    await waitFor(() => expect(changements()).toEqual([{ logementId: '013liste0002', newStatus: 'En cours de traitement' }]));
  });

  it('changes nothing while the arrows move through the statuses, only on Enter (RGAA 7.4)', async () => {
    page();
    const user = userEvent.setup();
    const select = await screen.findByRole('combobox', { name: 'Statut de la demande n° 013liste0001' });
    select.focus();
    // The arrows open the list and go down it, past « Attribué » (which asks first): no change, no question.
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}');
    expect(select).toHaveAttribute('aria-expanded', 'true');
    expect(optionsDe(select).getByRole('option', { name: 'Attribué' })).toHaveAttribute('data-combobox-selected');
    expect(screen.queryByRole('dialog')).toBeNull();
    // Escape leaves it as it was.
    await user.keyboard('{Escape}');
    expect(select).toHaveAttribute('aria-expanded', 'false');
    expect(select).toHaveValue('En attente des documents');
    expect(screen.queryByRole('dialog')).toBeNull();
    // Enter on an option chooses it: six steps down from the first status is « Radiée », which asks first.
    await user.keyboard('{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{ArrowDown}{Enter}');
    expect(await screen.findByRole('dialog', { name: 'Radier la demande d’Hélène Martin (n° 013liste0001) ?' })).toBeInTheDocument();
    expect(changements()).toEqual([]);
  });

  it('counts the rows chosen for bulk work with the French plural', async () => {
    total = 30;
    page();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('checkbox', { name: 'Choisir la demande n° 013liste0001' }));
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    expect(within(barre).getByText('1 demande choisie')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Choisir toutes les demandes de la page' }));
    expect(within(barre).getByText('2 demandes choisies')).toBeInTheDocument();
    expect(within(barre).getByText('Les 2 demandes de la page sont choisies.')).toBeInTheDocument();
    expect(within(barre).getByRole('button', { name: 'Choisir les 30 demandes correspondant au filtre' })).toBeInTheDocument();
  });

  it('shows each request as a card on a phone, no table, with its status, selection and sort', async () => {
    largeurDeFenetre(375);
    total = 30;
    page();
    const user = userEvent.setup();
    const liste = await screen.findByRole('list', { name: 'Demandes de logement, triées par date d’enregistrement, de la plus récente à la plus ancienne' });
    expect(screen.queryByRole('table')).toBeNull();
    const cartes = within(liste).getAllByRole('listitem');
    expect(cartes).toHaveLength(2);
    const helene = cartes[0]!;
    expect(within(helene).getByText('Hélène Martin')).toBeInTheDocument();
    expect(within(helene).getByRole('link', { name: '013liste0001' })).toHaveAttribute('href', '/logement/013liste0001');
    expect(within(helene).getByText('1 message non lu')).toBeInTheDocument();
    expect(within(helene).getByText(/^Enregistrée le \d{2}\/\d{2}\/2026, valide jusqu’au \d{2}\/\d{2}\/2027$/u)).toBeInTheDocument();
    expect(within(helene).getByText('Statut')).toBeInTheDocument();
    const statut = within(helene).getByRole('combobox', { name: 'Statut de la demande n° 013liste0001' });
    expect(statut).toHaveValue('En attente des documents');
    // Chosen for bulk work from the cards, one or the whole page.
    await user.click(within(helene).getByRole('checkbox', { name: 'Choisir la demande n° 013liste0001' }));
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    expect(within(barre).getByText('1 demande choisie')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Choisir toutes les demandes de la page' }));
    expect(within(barre).getByText('2 demandes choisies')).toBeInTheDocument();
    expect(within(cartes[1]!).getByRole('checkbox', { name: 'Choisir la demande n° 013liste0002' })).toBeChecked();
    // Its status changes there as in the table: « Refusé » asks first.
    await user.click(statut);
    await user.click(optionsDe(statut).getByRole('option', { name: 'Refusé' }));
    expect(await screen.findByRole('dialog', { name: 'Refuser la demande d’Hélène Martin (n° 013liste0001) ?' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Annuler' }));
    // The table's headers sort it on a wider screen; here a list of sorts, which the list's name says.
    await user.selectOptions(screen.getByRole('combobox', { name: 'Trier' }), 'Par prénom, de A à Z');
    expect(await screen.findByRole('list', { name: 'Demandes de logement, triées par prénom, de A à Z' })).toBeInTheDocument();
    await waitFor(() => expect(listes().at(-1)).toMatch(/sort=prenom&order=asc/u));
  });

  it('keeps the table from 48em on', async () => {
    largeurDeFenetre(1024);
    page();
    expect(await screen.findByRole('table')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Statut de la demande n° 013liste0001' })).toBeInTheDocument();
    expect(within(screen.getByRole('table')).queryByText('Statut', { selector: 'label' })).toBeNull();
    // One element per row carries its status (e2e tests count them).
    expect(document.querySelectorAll('[data-statut="En attente des documents"]')).toHaveLength(2);
  });

  it('says « La demande de la page est choisie. » when the page has one row', async () => {
    lignes = lignes.slice(0, 1);
    total = 11;
    page();
    await userEvent.setup().click(await screen.findByRole('checkbox', { name: 'Choisir toutes les demandes de la page' }));
    expect(screen.getByText('La demande de la page est choisie.')).toBeInTheDocument();
  });
});
