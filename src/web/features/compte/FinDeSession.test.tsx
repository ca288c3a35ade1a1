// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query';
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EcheancesSession, Moi } from '../../../domain/compte.js';
import { App } from '../../app/App.js';
import { apiFetch } from '../../lib/api.js';
import { oublierHorloge } from '../../lib/apiActivite.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import FinDeSession from './FinDeSession.js';

/**
 * The warning before a manager's session ends (RGAA 13.1), on a fake clock: the server's answers are
 * stubbed with the times it would give (GET /user/session), the component's timers run on vi's clock.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DEBUT = Date.parse('2026-11-26T13:00:00.000Z'); // 14 h 00 in Aix-en-Provence

/** The server: when the manager signed in (the absolute end is 12 hours later), and the requests it received. */
let connexion: number;
let derniereActivite: number;
const { calls, answers } = recordFetch();
const requetes = () => calls.map((c) => c.url);
/** What the next calls to the managers' list answer (200, or 401 once the session is over). */
let statutListe: number;
let moi: Moi | null;

const NON_CONNECTE = { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'Connectez-vous pour continuer.' } } };

/** The server's rule (src/server/auth/sessions.ts): the activity time moves when a minute or more has passed. */
function activite() {
  if (Date.now() - derniereActivite >= MINUTE) derniereActivite = Date.now();
}

beforeEach(() => {
  vi.useFakeTimers({ now: DEBUT, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'requestAnimationFrame', 'cancelAnimationFrame'] });
  connexion = DEBUT;
  derniereActivite = DEBUT;
  statutListe = 200;
  moi = null;
  window.history.pushState({}, '', '/logement/013abc123?onglet=notes');
  answers['GET /app/api/user/session'] = () => {
    activite();
    const data: EcheancesSession = {
      maintenant: new Date().toISOString(),
      derniereActivite: new Date(derniereActivite).toISOString(),
      finInactivite: new Date(derniereActivite + 30 * MINUTE).toISOString(),
      finAbsolue: new Date(connexion + 12 * HOUR).toISOString(),
      inactiviteMs: 30 * MINUTE,
      activiteEcriteToutesLesMs: MINUTE,
    };
    return { status: 200, body: { data } };
  };
  answers['GET /app/api/user/me'] = () => (moi ? { status: 200, body: { data: moi } } : NON_CONNECTE);
  answers['GET /app/api/logement?'] = () => {
    if (statutListe === 401) return NON_CONNECTE;
    activite();
    return { status: 200, body: { data: [] } };
  };
});

afterEach(() => {
  oublierHorloge();
  localStorage.clear();
  vi.useRealTimers();
});

function afficher() {
  return renderWithProviders(
    <>
      <textarea aria-label="Note" />
      <FinDeSession />
    </>,
    { url: '/logement/013abc123?onglet=notes' },
  );
}

/** Moves the fake clock on, letting promises (the stubbed fetch) and React settle on the way. */
async function attendre(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

/** Mantine's dialog opens and closes in steps (a frame, then its transition): each one its own act. */
async function transitions() {
  for (let i = 0; i < 3; i++) await attendre(100);
}

const dialogue = () => screen.queryByRole('dialog');

describe('FinDeSession', () => {
  it('warns 2 minutes before the idle end, and « Rester connecté » is one request that moves the end', async () => {
    afficher();
    await attendre(0);
    expect(requetes()).toEqual(['/app/api/user/session']);
    screen.getByLabelText('Note').focus();

    await attendre(28 * MINUTE - 1000);
    expect(dialogue()).toBeNull();
    await attendre(1000);
    await transitions();
    const avertissement = screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' });
    expect(avertissement).toHaveTextContent('votre session prendra fin à 14 h 30');
    expect(avertissement).toHaveTextContent('après 30 minutes sans échange avec le serveur');
    const rester = screen.getByRole('button', { name: 'Rester connecté' });
    expect(rester).toHaveFocus();
    expect(screen.getByRole('link', { name: 'Se déconnecter' })).toHaveAttribute('href', '/deconnexion');

    await act(async () => {
      rester.click();
    });
    await transitions();
    expect(requetes()).toEqual(['/app/api/user/session', '/app/api/user/session']);
    expect(dialogue()).toBeNull();
    // Focus goes back where the person was typing.
    expect(screen.getByLabelText('Note')).toHaveFocus();

    // The end moved 28 minutes on: no warning until 2 minutes before it.
    await attendre(27 * MINUTE);
    expect(dialogue()).toBeNull();
    await attendre(MINUTE);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' })).toHaveTextContent('prendra fin à 14 h 58');
  });

  it('Escape on the warning is « Rester connecté »: the person is there', async () => {
    afficher();
    await attendre(28 * MINUTE);
    await transitions();
    const avertissement = screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' });
    await act(async () => {
      fireEvent.keyDown(avertissement, { key: 'Escape' });
    });
    await transitions();
    expect(requetes()).toEqual(['/app/api/user/session', '/app/api/user/session']);
    expect(dialogue()).toBeNull();
  });

  it('every API call moves the clock as the server moves the activity: a request at minute 20 puts the warning off to minute 48', async () => {
    const appel = () =>
      act(async () => {
        await apiFetch('/logement?page=1');
      });
    afficher();
    await attendre(20 * MINUTE);
    await appel();
    await attendre(28 * MINUTE - 1000);
    expect(dialogue()).toBeNull();
    await attendre(1000);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' })).toHaveTextContent('prendra fin à 14 h 50');
  });

  it('a request within the minute after the recorded activity moves nothing (the server writes none)', async () => {
    afficher();
    await attendre(30_000);
    await act(async () => {
      await apiFetch('/logement?page=1');
    });
    await attendre(28 * MINUTE - 30_000);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' })).toHaveTextContent('prendra fin à 14 h 30');
  });

  it('says when the session has ended, and offers to sign in again back to this page', async () => {
    afficher();
    await attendre(28 * MINUTE);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' })).toBeInTheDocument();
    await attendre(2 * MINUTE);
    await transitions();
    const fin = screen.getByRole('dialog', { name: 'Votre session a pris fin' });
    expect(fin).toHaveTextContent('Votre session a pris fin après 30 minutes sans échange avec le serveur.');
    expect(fin).toHaveTextContent('copiez-le si besoin avant de vous reconnecter');
    expect(screen.queryByRole('button', { name: 'Rester connecté' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Se reconnecter' })).toHaveAttribute('href', '/connexion?retour=/logement/013abc123%3Fonglet%3Dnotes');
    // No request of its own: the session ended by the clock, nothing asked the server.
    expect(requetes()).toEqual(['/app/api/user/session']);

    // « Fermer » leaves the page as it is, to copy what was typed.
    await act(async () => {
      screen.getByRole('button', { name: 'Fermer' }).click();
    });
    await transitions();
    expect(dialogue()).toBeNull();
  });

  it('says the session has ended when the server answers 401, before any end of the clock', async () => {
    afficher();
    await attendre(5 * MINUTE);
    statutListe = 401;
    await act(async () => {
      await apiFetch('/logement?page=1').catch(() => undefined);
    });
    await transitions();
    const fin = screen.getByRole('dialog', { name: 'Votre session a pris fin' });
    expect(fin).toHaveTextContent('Vous n’êtes plus connecté à votre compte.');
  });

  it('warns 10 minutes before the absolute end that it cannot be extended', async () => {
    connexion = DEBUT - 12 * HOUR + 15 * MINUTE;
    afficher();
    await attendre(0);
    expect(dialogue()).toBeNull();
    await attendre(5 * MINUTE);
    await transitions();
    const avertissement = screen.getByRole('dialog', { name: 'Votre session va prendre fin' });
    expect(avertissement).toHaveTextContent('elle prendra fin à 14 h 15 et ne peut pas être prolongée');
    expect(screen.queryByRole('button', { name: 'Rester connecté' })).toBeNull();
    expect(screen.getByRole('button', { name: 'J’ai compris' })).toHaveFocus();

    await act(async () => {
      screen.getByRole('button', { name: 'J’ai compris' }).click();
    });
    await transitions();
    expect(dialogue()).toBeNull();
    await attendre(10 * MINUTE);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session a pris fin' })).toHaveTextContent('Votre session a atteint sa durée maximale.');
  });

  it('follows another tab of the same browser: its requests put the warning off here too', async () => {
    afficher();
    await attendre(28 * MINUTE);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' })).toBeInTheDocument();
    const partagee = JSON.parse(localStorage.getItem('quartier-vivant.session')!);
    const autre = { ...partagee, activiteAuPlusTot: Date.now(), activiteAuPlusTard: Date.now() };
    await act(async () => {
      window.dispatchEvent(new StorageEvent('storage', { key: 'quartier-vivant.session', newValue: JSON.stringify(autre) }));
    });
    await transitions();
    expect(dialogue()).toBeNull();
  });
});

describe('App', () => {
  const profil = (userType: Moi['userType']): Moi => ({
    uid: 'u1',
    pic: '',
    nom: 'Martin',
    prenom: 'Claire',
    quartier: 'Jas de Bouffan',
    ville: 'Aix-en-Provence',
    pays: 'France',
    emailVerified: true,
    gender: 'F',
    visibilite: 'voisins',
    email: 'claire@example.org',
    birthday: null,
    residence: 'Mairie',
    rue: 'Avenue Marcel-Pagnol',
    userType,
    dateDEnregistrement: '2026-03-05T09:30:00.000Z',
    invitationLink: '',
    followers: [],
    following: [],
  });

  const monter = () => render(<App queryClient={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>{null}</App>);

  it('mounts the warning for a manager, not for a resident (whose session lasts 30 days)', async () => {
    moi = profil('habitant');
    const vue = monter();
    await attendre(1000);
    expect(requetes()).toContain('/app/api/user/me');
    await attendre(40 * MINUTE);
    expect(requetes()).not.toContain('/app/api/user/session');
    expect(dialogue()).toBeNull();
    vue.unmount();

    moi = profil('manager');
    calls.length = 0;
    monter();
    await vi.waitFor(() => expect(requetes()).toContain('/app/api/user/session'), { timeout: 5000, interval: 50 });
    await attendre(28 * MINUTE);
    await transitions();
    expect(screen.getByRole('dialog', { name: 'Votre session va bientôt prendre fin' })).toBeInTheDocument();
  });
});
