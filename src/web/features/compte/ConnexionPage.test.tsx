// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Moi } from '../../../domain/compte.js';
import { recordFetch, renderWithProviders, type FetchAnswer } from '../../test-utils.js';
import { ConnexionPage } from './ConnexionPage.js';
import { ProfilPage } from './ProfilPage.js';

// The network is the browser's fetch: recorded here so the tests can say what was (not) sent; an answer may
// change what the server says next (signing in makes /user/me answer the account).
const { calls, answers } = recordFetch();

const SIGNED_OUT: FetchAnswer = { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'Connectez-vous.' } } };

function moi(overrides: Partial<Moi> = {}): Moi {
  return {
    uid: 'lucas-uid',
    pic: '/avatar-defaut.svg',
    nom: 'Garcia',
    prenom: 'Lucas',
    quartier: 'Jas de Bouffan',
    ville: 'Aix-en-Provence',
    pays: 'France',
    emailVerified: false,
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
    ...overrides,
  };
}

const ELODIE = { uid: 'elodie-uid', pic: '/avatar-defaut.svg', prenom: 'Élodie', quartier: 'Jas de Bouffan', ville: 'Aix-en-Provence', pays: 'France', emailVerified: true };

beforeEach(() => {
  Object.assign(answers, {
    'GET /app/api/user/me': SIGNED_OUT,
    'GET /app/api/parametres': { status: 200, body: { data: { google: true } } },
    'GET /app/api/territoire': { status: 200, body: { data: { ville: 'Aix-en-Provence', quartier: 'Jas de Bouffan', rues: ['Avenue Jean-Monnet'] } } },
  });
});

function signedIn(account: Moi) {
  answers['GET /app/api/user/me'] = { status: 200, body: { data: account } };
}

/** Where the app is, shown by every page of the test's router. */
function Ici({ nom }: { nom: string }) {
  const { pathname, search } = useLocation();
  return <output aria-label="Adresse">{`${nom} ${pathname}${search}`}</output>;
}

function renderAt(url: string) {
  return renderWithProviders(
    <Routes>
        <Route path="/connexion" element={<ConnexionPage />} />
        <Route path="/invitation/:uid" element={<ConnexionPage />} />
        <Route path="/profile" element={<ProfilPage />} />
        <Route path="*" element={<Ici nom="page" />} />
    </Routes>,
    { url },
  );
}

const adresse = () => screen.getByLabelText('Adresse', { selector: 'output' }).textContent;

async function signIn(user: ReturnType<typeof userEvent.setup>) {
  answers['POST /app/api/auth/sign-in/email'] = () => {
    signedIn(moi({ emailVerified: true }));
    return { status: 200, body: { redirect: false } };
  };
  await user.type(await screen.findByLabelText(/^Adresse e-mail/u), 'lucas@example.org');
  await user.type(screen.getByLabelText(/^Mot de passe/u), 'le mistral souffle sur aix');
  await user.click(screen.getByRole('button', { name: 'Se connecter' }));
}

describe('sign-in keeps where the person was going', () => {
  it('sends a signed-out visit of /profile to the sign-in screen with ?retour=, and back to /profile once signed in', async () => {
    const user = userEvent.setup();
    renderAt('/profile');
    expect(await screen.findByText('Après la connexion, vous reviendrez à la page que vous vouliez ouvrir.')).toBeInTheDocument();
    await signIn(user);
    expect(await screen.findByRole('heading', { name: 'Mon profil' })).toBeInTheDocument();
  });

  it('goes to the kept destination with its query', async () => {
    const user = userEvent.setup();
    renderAt('/connexion?retour=/logement/list%3Fq%3Dmartin');
    await signIn(user);
    await waitFor(() => expect(adresse()).toBe('page /logement/list?q=martin'));
  });

  it('goes to Logement when the destination is another site, whatever the way it is written', async () => {
    for (const retour of ['//evil.example/profile', 'https://evil.example', '/\\evil.example', 'javascript:alert(1)']) {
      const user = userEvent.setup();
      const { unmount } = renderAt(`/connexion?retour=${encodeURIComponent(retour)}`);
      expect(screen.queryByText('Après la connexion, vous reviendrez à la page que vous vouliez ouvrir.')).not.toBeInTheDocument();
      await signIn(user);
      await waitFor(() => expect(adresse()).toBe('page /logement'));
      unmount();
      answers['GET /app/api/user/me'] = SIGNED_OUT;
    }
  });

  it('sends someone already signed in straight to the destination', async () => {
    signedIn(moi());
    renderAt('/connexion?retour=/technique');
    await waitFor(() => expect(adresse()).toBe('page /technique'));
  });

  it('gives Google the destination, the welcome for a new account and the way back on failure, all on this site', async () => {
    answers['POST /app/api/auth/sign-in/social'] = { status: 503, body: { error: { code: 'INDISPONIBLE', message: 'Google ne répond pas.' } } };
    const user = userEvent.setup();
    renderAt('/invitation/elodie-uid?retour=/profile');
    await user.click(await screen.findByRole('button', { name: 'Connexion avec Google' }));
    await waitFor(() => expect(calls.some((c) => c.url === '/app/api/auth/sign-in/social')).toBe(true));
    expect(calls.find((c) => c.url === '/app/api/auth/sign-in/social')!.body).toEqual({
      provider: 'google',
      callbackURL: '/profile',
      newUserCallbackURL: '/invitation/elodie-uid?bienvenue=1&retour=%2Fprofile',
      errorCallbackURL: '/connexion?erreur=google&retour=%2Fprofile',
      additionalData: { inviterUid: 'elodie-uid' },
    });
  });
});

describe('the sign-in screen', () => {
  it('is titled « Connexion », greets with « Bonjour », and names the invitation by what it shows', async () => {
    answers['GET /app/api/user/public/elodie-uid'] = { status: 200, body: { data: ELODIE } };
    renderAt('/invitation/elodie-uid');
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(screen.getAllByRole('heading').map((h) => h.textContent)).toEqual(['Connexion']);
    expect(screen.getByText(/^Bonjour ! Connectez-vous pour retrouver vos demandes de logement/u)).toBeInTheDocument();
    const invitation = await screen.findByRole('region', { name: 'Invitation reçue par Élodie' });
    expect(invitation.tagName).toBe('SECTION');
    expect(invitation).not.toHaveAttribute('aria-label');
    expect(document.title).toBe('Connexion — Quartier Vivant');
  });
});

describe('the welcome after sign-up', () => {
  async function signUp(user: ReturnType<typeof userEvent.setup>) {
    await user.click(await screen.findByRole('button', { name: 'Créer nouveau compte' }));
    const modal = await screen.findByRole('dialog', { name: 'Créer un compte' });
    await user.type(within(modal).getByRole('textbox', { name: /^Nom/u }), 'Garcia');
    await user.type(within(modal).getByRole('textbox', { name: /^Prénom/u }), 'Lucas');
    await user.type(within(modal).getByLabelText(/^Date de naissance/u), '1992-03-15');
    await user.type(within(modal).getByRole('textbox', { name: /^Résidence/u }), 'Le Mail');
    await user.type(within(modal).getByRole('textbox', { name: /^Adresse e-mail/u }), 'lucas@example.org');
    await user.type(within(modal).getByLabelText(/^Mot de passe/u), 'le mistral souffle sur aix');
    await waitFor(() => expect(within(modal).getByLabelText(/^Rue/u)).toHaveValue('Avenue Jean-Monnet'));
    await user.click(within(modal).getByRole('button', { name: 'Créer mon compte' }));
  }

  it('welcomes the person by first name, says where the confirmation went and, from an invitation, whom they now follow', async () => {
    answers['GET /app/api/user/public/elodie-uid'] = { status: 200, body: { data: ELODIE } };
    answers['POST /app/api/user/inscription'] = () => {
      signedIn(moi({ following: [ELODIE], followers: [ELODIE] }));
      return { status: 201, body: { data: moi() } };
    };
    const user = userEvent.setup();
    renderAt('/invitation/elodie-uid');
    expect(await screen.findByText('Invitation reçue par')).toBeInTheDocument();
    await signUp(user);

    const titre = await screen.findByRole('heading', { level: 1, name: 'Bienvenue, Lucas !' });
    // Read first: the focus is on it.
    await waitFor(() => expect(titre).toHaveFocus());
    const status = screen.getByRole('status');
    expect(status).toHaveTextContent('Votre compte est créé.');
    expect(status).toHaveTextContent('Un e-mail de confirmation a été envoyé à lucas@example.org');
    expect(status).toHaveTextContent('Vous suivez désormais Élodie');
    expect(calls.find((c) => c.url === '/app/api/user/inscription')!.body).toMatchObject({ inviterUid: 'elodie-uid', email: 'lucas@example.org' });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Mes demandes de logement' })).toHaveAttribute('href', '/logement');
  });

  it('says nothing of a follow the server did not make, and leads on to the kept destination', async () => {
    answers['POST /app/api/user/inscription'] = () => {
      signedIn(moi());
      return { status: 201, body: { data: moi() } };
    };
    const user = userEvent.setup();
    renderAt('/connexion?retour=/profile');
    await signUp(user);
    const status = await screen.findByRole('status');
    await waitFor(() => expect(status).toHaveTextContent('Votre compte est créé.'));
    expect(status).not.toHaveTextContent('Vous suivez');
    await user.click(screen.getByRole('link', { name: 'Continuer' }));
    expect(await screen.findByRole('heading', { name: 'Mon profil' })).toBeInTheDocument();
  });

  it('does not speak of a confirmation e-mail to an address already confirmed (Google)', async () => {
    signedIn(moi({ emailVerified: true }));
    renderAt('/connexion?bienvenue=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Bienvenue, Lucas !' })).toBeInTheDocument();
    expect(screen.getByRole('status')).not.toHaveTextContent('e-mail de confirmation');
  });
});

describe('the e-mailed link that confirms the address', () => {
  it('says the address is confirmed, with the next step, once the link signed the person in', async () => {
    signedIn(moi({ emailVerified: true }));
    renderAt('/connexion?confirmation=adresse');
    const titre = await screen.findByRole('heading', { level: 1, name: 'Votre adresse e-mail est confirmée' });
    await waitFor(() => expect(titre).toHaveFocus());
    expect(screen.getByText(/^Vous pouvez maintenant/u)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Mes demandes de logement' })).toHaveAttribute('href', '/logement');
    expect(document.title).toBe('Adresse confirmée — Quartier Vivant');
  });

  it('says it too when opened again signed out (the address stays confirmed), above the sign-in form', async () => {
    renderAt('/connexion?confirmation=adresse');
    const status = await screen.findByRole('status');
    expect(status).toHaveTextContent('Votre adresse e-mail est confirmée');
    expect(status).toHaveTextContent('Connectez-vous pour continuer.');
    expect(screen.getByRole('button', { name: 'Se connecter' })).toBeInTheDocument();
  });

  it('says an expired link has expired and sends a new one to the signed-out person who asks', async () => {
    answers['POST /app/api/auth/send-verification-email'] = { status: 200, body: { status: true } };
    const user = userEvent.setup();
    renderAt('/connexion?confirmation=adresse&error=TOKEN_EXPIRED');
    expect(await screen.findByRole('heading', { level: 1, name: 'Ce lien ne permet plus de confirmer l’adresse' })).toBeInTheDocument();
    expect(screen.getByText(/a expiré : il n’est valable que 24 heures/u)).toBeInTheDocument();
    await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'lucas@example.org');
    await user.click(screen.getByRole('button', { name: 'Recevoir un nouveau lien' }));
    expect(await screen.findByText(/un nouveau lien vient d’y être envoyé/u)).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('lucas@example.org');
    // A status message, with no alert inside it.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([{ url: '/app/api/auth/send-verification-email', method: 'POST', body: { email: 'lucas@example.org' } }]);
  });

  it('says a wrong link is not valid, and sends a new one to the signed-in account with one click', async () => {
    signedIn(moi());
    answers['POST /app/api/auth/send-verification-email'] = { status: 200, body: { status: true } };
    const user = userEvent.setup();
    renderAt('/connexion?confirmation=adresse&error=INVALID_TOKEN');
    expect(await screen.findByText(/Ce lien de confirmation n’est pas valable/u)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Recevoir un nouveau lien' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Un nouveau lien de confirmation a été envoyé à lucas@example.org.');
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ email: 'lucas@example.org' });
  });

  it('drops the previous answer at each attempt, also when the address typed is refused before any call', async () => {
    answers['POST /app/api/auth/send-verification-email'] = { status: 429, body: { error: { code: 'RATE_LIMITED', message: 'Trop de demandes de lien pour cette adresse.' } } };
    const user = userEvent.setup();
    renderAt('/connexion?confirmation=adresse&error=TOKEN_EXPIRED');
    await user.type(await screen.findByLabelText(/^Adresse e-mail/u), 'lucas@example.org');
    await user.click(screen.getByRole('button', { name: 'Recevoir un nouveau lien' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Trop de demandes de lien pour cette adresse.');
    await user.clear(screen.getByLabelText(/^Adresse e-mail/u));
    await user.type(screen.getByLabelText(/^Adresse e-mail/u), 'lucas@');
    await user.click(screen.getByRole('button', { name: 'Recevoir un nouveau lien' }));
    expect(await screen.findByText("L’adresse e-mail n’est pas valide.")).toBeInTheDocument();
    expect(screen.queryByText('Trop de demandes de lien pour cette adresse.')).not.toBeInTheDocument();
  });
});

describe('the e-mailed link that changes the address', () => {
  it('says the address is changed, and which it is now, once the link worked', async () => {
    signedIn(moi({ email: 'lucas.garcia@example.org' }));
    renderAt('/connexion?confirmation=changement');
    const titre = await screen.findByRole('heading', { level: 1, name: 'Votre adresse e-mail est changée' });
    await waitFor(() => expect(titre).toHaveFocus());
    expect(screen.getByRole('status')).toHaveTextContent('L’adresse de votre compte est désormais lucas.garcia@example.org. Utilisez-la pour vous connecter');
    expect(screen.getByRole('link', { name: 'Mon profil' })).toHaveAttribute('href', '/profile');
    expect(document.title).toBe('Adresse e-mail changée — Quartier Vivant');
  });

  it('says it above the sign-in form when the link is opened signed out', async () => {
    renderAt('/connexion?confirmation=changement');
    const status = await screen.findByRole('status');
    expect(status).toHaveTextContent('Votre adresse e-mail est changée');
    expect(status).toHaveTextContent('Connectez-vous avec la nouvelle adresse pour continuer.');
    expect(screen.getByRole('button', { name: 'Se connecter' })).toBeInTheDocument();
  });

  it('says an expired link has expired, and how to get a new one, to a person signed out', async () => {
    renderAt('/connexion?confirmation=changement&error=TOKEN_EXPIRED');
    const titre = await screen.findByRole('heading', { level: 1, name: 'Ce lien ne permet pas de changer l’adresse e-mail' });
    await waitFor(() => expect(titre).toHaveFocus());
    expect(document.title).toBe('Lien de changement d’adresse inutilisable — Quartier Vivant');
    // Information, not an interruption.
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('note')).toHaveTextContent('Ce lien a expiré : il n’est valable que 24 heures après son envoi.');
    expect(screen.getByText(/^Pour changer d’adresse, demandez un nouveau lien : dans « Mon profil », saisissez la nouvelle adresse e-mail/u)).toBeInTheDocument();
    expect(screen.getByText(/^Connectez-vous avec l’adresse actuelle de votre compte/u)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Se connecter' })).toHaveAttribute('href', '/connexion?retour=/profile');
    // Nothing was asked of the server but the session.
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);
  });

  it('says a used or cut link cannot serve, gives the account’s address, and leads to the profile to ask again', async () => {
    signedIn(moi());
    const user = userEvent.setup();
    renderAt('/connexion?confirmation=changement&error=INVALID_TOKEN');
    expect(await screen.findByRole('note')).toHaveTextContent('Ce lien a déjà servi, ou il n’est pas complet');
    expect(screen.getByText('L’adresse de votre compte est aujourd’hui lucas@example.org.')).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Mon profil' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mon profil' })).toBeInTheDocument();
  });

  it('says a link opened while another account is signed in is not for it, and offers to sign out', async () => {
    signedIn(moi());
    renderAt('/connexion?confirmation=changement&error=INVALID_USER');
    expect(await screen.findByRole('note')).toHaveTextContent('Ce lien a été envoyé pour un autre compte que celui qui est connecté sur cet appareil.');
    expect(screen.getByText(/^Déconnectez-vous, puis ouvrez de nouveau le lien depuis l’e-mail/u)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Se déconnecter' })).toHaveAttribute('href', '/deconnexion');
  });

  it('says the account of the link no longer exists', async () => {
    renderAt('/connexion?confirmation=changement&error=USER_NOT_FOUND');
    expect(await screen.findByRole('note')).toHaveTextContent('Le compte de ce lien n’existe plus');
    expect(screen.getByRole('link', { name: 'Créer un compte ou se connecter' })).toHaveAttribute('href', '/connexion');
  });
});

describe('the profile of an address not confirmed yet', () => {
  it('offers a new confirmation link, sent to the account’s address', async () => {
    signedIn(moi());
    answers['POST /app/api/auth/send-verification-email'] = { status: 200, body: { status: true } };
    const user = userEvent.setup();
    renderAt('/profile');
    const section = await screen.findByRole('region', { name: 'Confirmer mon adresse e-mail' });
    await user.click(within(section).getByRole('button', { name: 'Recevoir un nouveau lien' }));
    expect(await within(section).findByRole('status')).toHaveTextContent('Un nouveau lien de confirmation a été envoyé à lucas@example.org.');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([{ url: '/app/api/auth/send-verification-email', method: 'POST', body: { email: 'lucas@example.org' } }]);
  });

  it('does not offer it once the address is confirmed', async () => {
    signedIn(moi({ emailVerified: true }));
    renderAt('/profile');
    expect(await screen.findByRole('heading', { name: 'Mon profil' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Confirmer mon adresse e-mail' })).not.toBeInTheDocument();
  });
});

describe('an old server alert never stays beside a new error', () => {
  it('the sign-in form drops the refusal when the next attempt is stopped by its own checks', async () => {
    answers['POST /app/api/auth/sign-in/email'] = { status: 401, body: { error: { code: 'INVALID_EMAIL_OR_PASSWORD', message: 'E-mail ou mot de passe incorrect' } } };
    const user = userEvent.setup();
    renderAt('/connexion');
    await user.type(await screen.findByLabelText(/^Adresse e-mail/u), 'lucas@example.org');
    await user.type(screen.getByLabelText(/^Mot de passe/u), 'pas le bon');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('E-mail ou mot de passe incorrect');
    await user.clear(screen.getByLabelText(/^Mot de passe/u));
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(await screen.findByText('Le mot de passe est obligatoire.')).toBeInTheDocument();
    expect(screen.queryByText('E-mail ou mot de passe incorrect')).not.toBeInTheDocument();
  });

  it('the profile form drops its failure when the next attempt is stopped by its own checks', async () => {
    signedIn(moi({ emailVerified: true }));
    answers['PATCH /app/api/user/me'] = { status: 503, body: { error: { code: 'STOCKAGE', message: 'Le serveur ne peut rien enregistrer pour le moment.' } } };
    const user = userEvent.setup();
    renderAt('/profile');
    const nom = await screen.findByRole('textbox', { name: /^Nom/u });
    await user.clear(nom);
    await user.type(nom, 'Martin');
    await user.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Le serveur ne peut rien enregistrer pour le moment.')).toBeInTheDocument();
    await user.clear(nom);
    await user.click(screen.getByRole('button', { name: 'Enregistrer' }));
    expect(await screen.findByText('Le nom est obligatoire.')).toBeInTheDocument();
    expect(screen.queryByText('Le serveur ne peut rien enregistrer pour le moment.')).not.toBeInTheDocument();
  });
});
