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

const ligne = (numeroUnique: string, prenom: string, nom: string, messagesNonLus: number, suiviePar: string | null = null): LigneDemande => ({
  suiviePar,
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
    // Kept, as the server does: the list read again after the change shows it.
    lignes = lignes.map((l) => (l.numeroUnique === corps.logementId ? { ...l, statutDeLaDemande: corps.newStatus as LigneDemande['statutDeLaDemande'] } : l));
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

  it('puts what a manager scans first: the dates before the e-mail, which scrolls out of a 1280 px desk first', async () => {
    renderWithProviders(<ListeDemandesPage />);
    await screen.findByRole('table');
    const entetes = screen.getAllByRole('columnheader').map((th) => th.textContent!.replace(/[▲▼]/gu, '').trim()).filter((t) => t.length > 0);
    expect(entetes).toEqual(['Numéro unique', 'Statut', 'Prénom', 'Nom', 'Enregistrée le', 'Valide jusqu’au', 'Enfants', 'Logement souhaité', 'E-mail']);
    // Each row's cells under their headers: the first row's date of registration in the fifth column after the box.
    const cellules = within(screen.getAllByRole('row')[1]!).getAllByRole('cell');
    expect(cellules[5]).toHaveTextContent(/^\d{2}\/\d{2}\/\d{4}$/u);
    expect(cellules[9]).toHaveTextContent(/@/u);
  });

  it('names the manager who follows each request, « un ancien gestionnaire » for an account no longer one', async () => {
    lignes = [ligne('013liste0001', 'Hélène', 'Martin', 0, 'u-camille'), ligne('013liste0002', 'Bérénice', 'Arnaud', 0, 'u-parti'), ligne('013liste0003', 'Agnès', 'Roux', 0)];
    total = 3;
    answers['GET /app/api/gestionnaires'] = { status: 200, body: { data: [{ id: 'u-camille', nom: 'Camille Martin' }] } };
    page();
    const [, helene, berenice, agnes] = await screen.findAllByRole('row');
    expect(await within(helene!).findByText('Suivie par Camille Martin')).toBeInTheDocument();
    expect(within(berenice!).getByText('Suivie par un ancien gestionnaire')).toBeInTheDocument();
    expect(within(agnes!).queryByText(/Suivie par/u)).toBeNull();
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

  it('reads the list and its counts again after a status change, live stream or not', async () => {
    largeurDeFenetre(1280);
    answers['GET /app/api/logement/compteurs'] = () => ({ status: 200, body: { data: { toutes: 2, parStatut: {}, onglets: {} } } });
    page();
    const user = userEvent.setup();
    const select = await screen.findByRole('combobox', { name: 'Statut de la demande n° 013liste0002' });
    const avant = listes().length;
    await user.click(select);
    await user.click(within(screen.getByRole('listbox', { name: 'Statut de la demande n° 013liste0002' })).getByRole('option', { name: 'En cours de traitement' }));
    await waitFor(() => expect(changements()).toHaveLength(1));
    await waitFor(() => expect(listes().length).toBeGreaterThan(avant));
  });

  it('goes to the last page when the page shown is past the end (its rows left), rather than « aucune demande »', async () => {
    largeurDeFenetre(1280);
    answers['GET /app/api/logement?'] = (call) =>
      new URL(call.url, 'http://x').searchParams.get('page') === '3'
        ? { status: 200, body: { data: [], total: 20, totalExact: true } }
        : { status: 200, body: { data: lignes, total: 20, totalExact: true } };
    renderWithProviders(<ListeDemandesPage />, { url: '/logement/list?page=3&pageSize=10' });
    expect(await screen.findByRole('combobox', { name: 'Statut de la demande n° 013liste0001' })).toBeInTheDocument();
    expect(listes().at(-1)).toMatch(/page=2/u);
    expect(screen.queryByText(/Aucune demande/u)).toBeNull();
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

  it('leaves one request out of the whole filter when it is unticked, and sends the rest', async () => {
    total = 30;
    answers['POST /app/api/lots'] = { status: 202, body: { data: { id: 'lot9', total: 29, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: false } } };
    answers['GET /app/api/lots/lot9'] = { status: 200, body: { data: { id: 'lot9', total: 29, faits: 29, inchanges: 0, completes: 0, echecs: 0, fini: true } } };
    page();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('checkbox', { name: 'Choisir toutes les demandes de la page' }));
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    await user.click(within(barre).getByRole('button', { name: 'Choisir les 30 demandes correspondant au filtre' }));
    expect(within(barre).getByText(/^30 demandes choisies/u)).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Choisir la demande n° 013liste0002' }));
    expect(within(barre).getByText('29 demandes choisies (celles du filtre, 1 laissée de côté)')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'Choisir la demande n° 013liste0001' })).toBeChecked();
    await user.click(within(barre).getByRole('button', { name: 'Suivre ces demandes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Suivre 29 demandes ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Suivre' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST' && c.url === '/app/api/lots')?.body).toMatchObject({ selection: { mode: 'filtre', sauf: ['013liste0002'] } }));
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

/** The numbers as fr-FR writes them: thousands after a narrow no-break space. */
const fr = (n: number) => new Intl.NumberFormat('fr-FR').format(n);

describe('the status filter', () => {
  it('gives each status its count, in its option’s name, the value still the status', async () => {
    answers['GET /app/api/compteurs'] = {
      status: 200,
      body: {
        data: {
          parStatut: {
            'En attente des documents': 1234,
            'En cours de traitement': 56,
            'Demande envoyée': 7,
            'En attente': 0,
            'Passage CAL': 3,
            Attribué: 12,
            Radiée: 2,
            Refusé: 1,
          },
          toutes: 1315,
          suiviesParMoi: 4,
        },
      },
    };
    page();
    const filtre = await screen.findByRole('combobox', { name: 'Statut' });
    const options = await waitFor(() => {
      const noms = within(filtre).getAllByRole('option').map((o) => o.textContent);
      expect(noms[0]).toBe(`Tous les statuts (${fr(1315)})`);
      return noms;
    });
    expect(options).toEqual([
      `Tous les statuts (${fr(1315)})`,
      `En attente des documents (${fr(1234)})`,
      'En cours de traitement (56)',
      'Demande envoyée (7)',
      'En attente (0)',
      'Passage CAL (3)',
      'Attribué (12)',
      'Radiée (2)',
      'Refusé (1)',
    ]);
    // « 1 234 »: fr-FR's thousands.
    expect(within(filtre).getByRole('option', { name: 'En attente des documents (1\u202f234)' })).toHaveValue('En attente des documents');
    await userEvent.setup().selectOptions(filtre, 'Refusé (1)');
    expect(filtre).toHaveValue('Refusé');
    await waitFor(() => expect(listes().at(-1)).toMatch(/status=Refus%C3%A9/u));
  });

  it('names the statuses alone while the counts are unknown', async () => {
    page();
    const filtre = await screen.findByRole('combobox', { name: 'Statut' });
    expect(within(filtre).getAllByRole('option').map((o) => o.textContent)).toEqual(['Tous les statuts', 'En attente des documents', 'En cours de traitement', 'Demande envoyée', 'En attente', 'Passage CAL', 'Attribué', 'Radiée', 'Refusé']);
  });
});

describe('bulk work that moves every row out of the list', () => {
  /** Chooses the whole page and sets it to « Attribué »; the server then lists none of them in this tab. */
  async function toutAttribuer(lot: { total: number; faits: number; fini: boolean }) {
    answers['POST /app/api/lots'] = () => {
      lignes = [];
      total = 0;
      return { status: 201, body: { data: { id: 'lot1', total: lot.total, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: false } } };
    };
    answers['GET /app/api/lots/lot1'] = { status: 200, body: { data: { id: 'lot1', inchanges: 0, completes: 0, echecs: 0, ...lot } } };
    renderWithProviders(<ListeDemandesPage />, { url: '/?onglet=a-traiter' });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('checkbox', { name: 'Choisir toutes les demandes de la page' }));
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    await user.selectOptions(within(barre).getByRole('combobox', { name: 'Nouveau statut' }), 'Attribué');
    await user.click(within(barre).getByRole('button', { name: 'Changer le statut' }));
    const dialog = await screen.findByRole('dialog', { name: 'Passer 2 demandes à « Attribué » ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Changer le statut' }));
    return user;
  }

  it('keeps the count on screen when the list, read again at the end, is empty, until the manager closes it', async () => {
    const user = await toutAttribuer({ total: 2, faits: 2, fini: true });
    // The end reads the list again: none left in « À traiter ».
    expect(await screen.findByText('Aucune demande ne correspond à ces filtres')).toBeInTheDocument();
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    const compteRendu = within(barre).getByRole('status');
    expect(compteRendu).toHaveTextContent('Traitement terminé : 2 demandes modifiées.');
    // Its list's tab or page may change: it stays.
    await user.click(screen.getByRole('radio', { name: /^Traitées/u }));
    await waitFor(() => expect(listes().at(-1)).toMatch(/onglet=traitees/u));
    expect(within(screen.getByRole('region', { name: 'Traitement par lot' })).getByText('Traitement terminé : 2 demandes modifiées.')).toBeInTheDocument();
    // Closed, nothing is left of the bar: the focus goes to the page's title.
    await user.click(within(barre).getByRole('button', { name: 'Fermer le compte rendu du traitement par lot' }));
    expect(screen.queryByRole('region', { name: 'Traitement par lot' })).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'Toutes les demandes' })).toHaveFocus();
  });

  it('keeps the progress on screen while the live refresh empties the list', async () => {
    // The live stream, whose events the test sends.
    const ecouteurs: [string, (e: MessageEvent<string>) => void][] = [];
    vi.stubGlobal(
      'EventSource',
      class {
        static readonly CLOSED = 2;
        readyState = 1;
        addEventListener(nom: string, ecouteur: (e: MessageEvent<string>) => void) {
          ecouteurs.push([nom, ecouteur]);
        }
        close() {}
      },
    );
    await toutAttribuer({ total: 2, faits: 1, fini: false });
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    expect(await within(barre).findByText('Traitement en cours : 1 sur 2')).toBeInTheDocument();
    // A row changed: the list is read again, and is empty.
    for (const [nom, ecouteur] of ecouteurs) {
      if (nom === 'statut') ecouteur(new MessageEvent('statut', { data: JSON.stringify({ numeroUnique: '013liste0001', statutDeLaDemande: 'Attribué' }) }));
    }
    // The lists are read again LISTES_MS (400 ms) after an event: more than findBy's 1 s on a loaded machine.
    expect(await screen.findByText('Aucune demande ne correspond à ces filtres', undefined, { timeout: 5000 })).toBeInTheDocument();
    const toujours = screen.getByRole('region', { name: 'Traitement par lot' });
    expect(within(toujours).getByText('Traitement en cours : 1 sur 2')).toBeInTheDocument();
    expect(within(toujours).getByRole('progressbar', { name: 'Progression du traitement par lot' })).toBeInTheDocument();
    // A running action cannot be closed.
    expect(within(toujours).queryByRole('button', { name: 'Fermer le compte rendu du traitement par lot' })).toBeNull();
  });
});

describe('« Attribuer le logement »', () => {
  it('is white on teal 9 (5.0:1), not on green 9 (4.4:1, below 4.5:1)', async () => {
    page();
    const user = userEvent.setup();
    const select = await screen.findByRole('combobox', { name: 'Statut de la demande n° 013liste0001' });
    await user.click(select);
    await user.click(optionsDe(select).getByRole('option', { name: 'Attribué' }));
    const dialog = await screen.findByRole('dialog', { name: 'Attribuer un logement à Hélène Martin (n° 013liste0001) ?' });
    const bouton = within(dialog).getByRole('button', { name: 'Attribuer le logement' });
    expect(bouton.style.getPropertyValue('--button-bg')).toBe('var(--mantine-color-teal-9)');
    expect(bouton.style.getPropertyValue('--button-color')).toBe('var(--mantine-color-white)');
  });
});
