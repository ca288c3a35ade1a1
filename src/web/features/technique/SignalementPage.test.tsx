// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ETAT_SIGNALEMENT_EXPLICATIONS, type SignalementVue } from '../../../domain/signalements.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { PERIMETRE } from './donneesDeTest.js';
import { SignalementPage } from './SignalementPage.js';

const { calls, answers } = recordFetch();

const CLE = 'cle-privee-de-test-0123456789';
const URL_API = '/app/api/technique/signalements/2026-00042';

const vue = (changes: Partial<SignalementVue> = {}): SignalementVue => ({
  numero: '2026-00042',
  categorie: { code: 'eclairage', libelle: 'Éclairage public' },
  titre: 'Lampadaire éteint',
  description: 'Depuis lundi, devant le n° 8.',
  titreMasque: false,
  descriptionMasquee: false,
  lat: 43.5262,
  lon: 5.4183,
  adresse: '8 Avenue Marcel Pagnol',
  etat: 'resolu',
  creeLe: '2026-03-02T08:00:00.000Z',
  misAJourLe: '2026-03-05T08:00:00.000Z',
  auteur: null,
  photos: [{ id: '5f0c8a4e-0000-4000-8000-000000000001', url: `${URL_API}/photos/5f0c8a4e-0000-4000-8000-000000000001`, largeur: 800, hauteur: 600 }],
  miseAJours: [
    { le: '2026-03-05T08:00:00.000Z', etat: 'resolu', texte: 'Ampoule changée.', par: 'mairie' },
    { le: '2026-03-02T08:00:00.000Z', etat: 'nouveau', texte: null, par: 'signalant' },
    { le: '2026-03-03T08:00:00.000Z', etat: 'confirme', texte: null, par: 'mairie' },
  ],
  doublonDe: null,
  suiveurs: 2,
  estSignalant: false,
  peutAjouterPhotos: false,
  ...changes,
});

/** The headers each call to the report carried. */
const entetes: (HeadersInit | undefined)[] = [];

beforeEach(() => {
  entetes.length = 0;
  const enregistre = globalThis.fetch;
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => {
    if (url.startsWith(URL_API)) entetes.push(init?.headers);
    return enregistre(url, init);
  });
  answers['GET /app/api/technique/perimetre'] = { status: 200, body: { data: PERIMETRE } };
  answers['GET /app/api/user/me'] = { status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'non connecté' } } };
});

afterEach(() => {
  sessionStorage.clear();
  window.history.replaceState(null, '', '/');
});

describe('/technique/:numero', () => {
  it('shows anyone the report: state and its explanation, place, photos with their text, history in order, and « Suivre ce signalement »', async () => {
    answers[`GET ${URL_API}`] = { status: 200, body: { data: vue() } };
    answers[`POST ${URL_API}/suivre`] = { status: 200, body: { data: { suivi: true } } };
    const user = userEvent.setup();
    renderWithProviders(<SignalementPage />, { url: '/technique/2026-00042', path: '/technique/:numero' });

    expect(await screen.findByRole('heading', { level: 1, name: 'Lampadaire éteint' })).toBeInTheDocument();
    expect(document.title).toBe('Signalement n° 2026-00042 — Quartier Vivant');
    expect(screen.getByText('Signalement n° 2026-00042 — Éclairage public')).toBeInTheDocument();
    const etat = screen.getByRole('region', { name: 'État :' });
    expect(etat).toHaveTextContent('Résolu');
    expect(etat).toHaveTextContent(ETAT_SIGNALEMENT_EXPLICATIONS.resolu);
    expect(screen.getByText('8 Avenue Marcel Pagnol')).toBeInTheDocument();
    expect(screen.getByText('2 personnes')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Vue 1 sur 1 du problème signalé : Lampadaire éteint' })).toHaveAttribute('src', vue().photos[0]!.url);

    const historique = within(screen.getByRole('region', { name: 'Historique' })).getByRole('list');
    expect(historique.tagName).toBe('OL');
    expect(within(historique).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      '02/03/2026 09:00 — Signalement fait.',
      '03/03/2026 09:00 — La mairie a passé le signalement à l’état « Confirmé ».',
      '05/03/2026 09:00 — La mairie a passé le signalement à l’état « Résolu ».Message de la mairie : Ampoule changée.',
    ]);
    // Not the reporter: no « Toujours pas résolu », no key sent.
    expect(screen.queryByRole('button', { name: 'Toujours pas résolu' })).not.toBeInTheDocument();
    expect(entetes[0]).toEqual({});

    const suivre = screen.getByRole('region', { name: 'Suivre ce signalement' });
    await user.type(within(suivre).getByRole('textbox', { name: /Votre adresse e-mail/u }), 'voisine@example.org');
    await user.click(within(suivre).getByRole('button', { name: 'Suivre ce signalement' }));
    expect(await within(suivre).findByRole('status')).toHaveTextContent('Un e-mail de confirmation a été envoyé à voisine@example.org');
    expect(calls.find((c) => c.url.endsWith('/suivre'))?.body).toEqual({ email: 'voisine@example.org' });
  });

  it('links a duplicate to its original; its history starts with the report, the name shown when the reporter left it public', async () => {
    answers[`GET ${URL_API}`] = { status: 200, body: { data: vue({ etat: 'doublon', doublonDe: '2026-00007', auteur: 'Nadia B.', miseAJours: [] }) } };
    renderWithProviders(<SignalementPage />, { url: '/technique/2026-00042', path: '/technique/:numero' });
    expect(await screen.findByRole('link', { name: 'n° 2026-00007' })).toHaveAttribute('href', '/technique/2026-00007');
    expect(screen.getByRole('region', { name: 'État :' })).toHaveTextContent(ETAT_SIGNALEMENT_EXPLICATIONS.doublon);
    const historique = within(screen.getByRole('region', { name: 'Historique' })).getByRole('list');
    expect(within(historique).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['02/03/2026 09:00 — Signalement fait par Nadia B.']);
  });

  it('takes the key from the follow link, hides it, and lets its holder say « Toujours pas résolu » after confirming', async () => {
    window.history.replaceState(null, '', `/technique/2026-00042#cle=${CLE}`);
    answers[`GET ${URL_API}`] = { status: 200, body: { data: vue({ estSignalant: true }) } };
    answers[`POST ${URL_API}/toujours-pas-resolu`] = {
      status: 200,
      body: {
        data: vue({
          estSignalant: true,
          etat: 'confirme',
          miseAJours: [...vue().miseAJours, { le: '2026-03-06T08:00:00.000Z', etat: 'confirme', texte: 'Toujours éteint le soir.', par: 'signalant' }],
        }),
      },
    };
    const user = userEvent.setup();
    renderWithProviders(<SignalementPage />, { url: '/technique/2026-00042', path: '/technique/:numero' });

    await screen.findByRole('heading', { level: 1, name: 'Lampadaire éteint' });
    expect(window.location.hash).toBe('');
    expect(entetes[0]).toEqual({ 'X-Access-Key': CLE });
    expect(screen.getByText('Vous avez fait ce signalement : vous recevez un e-mail à chaque étape.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Suivre ce signalement' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Toujours pas résolu' }));
    const dialogue = await screen.findByRole('dialog', { name: 'Le problème n’est toujours pas résolu ?' });
    // Nothing is sent before the confirmation; « Annuler » sends nothing.
    await user.click(within(dialogue).getByRole('button', { name: 'Annuler' }));
    expect(calls.some((c) => c.url.endsWith('/toujours-pas-resolu'))).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Toujours pas résolu' }));
    const encore = await screen.findByRole('dialog', { name: 'Le problème n’est toujours pas résolu ?' });
    await user.type(within(encore).getByRole('textbox', { name: /Ce qui ne va toujours pas/u }), 'Toujours éteint le soir.');
    await user.click(within(encore).getByRole('button', { name: 'Confirmer : toujours pas résolu' }));

    await waitFor(() => expect(screen.getByRole('region', { name: 'État :' })).toHaveTextContent('Confirmé'));
    expect(calls.find((c) => c.url.endsWith('/toujours-pas-resolu'))?.body).toEqual({ texte: 'Toujours éteint le soir.' });
    expect(entetes.at(-1)).toMatchObject({ 'X-Access-Key': CLE });
    expect(screen.getByText('C’est noté : le signalement est rouvert et le service est prévenu.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Toujours pas résolu' })).not.toBeInTheDocument();
    expect(screen.getByText(/La personne qui a fait le signalement indique que le problème n’est toujours pas résolu/u)).toBeInTheDocument();
  });

  it('says when no report has that number, and when the number is not one', async () => {
    answers[`GET /app/api/technique/signalements/2026-09999`] = { status: 404, body: { error: { code: 'NOT_FOUND', message: 'absent' } } };
    const premier = renderWithProviders(<SignalementPage />, { url: '/technique/2026-09999', path: '/technique/:numero' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Il n’existe pas de signalement sous ce numéro.');
    premier.unmount();
    renderWithProviders(<SignalementPage />, { url: '/technique/42', path: '/technique/:numero' });
    expect(screen.getByRole('alert')).toHaveTextContent('Un numéro de signalement s’écrit comme 2026-00042');
  });
});
