import type { ComponentType } from 'react';
import { matchRoutes, type RouteObject } from 'react-router';
import { NotFoundPage } from '../components/NotFoundPage.js';
import { RouteError } from '../components/RouteError.js';
import { AccueilPage } from '../features/accueil/AccueilPage.js';
import { routes as patterns } from '../lib/paths.js';
import { Layout } from './Layout.js';

/** A page whose code loads on demand: the module, and the name of the component it exports. */
function page<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

/**
 * Routes, built from the patterns of paths.ts; every page but the landing page loads on demand. The same
 * table renders in the browser (main.tsx) and, at build, into the prerendered pages (entry-server.tsx).
 */
export const routes: RouteObject[] = [
  {
    path: patterns.accueil,
    Component: Layout,
    ErrorBoundary: RouteError,
    children: [
      { index: true, Component: AccueilPage },
      { path: patterns.securite, lazy: page(() => import('../features/securite/SecuritePage.js'), 'SecuritePage') },
      { path: patterns.donneesPersonnelles, lazy: page(() => import('../features/informations/DonneesPersonnellesPage.js'), 'DonneesPersonnellesPage') },
      { path: patterns.mentionsLegales, lazy: page(() => import('../features/informations/MentionsLegalesPage.js'), 'MentionsLegalesPage') },
      { path: patterns.accessibilite, lazy: page(() => import('../features/informations/AccessibilitePage.js'), 'AccessibilitePage') },
      { path: patterns.planDuSite, lazy: page(() => import('../features/informations/PlanDuSitePage.js'), 'PlanDuSitePage') },
      { path: patterns.connexion, lazy: page(() => import('../features/compte/ConnexionPage.js'), 'ConnexionPage') },
      { path: patterns.invitation, lazy: page(() => import('../features/compte/ConnexionPage.js'), 'ConnexionPage') },
      { path: patterns.deconnexion, lazy: page(() => import('../features/compte/DeconnexionPage.js'), 'DeconnexionPage') },
      { path: patterns.motDePasseOublie, lazy: page(() => import('../features/compte/MotDePassePages.js'), 'MotDePasseOubliePage') },
      { path: patterns.nouveauMotDePasse, lazy: page(() => import('../features/compte/MotDePassePages.js'), 'NouveauMotDePassePage') },
      { path: patterns.profil, lazy: page(() => import('../features/compte/ProfilPage.js'), 'ProfilPage') },
      { path: patterns.utilisateurs, lazy: page(() => import('../features/compte/UtilisateursPage.js'), 'UtilisateursPage') },
      { path: patterns.etiquettes, lazy: page(() => import('../features/demandes/EtiquettesPage.js'), 'EtiquettesPage') },
      { path: patterns.categories, lazy: page(() => import('../features/technique/CategoriesPage.js'), 'CategoriesPage') },
      { path: patterns.clesOpen311, lazy: page(() => import('../features/technique/ClesOpen311Page.js'), 'ClesOpen311Page') },
      { path: patterns.logement, lazy: page(() => import('../features/demandes/DemandesAccueilPage.js'), 'DemandesAccueilPage') },
      { path: patterns.nouvelleDemande, lazy: page(() => import('../features/demandes/NouvelleDemandePage.js'), 'NouvelleDemandePage') },
      { path: patterns.toutesLesDemandes, lazy: page(() => import('../features/demandes/ListeDemandesPage.js'), 'ListeDemandesPage') },
      { path: patterns.demande, lazy: page(() => import('../features/demandes/DemandePage.js'), 'DemandePage') },
      { path: patterns.technique, lazy: page(() => import('../features/technique/TechniquePage.js'), 'TechniquePage') },
      { path: patterns.nouveauSignalement, lazy: page(() => import('../features/technique/NouveauSignalementPage.js'), 'NouveauSignalementPage') },
      { path: patterns.signalements, lazy: page(() => import('../features/technique/SignalementsGestionPage.js'), 'SignalementsGestionPage') },
      { path: patterns.desabonnementSignalements, lazy: page(() => import('../features/technique/LiensEmailPages.js'), 'DesabonnementPage') },
      { path: patterns.confirmationAlerte, lazy: page(() => import('../features/technique/LiensEmailPages.js'), 'ConfirmationAlertePage') },
      { path: patterns.signalement, lazy: page(() => import('../features/technique/SignalementPage.js'), 'SignalementPage') },
      { path: '*', Component: NotFoundPage },
    ],
  },
];

/**
 * Loads the code of the on-demand routes that match `pathname`, in place, so that the first render in the
 * browser draws the same page as the prerendered HTML (hydration) instead of an empty one while it loads.
 */
export async function resolveLazyRoutes(pathname: string): Promise<void> {
  const lazyMatches = (matchRoutes(routes, pathname) ?? []).filter((m) => typeof m.route.lazy === 'function');
  await Promise.all(
    lazyMatches.map(async (m) => {
      const loaded = await (m.route.lazy as () => Promise<Partial<RouteObject>>)();
      Object.assign(m.route, loaded, { lazy: undefined });
    }),
  );
}
