// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CATEGORIES_PAR_DEFAUT, HORS_PERIMETRE, type SignalementProche } from '../../../domain/signalements.js';
import { recordFetch, renderWithProviders, type FetchCall } from '../../test-utils.js';
import { PERIMETRE } from './donneesDeTest.js';
import { NouveauSignalementPage } from './NouveauSignalementPage.js';

const { calls, answers } = recordFetch();

const DEDANS = { latitude: 43.5261, longitude: 5.4182, accuracy: 12 };
const DEHORS = { latitude: 43.5265, longitude: 5.4474, accuracy: 12 };

const PROCHE: SignalementProche = {
  numero: '2026-00007',
  categorie: { code: 'eclairage', libelle: 'Éclairage public' },
  titre: 'Lampadaire éteint',
  lat: 43.5262,
  lon: 5.4183,
  adresse: 'Avenue de Brédasque',
  etat: 'confirme',
  creeLe: '2026-03-02T08:00:00.000Z',
  misAJourLe: '2026-03-03T08:00:00.000Z',
  distanceM: 14.2,
};

/** The browser's position, as the page asks for it: `position` answers, or `refus` says the person refused. */
function geolocalisation(reponse: { position?: typeof DEDANS; refus?: boolean }) {
  Object.defineProperty(navigator, 'geolocation', {
    configurable: true,
    value: {
      getCurrentPosition: (ok: PositionCallback, ko: PositionErrorCallback) => {
        if (reponse.position) ok({ coords: reponse.position, timestamp: Date.now() } as unknown as GeolocationPosition);
        else ko({ code: 1, PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3, message: 'refusé' } as GeolocationPositionError);
      },
    },
  });
}

const urls = () => calls.map((c) => `${c.method} ${c.url}`);

beforeEach(() => {
  answers['GET /app/api/technique/perimetre'] = { status: 200, body: { data: PERIMETRE } };
  answers['GET /app/api/technique/categories'] = { status: 200, body: { data: CATEGORIES_PAR_DEFAUT.map((c) => ({ ...c, active: true })) } };
  answers['GET /app/api/technique/signalements/proches?'] = { status: 200, body: { data: [] } };
  answers['GET /app/api/user/me'] = { status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'non connecté' } } };
  // No map in these tests (GET /carte answers 404): the page says so and every way but the map stays.
  URL.createObjectURL = (blob: Blob) => `blob:${(blob as File).name}`;
  URL.revokeObjectURL = () => {};
});

afterEach(() => {
  sessionStorage.clear();
  localStorage.clear();
  Reflect.deleteProperty(navigator, 'geolocation');
  Reflect.deleteProperty(URL, 'createObjectURL');
  Reflect.deleteProperty(URL, 'revokeObjectURL');
});

async function rendre() {
  const user = userEvent.setup();
  const vue = renderWithProviders(<NouveauSignalementPage />, { url: '/technique/nouveau' });
  await screen.findByRole('radio', { name: 'Voirie' });
  return { user, vue };
}

describe('« Nouveau signalement technique »', () => {
  it('refuses a form without a point, a category, a title or an e-mail, says why in French and takes the focus to the place', async () => {
    const { user } = await rendre();
    // Without the map, the page says what to use instead.
    expect(await screen.findByText('Utilisez votre position ou une adresse ci-dessous pour placer le problème.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Envoyer le signalement' }));

    expect(await screen.findByText('Placez le problème : touchez la carte, utilisez votre position ou choisissez une adresse.')).toBeInTheDocument();
    expect(screen.getByText('Choisissez une catégorie.')).toBeInTheDocument();
    expect(screen.getByText('Le titre est obligatoire.')).toBeInTheDocument();
    expect(screen.getByText('L’adresse e-mail est obligatoire : elle sert à vous tenir au courant.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: /Où est le problème/u })).toHaveFocus();
    expect(screen.getByText(/4 champs sont à corriger/u)).toBeInTheDocument();
    expect(urls()).not.toContain('POST /app/api/technique/signalements');

    // Once placed, the first error is the category: the focus goes to its first choice.
    geolocalisation({ position: DEDANS });
    await user.click(screen.getByRole('button', { name: 'Utiliser ma position' }));
    expect(await screen.findByText(/Point placé à votre position/u)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Envoyer le signalement' }));
    await waitFor(() => expect(screen.getByRole('radio', { name: 'Voirie' })).toHaveFocus());
  });

  it('refuses a point outside the district before any call, and says why', async () => {
    const { user } = await rendre();
    geolocalisation({ position: DEHORS });
    await user.click(screen.getByRole('button', { name: 'Utiliser ma position' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(HORS_PERIMETRE);
    expect(urls().some((u) => u.includes('/proches'))).toBe(false);
    expect(screen.queryByText(/Point placé/u)).not.toBeInTheDocument();
  });

  it('says in French when the person refuses to give the position', async () => {
    const { user } = await rendre();
    geolocalisation({ refus: true });
    await user.click(screen.getByRole('button', { name: 'Utiliser ma position' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Vous n’avez pas autorisé l’accès à votre position.');
  });

  it('shows the open reports within 50 m first, and « C’est le même problème » follows one instead of making a duplicate', async () => {
    answers['GET /app/api/technique/signalements/proches?'] = { status: 200, body: { data: [PROCHE] } };
    answers['POST /app/api/technique/signalements/2026-00007/suivre'] = { status: 200, body: { data: { suivi: true } } };
    const { user } = await rendre();
    geolocalisation({ position: DEDANS });
    await user.click(screen.getByRole('button', { name: 'Utiliser ma position' }));

    const deja = await screen.findByRole('region', { name: 'Déjà signalé tout près ?' });
    expect(urls()).toContain(`GET /app/api/technique/signalements/proches?lat=${DEDANS.latitude}&lon=${DEDANS.longitude}`);
    expect(within(deja).getByText(/1 signalement ouvert à moins de 50 m/u)).toBeInTheDocument();
    expect(within(deja).getByRole('link', { name: 'Lampadaire éteint' })).toHaveAttribute('href', '/technique/2026-00007');
    expect(within(deja).getByText(/Éclairage public, à 14 m/u)).toBeInTheDocument();

    await user.click(within(deja).getByRole('button', { name: 'C’est le même problème : Lampadaire éteint' }));
    const email = within(deja).getByRole('textbox', { name: /Votre adresse e-mail, pour suivre le signalement n° 2026-00007/u });
    expect(email).toHaveFocus();
    await user.click(within(deja).getByRole('button', { name: 'Suivre ce signalement' }));
    expect(await within(deja).findByText('L’adresse e-mail est obligatoire : elle sert à vous tenir au courant.')).toBeInTheDocument();
    await user.type(email, ' Nadia@Example.org ');
    await user.click(within(deja).getByRole('button', { name: 'Suivre ce signalement' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Vous suivez ce signalement' })).toHaveFocus();
    expect(screen.getByRole('status')).toHaveTextContent('aucun doublon n’a été créé');
    expect(screen.getByRole('status')).toHaveTextContent('nadia@example.org');
    expect(calls.find((c) => c.url.endsWith('/suivre'))?.body).toEqual({ email: 'nadia@example.org' });
    expect(urls()).not.toContain('POST /app/api/technique/signalements');
  });

  it('saves the report, then sends each photo with its key; a refused photo is said, the report kept, and it can be sent again', async () => {
    answers['POST /app/api/technique/signalements'] = { status: 201, body: { data: { numero: '2026-00042', cle: 'cle-privee-de-test-0123456789' } } };
    let envois = 0;
    answers['POST /app/api/technique/signalements/2026-00042/photos'] = (call: FetchCall) => {
      envois += 1;
      const nom = (call.body as FormData).get('photo') as File;
      return nom.name === 'nuit.png' && envois < 3
        ? { status: 415, body: { error: { code: 'FILE_TYPE_MISMATCH', message: 'Le contenu du fichier « nuit.png » ne correspond pas à son extension .png.' } } }
        : { status: 201, body: { data: { id: `p${envois}`, url: `/photo/${envois}`, largeur: 800, hauteur: 600 } } };
    };
    const { user, vue } = await rendre();
    expect(screen.getByText(/JPEG ou PNG, 3 photos au plus, 10 Mo chacune au plus\./u)).toBeInTheDocument();

    geolocalisation({ position: DEDANS });
    await user.click(screen.getByRole('button', { name: 'Utiliser ma position' }));
    await screen.findByText(/Point placé/u);
    await user.click(screen.getByRole('radio', { name: 'Éclairage public' }));
    await user.type(screen.getByRole('textbox', { name: /^Titre/u }), '  Lampadaire   éteint depuis lundi ');
    await user.type(screen.getByRole('textbox', { name: /^Adresse e-mail/u }), 'nadia@example.org');
    await user.type(screen.getByRole('textbox', { name: /^Votre nom/u }), 'Nadia B.');
    await user.click(screen.getByRole('checkbox', { name: 'Ne pas afficher mon nom publiquement' }));

    const fichier = vue.container.querySelector<HTMLInputElement>('input[type=file]')!;
    await user.upload(fichier, [new File(['jpeg'], 'jour.jpg', { type: 'image/jpeg' }), new File(['png'], 'nuit.png', { type: 'image/png' })]);
    const choisies = await screen.findByRole('list', { name: 'Photos choisies' });
    expect(within(choisies).getByRole('img', { name: 'Aperçu 1 : jour.jpg' })).toBeInTheDocument();
    expect(within(choisies).getByRole('img', { name: 'Aperçu 2 : nuit.png' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Envoyer le signalement' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Votre signalement est enregistré' })).toHaveFocus();

    const creation = calls.find((c) => c.method === 'POST' && c.url === '/app/api/technique/signalements')!;
    expect(creation.body).toEqual({
      categorie: 'eclairage',
      titre: 'Lampadaire éteint depuis lundi',
      description: '',
      adresse: '',
      email: 'nadia@example.org',
      nom: 'Nadia B.',
      nomMasque: true,
      lat: DEDANS.latitude,
      lon: DEDANS.longitude,
    });
    // One call per photo, each with the report's private key.
    const photos = calls.filter((c) => c.url.endsWith('/photos'));
    expect(photos).toHaveLength(2);
    expect(sessionStorage.getItem('quartier-vivant.cles-signalements')).toBe(JSON.stringify({ '2026-00042': 'cle-privee-de-test-0123456789' }));

    expect(screen.getByText(/Numéro du signalement/u)).toHaveTextContent('2026-00042');
    expect(screen.getByText(/Un e-mail vous a été envoyé à/u)).toHaveTextContent('nadia@example.org');
    expect(screen.getByRole('textbox', { name: 'Lien de suivi du signalement' })).toHaveValue('http://localhost:3000/technique/2026-00042#cle=cle-privee-de-test-0123456789');
    expect(screen.getByText('1 photo envoyée.')).toBeInTheDocument();
    expect(screen.getByText(/« nuit\.png » : Le contenu du fichier « nuit\.png » ne correspond pas/u)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Renvoyer « nuit.png »' }));
    expect(await screen.findByText('2 photos envoyées.')).toBeInTheDocument();
    expect(screen.queryByText(/n’a pas été envoyée/u)).not.toBeInTheDocument();
  });

  it('places the point at an address the national base knows, and keeps the address', async () => {
    answers['GET /app/api/adresses?'] = {
      status: 200,
      body: { data: [{ label: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence', adresse: '8 Avenue Marcel Pagnol', codePostal: '13090', ville: 'Aix-en-Provence', lat: 43.5262, lon: 5.4203 }] },
    };
    const { user } = await rendre();
    await user.type(screen.getByRole('combobox', { name: /Adresse ou lieu du problème/u }), '8 av marcel');
    await user.click(await screen.findByRole('option', { name: '8 Avenue Marcel Pagnol 13090 Aix-en-Provence' }));
    expect(await screen.findByText(/Point placé à l’adresse choisie/u)).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: /Adresse ou lieu du problème/u })).toHaveValue('8 Avenue Marcel Pagnol');
    await waitFor(() => expect(urls()).toContain('GET /app/api/technique/signalements/proches?lat=43.5262&lon=5.4203'));
  });
});
