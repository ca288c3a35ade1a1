// @vitest-environment jsdom
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Moi } from '../../../domain/compte.js';
import type { EtatSignalement, LigneGestionSignalement } from '../../../domain/signalements.js';
import { recordFetch, renderWithProviders, largeurDeFenetre } from '../../test-utils.js';
import { SignalementsGestionPage } from './SignalementsGestionPage.js';

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

const ligne = (numero: string, titre: string, etat: EtatSignalement, contenuMasque = false): LigneGestionSignalement => ({
  numero,
  categorie: { code: 'voirie', libelle: 'Voirie' },
  titre,
  titreMasque: false,
  contenuMasque,
  lat: 43.526,
  lon: 5.418,
  adresse: '8 Avenue Marcel Pagnol',
  etat,
  creeLe: '2026-03-02T08:00:00.000Z',
  misAJourLe: '2026-03-04T08:00:00.000Z',
  email: 'habitant@example.org',
  nom: 'Hélène Martin',
  nomMasque: false,
  doublonDe: null,
});

const { calls, answers } = recordFetch();
let lignes: LigneGestionSignalement[];
/** The lists asked of the server, by address. */
const listes = () => calls.filter((c) => c.url.startsWith('/app/api/technique/gestion/signalements?')).map((c) => c.url);
const legende = () => document.querySelector('caption')?.textContent;

/** The page's address, to check the list's state is kept there. */
function Adresse() {
  const { search } = useLocation();
  return <output data-testid="adresse">{search}</output>;
}
const page = (url = '/technique/list') =>
  renderWithProviders(
    <>
      <SignalementsGestionPage />
      <Adresse />
    </>,
    { url },
  );


/** jsdom has no EventSource: a stand-in that lets the test send the server's events. */
class FauxFlux extends EventTarget {
  static readonly CLOSED = 2;
  static ouverts: FauxFlux[] = [];
  readyState = 1;
  constructor(readonly url: string) {
    super();
    FauxFlux.ouverts.push(this);
  }
  close() {
    this.readyState = FauxFlux.CLOSED;
  }
}

beforeEach(() => {
  lignes = [ligne('2026-00002', 'Nid-de-poule', 'nouveau', true), ligne('2026-00001', 'Banc cassé', 'resolu')];
  FauxFlux.ouverts = [];
  vi.stubGlobal('EventSource', FauxFlux);
  largeurDeFenetre(1280);
  answers['GET /app/api/user/me'] = { status: 200, body: { data: MOI } };
  answers['GET /app/api/technique/categories'] = {
    status: 200,
    body: { data: [{ code: 'voirie', libelle: 'Voirie', description: '', active: true }, { code: 'eclairage', libelle: 'Éclairage public', description: '', active: true }] },
  };
  answers['GET /app/api/technique/gestion/signalements?'] = () => ({ status: 200, body: { data: lignes, total: lignes.length, totalExact: true, page: 1, parPage: 50 } });
});

describe('the managers’ list of technical reports', () => {
  it('shows a table whose rows link to the reports, with the state badge and a mark for hidden content', async () => {
    page();
    const table = await screen.findByRole('table');
    expect(within(table).getByRole('link', { name: '2026-00002' })).toHaveAttribute('href', '/technique/2026-00002');
    expect(within(table).getByText('Nouveau')).toBeInTheDocument();
    expect(within(table).getByText('Contenu masqué')).toBeInTheDocument();
    expect(screen.getByText('2 signalements')).toBeInTheDocument();
    expect(listes()).toEqual(['/app/api/technique/gestion/signalements?']);
  });

  it('sorts by clicking the column headers, says the sort in words in the caption, and keeps it in the address', async () => {
    page();
    await screen.findByRole('table');
    expect(legende()).toBe('Signalements techniques, triés par date du signalement, du plus récent au plus ancien');
    const user = userEvent.setup();
    const attendues: [string, string, string][] = [
      ['Numéro', 'par numéro, dans l’ordre croissant', 'par numéro, dans l’ordre décroissant'],
      ['Dernière mise à jour', 'par dernière mise à jour, de la plus ancienne à la plus récente', 'par dernière mise à jour, de la plus récente à la plus ancienne'],
      ['État', 'par état, dans l’ordre des étapes', 'par état, dans l’ordre inverse des étapes'],
      ['Catégorie', 'par catégorie, de A à Z', 'par catégorie, de Z à A'],
      ['Date du signalement', 'par date du signalement, du plus ancien au plus récent', 'par date du signalement, du plus récent au plus ancien'],
    ];
    for (const [colonne, croissant, decroissant] of attendues) {
      const bouton = within(screen.getByRole('columnheader', { name: new RegExp(`^${colonne}`, 'u') })).getByRole('button');
      await user.click(bouton);
      expect(legende()).toBe(`Signalements techniques, triés ${croissant}`);
      expect(screen.getByRole('columnheader', { name: new RegExp(`^${colonne}`, 'u') })).toHaveAttribute('aria-sort', 'ascending');
      await user.click(bouton);
      expect(legende()).toBe(`Signalements techniques, triés ${decroissant}`);
    }
    expect(screen.getByTestId('adresse')).toHaveTextContent('');
    await user.click(within(screen.getByRole('columnheader', { name: /^Numéro/u })).getByRole('button'));
    expect(screen.getByTestId('adresse')).toHaveTextContent('?tri=numero&ordre=asc');
    await waitFor(() => expect(listes()).toContain('/app/api/technique/gestion/signalements?tri=numero&ordre=asc'));
  });

  it('reads its search, filters and sort from the address, and writes the filters back there', async () => {
    page('/technique/list?q=pagnol&etat=ouverts&categorie=voirie&tri=etat&ordre=asc&page=2');
    await screen.findByRole('table');
    expect(screen.getByRole('searchbox', { name: 'Rechercher' })).toHaveValue('pagnol');
    expect(screen.getByRole('combobox', { name: 'État' })).toHaveValue('ouverts');
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Catégorie' })).toHaveValue('voirie'));
    expect(legende()).toBe('Signalements techniques, triés par état, dans l’ordre des étapes');
    expect(listes()[0]).toBe('/app/api/technique/gestion/signalements?q=pagnol&categorie=voirie&etat=ouverts&tri=etat&ordre=asc&page=2');

    const user = userEvent.setup();
    await user.selectOptions(screen.getByRole('combobox', { name: 'État' }), 'fermes');
    expect(screen.getByTestId('adresse')).toHaveTextContent('?q=pagnol&categorie=voirie&etat=fermes&tri=etat&ordre=asc');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Catégorie' }), 'eclairage');
    expect(screen.getByTestId('adresse')).toHaveTextContent('?q=pagnol&categorie=eclairage&etat=fermes&tri=etat&ordre=asc');
    await user.selectOptions(screen.getByRole('combobox', { name: 'État' }), 'doublon');
    await user.clear(screen.getByRole('searchbox', { name: 'Rechercher' }));
    await user.type(screen.getByRole('searchbox', { name: 'Rechercher' }), 'banc');
    await waitFor(() => expect(screen.getByTestId('adresse')).toHaveTextContent('?q=banc&categorie=eclairage&etat=doublon&tri=etat&ordre=asc'));
    await waitFor(() => expect(listes().at(-1)).toBe('/app/api/technique/gestion/signalements?q=banc&categorie=eclairage&etat=doublon&tri=etat&ordre=asc'));
  });

  it('filters by period, from the address and back to it', async () => {
    page('/technique/list?du=2026-03-01');
    await screen.findByRole('table');
    expect(screen.getByLabelText('Signalés depuis le')).toHaveValue('2026-03-01');
    expect(listes()[0]).toBe('/app/api/technique/gestion/signalements?du=2026-03-01');
    fireEvent.change(screen.getByLabelText('Signalés jusqu’au'), { target: { value: '2026-03-31' } });
    expect(screen.getByTestId('adresse')).toHaveTextContent('?du=2026-03-01&au=2026-03-31');
    await waitFor(() => expect(listes().at(-1)).toBe('/app/api/technique/gestion/signalements?du=2026-03-01&au=2026-03-31'));
  });

  it('shows cards below 48em, each linking to its report, and a sort menu instead of the headers', async () => {
    largeurDeFenetre(375);
    page();
    const liste = await screen.findByRole('list', { name: 'Signalements techniques, triés par date du signalement, du plus récent au plus ancien' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const cartes = within(liste).getAllByRole('listitem');
    expect(cartes).toHaveLength(2);
    expect(within(cartes[0]!).getByRole('link', { name: 'n° 2026-00002 — Nid-de-poule' })).toHaveAttribute('href', '/technique/2026-00002');
    expect(within(cartes[0]!).getByText('Nouveau')).toBeInTheDocument();
    await userEvent.setup().selectOptions(screen.getByRole('combobox', { name: 'Trier' }), 'numero.asc');
    expect(screen.getByTestId('adresse')).toHaveTextContent('?tri=numero&ordre=asc');
    expect(await screen.findByRole('list', { name: 'Signalements techniques, triés par numéro, dans l’ordre croissant' })).toBeInTheDocument();
  });

  it('hears new reports and changes live on the managers’ stream and reads the list again', async () => {
    page();
    await screen.findByText('2 signalements');
    expect(FauxFlux.ouverts.map((f) => f.url)).toEqual(['/app/api/technique/gestion/evenements']);
    lignes = [ligne('2026-00003', 'Dépôt sauvage', 'nouveau'), ...lignes];
    act(() => {
      FauxFlux.ouverts[0]!.dispatchEvent(new MessageEvent('signalement', { data: JSON.stringify({ numero: '2026-00003', etat: 'nouveau', de: null, date: '2026-03-05T08:00:00.000Z' }) }));
    });
    // The list is read again LISTES_MS (400 ms) after an event: more than findBy's 1 s on a loaded machine.
    expect(await screen.findByRole('link', { name: '2026-00003' }, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText('3 signalements — 1 nouveau signalement arrivé depuis l’ouverture de la page')).toBeInTheDocument();
  });

  it('says when nothing matches, and clears the filters', async () => {
    lignes = [];
    page('/technique/list?etat=doublon');
    expect(await screen.findByText('Aucun signalement ne correspond à cette recherche ou à ces filtres')).toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Effacer la recherche et les filtres' }));
    expect(screen.getByTestId('adresse')).toHaveTextContent('');
  });

  it('is reserved to managers: a resident sees « Accès réservé » and no list is asked', async () => {
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { ...MOI, userType: 'resident' } } };
    page();
    expect(await screen.findByRole('heading', { level: 1, name: 'Accès réservé' })).toBeInTheDocument();
    expect(screen.getByText(/réservée aux gestionnaires/u)).toBeInTheDocument();
    expect(listes()).toEqual([]);
  });
});
