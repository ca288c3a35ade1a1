import { createBrowserRouter } from 'react-router';
import { AccueilPage } from '../features/accueil/AccueilPage.js';
import { NotFoundPage } from '../components/NotFoundPage.js';
import { RouteError } from '../components/RouteError.js';
import { Layout } from './Layout.js';

/** Routes; every page but the landing page loads on demand. */
export const router = createBrowserRouter([
  {
    path: '/',
    Component: Layout,
    ErrorBoundary: RouteError,
    children: [
      { index: true, Component: AccueilPage },
      { path: 'securite', lazy: async () => ({ Component: (await import('../features/accueil/SecuritePage.js')).SecuritePage }) },
      { path: 'connexion', lazy: async () => ({ Component: (await import('../features/compte/ConnexionPage.js')).ConnexionPage }) },
      { path: 'invitation/:uid', lazy: async () => ({ Component: (await import('../features/compte/ConnexionPage.js')).ConnexionPage }) },
      { path: 'deconnexion', lazy: async () => ({ Component: (await import('../features/compte/DeconnexionPage.js')).DeconnexionPage }) },
      {
        path: 'connexion/mot-de-passe-oublie',
        lazy: async () => ({ Component: (await import('../features/compte/MotDePassePages.js')).MotDePasseOubliePage }),
      },
      {
        path: 'connexion/nouveau-mot-de-passe',
        lazy: async () => ({ Component: (await import('../features/compte/MotDePassePages.js')).NouveauMotDePassePage }),
      },
      { path: 'profile', lazy: async () => ({ Component: (await import('../features/compte/ProfilPage.js')).ProfilPage }) },
      {
        path: 'admin/utilisateurs',
        lazy: async () => ({ Component: (await import('../features/compte/UtilisateursPage.js')).UtilisateursPage }),
      },
      { path: 'logement', lazy: async () => ({ Component: (await import('../features/logement/LogementHomePage.js')).LogementHomePage }) },
      {
        path: 'logement/nouveau',
        lazy: async () => ({ Component: (await import('../features/logement/NouvelleDemandePage.js')).NouvelleDemandePage }),
      },
      { path: 'logement/list', lazy: async () => ({ Component: (await import('../features/gestion/ListePage.js')).ListePage }) },
      { path: 'logement/:numeroUnique', lazy: async () => ({ Component: (await import('../features/logement/DemandePage.js')).DemandePage }) },
      { path: 'technique', lazy: async () => ({ Component: (await import('../features/technique/TechniquePage.js')).TechniquePage }) },
      {
        path: 'technique/nouveau',
        lazy: async () => ({ Component: (await import('../features/technique/BientotPage.js')).NouveauSignalementPage }),
      },
      { path: 'technique/list', lazy: async () => ({ Component: (await import('../features/technique/BientotPage.js')).SignalementsPage }) },
      { path: 'technique/:numeroUnique', lazy: async () => ({ Component: (await import('../features/technique/BientotPage.js')).SignalementPage }) },
      { path: '*', Component: NotFoundPage },
    ],
  },
]);
