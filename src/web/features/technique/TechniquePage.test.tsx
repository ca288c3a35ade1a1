// @vitest-environment jsdom
import { act, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { CATEGORIES_PAR_DEFAUT, type ListeSignalements, type SignalementResume } from '../../../domain/signalements.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { PERIMETRE } from './donneesDeTest.js';
import { filtresDepuisAdresse, TechniquePage } from './TechniquePage.js';

const { calls, answers } = recordFetch();

const resume = (numero: string, titre: string, etat: SignalementResume['etat']): SignalementResume => ({
  numero,
  categorie: { code: 'voirie', libelle: 'Voirie' },
  titre,
  lat: 43.526,
  lon: 5.418,
  adresse: 'Avenue de Brédasque',
  etat,
  creeLe: '2026-03-02T08:00:00.000Z',
  misAJourLe: '2026-03-02T08:00:00.000Z',
});

const page = (data: SignalementResume[], total = data.length, parPage = 50): { status: number; body: ListeSignalements } => ({
  status: 200,
  body: { data, total, totalExact: true, page: 1, parPage },
});

/** The router's address, shown beside the page: what a shared link would be. */
function Adresse() {
  const { pathname, search } = useLocation();
  return <output data-testid="adresse">{pathname + search}</output>;
}

/** The list's calls (the map asks for its own page of 200: `parPage=200`). */
const listes = () => calls.filter((c) => c.url.startsWith('/app/api/technique/signalements?') && !c.url.includes('parPage=200')).map((c) => c.url);
const cartes = () => calls.filter((c) => c.url.startsWith('/app/api/technique/signalements?') && c.url.includes('parPage=200')).map((c) => c.url);

beforeEach(() => {
  answers['GET /app/api/technique/perimetre'] = { status: 200, body: { data: PERIMETRE } };
  answers['GET /app/api/technique/categories'] = { status: 200, body: { data: CATEGORIES_PAR_DEFAUT.map((c) => ({ ...c, active: true })) } };
  answers['GET /app/api/technique/signalements?'] = page([resume('2026-00002', 'Nid-de-poule', 'nouveau'), resume('2026-00001', 'Banc cassé', 'resolu')]);
  answers['GET /app/api/user/me'] = { status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'non connecté' } } };
});

describe('/technique', () => {
  it('asks for the report’s number in its own words, without the housing numéro’s example', async () => {
    renderWithProviders(<TechniquePage />);
    const champ = screen.getByRole('textbox', { name: 'Numéro du signalement' });
    expect(champ).not.toHaveAttribute('placeholder');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Suivre' }));
    expect(await screen.findByText('Saisissez le numéro de votre signalement.')).toBeInTheDocument();
    expect(screen.queryByText(/numéro unique/u)).toBeNull();
    expect(champ).toHaveFocus();
  });

  it('lists the district’s reports, each a link to its page with its state', async () => {
    renderWithProviders(<TechniquePage />, { url: '/technique' });
    const liste = await screen.findByRole('list', { name: 'Liste des signalements' });
    const lignes = within(liste).getAllByRole('listitem');
    expect(lignes).toHaveLength(2);
    expect(within(lignes[0]!).getByRole('link', { name: 'Nid-de-poule' })).toHaveAttribute('href', '/technique/2026-00002');
    expect(lignes[0]).toHaveTextContent('Nouveau');
    expect(lignes[1]).toHaveTextContent('Résolu');
    expect(screen.getByText('2 signalements.')).toBeInTheDocument();
    expect(screen.queryByText(/bientôt/iu)).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Signaler un problème' })).toHaveAttribute('href', '/technique/nouveau');
  });

  it('leads managers, and them only, to the managers’ list', async () => {
    const { unmount } = renderWithProviders(<TechniquePage />, { url: '/technique' });
    await screen.findByText('2 signalements.');
    expect(screen.queryByRole('link', { name: 'Tous les signalements (gestion)' })).not.toBeInTheDocument();
    unmount();
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { uid: 'g1', nom: 'Mairie', prenom: 'Camille', userType: 'manager' } } };
    renderWithProviders(<TechniquePage />, { url: '/technique' });
    expect(await screen.findByRole('link', { name: 'Tous les signalements (gestion)' })).toHaveAttribute('href', '/technique/list');
  });

  it('keeps the filters in the address, so that a filtered view can be shared, and asks the API the same', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <TechniquePage />
        <Adresse />
      </>,
      { url: '/technique?etat=ouverts&page=2' },
    );
    // Opened from a shared address: the filters show what it says, and the API is asked the same.
    expect(screen.getByRole('combobox', { name: 'État' })).toHaveValue('ouverts');
    await waitFor(() => expect(listes()).toContain('/app/api/technique/signalements?etat=ouverts&page=2'));

    await user.selectOptions(await screen.findByRole('combobox', { name: 'Catégorie' }), 'Éclairage public');
    // A new filter goes back to the first page.
    expect(screen.getByTestId('adresse')).toHaveTextContent('/technique?categorie=eclairage&etat=ouverts');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Signalés depuis' }), 'Les 30 derniers jours');
    await user.selectOptions(screen.getByRole('combobox', { name: 'État' }), 'Résolu');
    expect(screen.getByTestId('adresse')).toHaveTextContent('/technique?categorie=eclairage&etat=resolu&depuis=30');
    await waitFor(() => expect(listes().at(-1)).toBe('/app/api/technique/signalements?categorie=eclairage&etat=resolu&depuis=30'));
    // The map shows the same reports, the most recent 200.
    expect(cartes().at(-1)).toBe('/app/api/technique/signalements?categorie=eclairage&etat=resolu&depuis=30&parPage=200');
    expect(await screen.findByText('2 signalements correspondant à ces critères.')).toBeInTheDocument();

    await user.selectOptions(screen.getByRole('combobox', { name: 'État' }), 'Tous les états');
    expect(screen.getByTestId('adresse')).toHaveTextContent(/^\/technique\?categorie=eclairage&depuis=30$/u);
  });

  it('reads a wrong value of the address as no filter, and keeps the others', () => {
    expect(filtresDepuisAdresse(new URLSearchParams('etat=perdu&depuis=30&categorie=voirie'))).toMatchObject({ etat: '', depuis: 30, categorie: 'voirie', page: 1 });
    const sansFiltre = filtresDepuisAdresse(new URLSearchParams('depuis=-3&page=zéro'));
    expect(sansFiltre).toMatchObject({ etat: '', categorie: '', page: 1 });
    expect(sansFiltre.depuis).toBeUndefined();
  });

  it('pages as the API gives, and says how many match', async () => {
    answers['GET /app/api/technique/signalements?'] = page([resume('2026-00002', 'Nid-de-poule', 'nouveau')], 120);
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <TechniquePage />
        <Adresse />
      </>,
      { url: '/technique' },
    );
    expect(await screen.findByText('120 signalements — page 1 sur 3.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Page suivante' }));
    expect(screen.getByTestId('adresse')).toHaveTextContent('/technique?page=2');
    await waitFor(() => expect(listes().at(-1)).toBe('/app/api/technique/signalements?page=2'));
    // The map stays on the most recent ones.
    expect(new Set(cartes())).toEqual(new Set(['/app/api/technique/signalements?parPage=200']));
    expect(screen.getByRole('heading', { name: 'Liste des signalements' })).toHaveFocus();
  });

  it('explains the area alert’s double opt-in and asks for it', async () => {
    answers['POST /app/api/technique/alertes'] = { status: 202, body: { data: { envoye: true } } };
    const user = userEvent.setup();
    renderWithProviders(<TechniquePage />, { url: '/technique' });
    const alerte = screen.getByRole('region', { name: 'Prévenez-moi des nouveaux signalements dans le quartier' });
    expect(alerte).toHaveTextContent('rien n’est envoyé avant que vous ayez ouvert le lien de cet e-mail');
    await user.click(within(alerte).getByRole('button', { name: 'M’inscrire aux alertes' }));
    expect(await within(alerte).findByText('L’adresse e-mail est obligatoire : elle sert à vous tenir au courant.')).toBeInTheDocument();
    await user.type(within(alerte).getByRole('textbox', { name: /Votre adresse e-mail/u }), 'voisin@example.org');
    await user.click(within(alerte).getByRole('button', { name: 'M’inscrire aux alertes' }));
    expect(await within(alerte).findByRole('status')).toHaveTextContent('Un e-mail vient d’être envoyé à voisin@example.org');
    expect(calls.find((c) => c.url === '/app/api/technique/alertes')?.body).toEqual({ email: 'voisin@example.org' });
  });

  it('shows a new report as it is made (live events), and says so', async () => {
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
    vi.stubGlobal('EventSource', FauxFlux);
    renderWithProviders(<TechniquePage />, { url: '/technique' });
    await screen.findByText('2 signalements.');
    expect(FauxFlux.ouverts.map((f) => f.url)).toEqual(['/app/api/technique/evenements']);

    answers['GET /app/api/technique/signalements?'] = page([resume('2026-00003', 'Dépôt sauvage', 'nouveau'), resume('2026-00002', 'Nid-de-poule', 'nouveau'), resume('2026-00001', 'Banc cassé', 'resolu')]);
    const event = { numero: '2026-00003', etat: 'nouveau', de: null, date: '2026-03-03T08:00:00.000Z' };
    act(() => {
      FauxFlux.ouverts[0]!.dispatchEvent(new MessageEvent('signalement', { data: JSON.stringify(event) }));
    });
    // The list is read again LISTES_MS (400 ms) after an event: more than findBy's 1 s on a loaded machine.
    expect(await screen.findByText('Un nouveau signalement vient d’être fait (n° 2026-00003) : la liste est à jour.', undefined, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'Dépôt sauvage' })).toHaveAttribute('href', '/technique/2026-00003');
    expect(screen.getByText('3 signalements.')).toBeInTheDocument();
  });

  it('draws the reports on the map as links named by number, title and state', async () => {
    answers['GET /app/api/carte'] = { status: 200, body: { data: { tuilesUrl: 'http://127.0.0.1:9/{z}/{x}/{y}.png', attribution: 'Tuiles de test' } } };
    renderWithProviders(
      <>
        <TechniquePage />
        <Adresse />
      </>,
      { url: '/technique' },
    );
    const carte = await screen.findByRole('region', { name: 'Carte des signalements du quartier' }, { timeout: 5000 });
    const reperes = await within(carte).findAllByRole('link', { name: /^Signalement n° / });
    expect(reperes.map((r) => r.getAttribute('aria-label'))).toEqual(['Signalement n° 2026-00002 : Nid-de-poule (Nouveau)', 'Signalement n° 2026-00001 : Banc cassé (Résolu)']);
    expect(reperes.every((r) => r.tabIndex === 0)).toBe(true);
    expect(within(carte).getByRole('button', { name: 'Zoom avant' })).toBeInTheDocument();
    expect(carte).toHaveTextContent('Tuiles de test');
    // A mark opens its report with Enter, as a link does.
    reperes[1]!.focus();
    await userEvent.setup().keyboard('{Enter}');
    expect(screen.getByTestId('adresse')).toHaveTextContent('/technique/2026-00001');
  });
});
