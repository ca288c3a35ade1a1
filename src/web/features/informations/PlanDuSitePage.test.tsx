// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { matchRoutes, Route, Routes } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Moi, Role } from '../../../domain/compte.js';
import { Layout } from '../../app/Layout.js';
import { routes } from '../../app/router.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { PlanDuSitePage } from './PlanDuSitePage.js';

function compte(userType: Role): Moi {
  return {
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
    userType,
    dateDEnregistrement: '2025-01-01T00:00:00.000Z',
    invitationLink: 'http://quartier.test/invitation/lucas-uid',
    followers: [],
    following: [],
  };
}

const { answers } = recordFetch();
/** The session the server answers: signed out, or an account with its role. */
let moi: Moi | null;

beforeEach(() => {
  moi = null;
  answers['GET /app/api/user/me'] = () =>
    moi ? { status: 200, body: { data: moi } } : { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'Connectez-vous.' } } };
});

/** The links of the part under the h2 `titre`, as « name → address ». */
function liensDe(titre: string): string[] {
  const section = screen.getByRole('heading', { level: 2, name: titre }).closest('section')!;
  return within(section)
    .getAllByRole('link')
    .map((a) => `${a.textContent} → ${a.getAttribute('href')}`);
}

/** Waits until the session is read (the account's links replace « Connexion »). */
async function sessionLue(connecte: boolean) {
  await screen.findByRole('link', { name: connecte ? 'Mon profil' : 'Connexion' });
}

describe('« Plan du site »', () => {
  it('lists the public pages and the sign-in, under h2s, as nested lists of links, and nothing of the agents to a visitor', async () => {
    renderWithProviders(<PlanDuSitePage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Plan du site' })).toBeInTheDocument();
    expect(document.title).toBe('Plan du site — Quartier Vivant');
    await sessionLue(false);

    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Services', 'Mon compte', 'Informations']);
    expect(liensDe('Services')).toEqual([
      'Accueil → /',
      'Logement social → /logement',
      'Nouvelle demande de logement social → /logement/nouveau',
      'Signalements techniques → /technique',
      'Nouveau signalement technique → /technique/nouveau',
      'Sécurité → /securite',
    ]);
    expect(liensDe('Mon compte')).toEqual(['Connexion → /connexion', 'Mot de passe oublié → /connexion/mot-de-passe-oublie']);
    expect(liensDe('Informations')).toEqual([
      'Données personnelles → /donnees-personnelles',
      'Mentions légales → /mentions-legales',
      'Déclaration d’accessibilité → /accessibilite',
    ]);

    // A page's own pages are a list inside its list item.
    const logement = screen.getByRole('link', { name: 'Logement social' }).closest('li')!;
    const sousListe = within(logement).getByRole('list');
    expect(within(sousListe).getAllByRole('link').map((a) => a.textContent)).toEqual(['Nouvelle demande de logement social']);
    // The technical reports are open (issue 14): no « bientôt » beside them or their form.
    expect(screen.getByRole('link', { name: 'Signalements techniques' }).closest('li')).not.toHaveTextContent(/bientôt/u);
    // The « Sécurité » page is open: no « bientôt » beside it.
    expect(screen.getByRole('link', { name: 'Sécurité' }).closest('li')).toHaveTextContent(/^Sécurité$/u);
    expect(screen.getByRole('link', { name: 'Connexion' }).closest('li')).toHaveTextContent(/^Connexion \(et création d’un compte\)/u);

    expect(screen.queryByRole('link', { name: 'Toutes les demandes' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Tous les signalements techniques' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Utilisateurs' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Mon profil' })).not.toBeInTheDocument();
  });

  it('gives a resident their account’s pages, and still nothing of the agents', async () => {
    moi = compte('habitant');
    renderWithProviders(<PlanDuSitePage />);
    await sessionLue(true);
    expect(liensDe('Mon compte')).toEqual(['Mon profil → /profile', 'Déconnexion → /deconnexion']);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Services', 'Mon compte', 'Informations']);
    expect(screen.queryByRole('link', { name: 'Connexion' })).not.toBeInTheDocument();
  });

  it('adds the list of requests for a manager, not the administration', async () => {
    moi = compte('manager');
    renderWithProviders(<PlanDuSitePage />);
    await sessionLue(true);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Services',
      'Mon compte',
      'Gestion',
      'Informations',
    ]);
    expect(liensDe('Gestion')).toEqual(['Toutes les demandes → /logement/list', 'Tous les signalements techniques → /technique/list']);
  });

  it('adds the administration for an admin', async () => {
    moi = compte('admin');
    renderWithProviders(<PlanDuSitePage />);
    await sessionLue(true);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Services',
      'Mon compte',
      'Gestion',
      'Administration',
      'Informations',
    ]);
    expect(liensDe('Gestion')).toEqual(['Toutes les demandes → /logement/list', 'Tous les signalements techniques → /technique/list']);
    expect(liensDe('Administration')).toEqual([
      'Utilisateurs → /admin/utilisateurs',
      'Étiquettes → /admin/etiquettes',
      'Catégories de signalements → /admin/categories',
      'Clés d’API Open311 → /admin/open311',
    ]);
  });

  it('links only to pages of the router, never to « Page introuvable »', async () => {
    moi = compte('admin');
    const { unmount } = renderWithProviders(<PlanDuSitePage />);
    await sessionLue(true);
    const adresses = screen.getAllByRole('link').map((a) => a.getAttribute('href')!);
    unmount();
    moi = null;
    renderWithProviders(<PlanDuSitePage />);
    await sessionLue(false);
    adresses.push(...screen.getAllByRole('link').map((a) => a.getAttribute('href')!));
    for (const adresse of adresses) {
      const page = matchRoutes(routes, adresse)!.at(-1)!.route;
      expect(page.path, adresse).not.toBe('*');
    }
  });

  it('is linked from the footer of every page', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <Routes>
        <Route element={<Layout />}>
          <Route path="/" element={<p>Accueil</p>} />
          <Route path="/plan-du-site" element={<PlanDuSitePage />} />
        </Route>
      </Routes>,
    );
    const pied = screen.getByRole('contentinfo');
    await user.click(within(pied).getByRole('link', { name: 'Plan du site' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Plan du site' })).toBeInTheDocument();
  });

  it('writes the French apostrophe ’, never the straight one, signed out or in', async () => {
    for (const session of [null, compte('admin')]) {
      moi = session;
      const { container, unmount } = renderWithProviders(<PlanDuSitePage />);
      await sessionLue(session !== null);
      expect(container.textContent).not.toContain("'");
      unmount();
    }
  });
});
