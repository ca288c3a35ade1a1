import type { ComponentType } from 'react';
import { createBrowserRouter } from 'react-router';
import { NotFoundPage } from '../components/NotFoundPage.js';
import { RouteError } from '../components/RouteError.js';
import { AccueilPage } from '../features/accueil/AccueilPage.js';
import { routes } from '../lib/paths.js';
import { Layout } from './Layout.js';

/** A page whose code loads on demand: the module, and the name of the component it exports. */
function page<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

/** Routes, built from the patterns of paths.ts; every page but the landing page loads on demand. */
export const router = createBrowserRouter([
  {
    path: routes.accueil,
    Component: Layout,
    ErrorBoundary: RouteError,
    children: [
      { index: true, Component: AccueilPage },
      { path: routes.securite, lazy: page(() => import('../features/accueil/SecuritePage.js'), 'SecuritePage') },
      { path: routes.donneesPersonnelles, lazy: page(() => import('../features/informations/DonneesPersonnellesPage.js'), 'DonneesPersonnellesPage') },
      { path: routes.mentionsLegales, lazy: page(() => import('../features/informations/MentionsLegalesPage.js'), 'MentionsLegalesPage') },
      { path: routes.connexion, lazy: page(() => import('../features/compte/ConnexionPage.js'), 'ConnexionPage') },
      { path: routes.invitation, lazy: page(() => import('../features/compte/ConnexionPage.js'), 'ConnexionPage') },
      { path: routes.deconnexion, lazy: page(() => import('../features/compte/DeconnexionPage.js'), 'DeconnexionPage') },
      { path: routes.motDePasseOublie, lazy: page(() => import('../features/compte/MotDePassePages.js'), 'MotDePasseOubliePage') },
      { path: routes.nouveauMotDePasse, lazy: page(() => import('../features/compte/MotDePassePages.js'), 'NouveauMotDePassePage') },
      { path: routes.profil, lazy: page(() => import('../features/compte/ProfilPage.js'), 'ProfilPage') },
      { path: routes.utilisateurs, lazy: page(() => import('../features/compte/UtilisateursPage.js'), 'UtilisateursPage') },
      { path: routes.logement, lazy: page(() => import('../features/demandes/DemandesAccueilPage.js'), 'DemandesAccueilPage') },
      { path: routes.nouvelleDemande, lazy: page(() => import('../features/demandes/NouvelleDemandePage.js'), 'NouvelleDemandePage') },
      { path: routes.toutesLesDemandes, lazy: page(() => import('../features/demandes/ListeDemandesPage.js'), 'ListeDemandesPage') },
      { path: routes.demande, lazy: page(() => import('../features/demandes/DemandePage.js'), 'DemandePage') },
      { path: routes.technique, lazy: page(() => import('../features/technique/TechniquePage.js'), 'TechniquePage') },
      { path: routes.nouveauSignalement, lazy: page(() => import('../features/technique/BientotPage.js'), 'NouveauSignalementPage') },
      { path: routes.signalements, lazy: page(() => import('../features/technique/BientotPage.js'), 'SignalementsPage') },
      { path: routes.signalement, lazy: page(() => import('../features/technique/BientotPage.js'), 'SignalementPage') },
      { path: '*', Component: NotFoundPage },
    ],
  },
]);
