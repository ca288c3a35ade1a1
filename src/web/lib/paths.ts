import { generatePath } from 'react-router';

/**
 * Every route of the web app, written once: `routes` holds the patterns the router is built from,
 * `paths` the addresses links go to (a pattern with parameters becomes a function of them).
 */
export const routes = {
  accueil: '/',
  securite: '/securite',
  donneesPersonnelles: '/donnees-personnelles',
  mentionsLegales: '/mentions-legales',
  accessibilite: '/accessibilite',
  planDuSite: '/plan-du-site',
  connexion: '/connexion',
  invitation: '/invitation/:uid',
  deconnexion: '/deconnexion',
  motDePasseOublie: '/connexion/mot-de-passe-oublie',
  nouveauMotDePasse: '/connexion/nouveau-mot-de-passe',
  profil: '/profile',
  utilisateurs: '/admin/utilisateurs',
  etiquettes: '/admin/etiquettes',
  categories: '/admin/categories',
  clesOpen311: '/admin/open311',
  logement: '/logement',
  nouvelleDemande: '/logement/nouveau',
  toutesLesDemandes: '/logement/list',
  demande: '/logement/:numeroUnique',
  technique: '/technique',
  nouveauSignalement: '/technique/nouveau',
  signalements: '/technique/list',
  desabonnementSignalements: '/technique/desabonnement',
  confirmationAlerte: '/technique/alertes/confirmation',
  signalement: '/technique/:numero',
} as const;

export const paths = {
  ...routes,
  invitation: (uid: string) => generatePath(routes.invitation, { uid }),
  demande: (numeroUnique: string) => generatePath(routes.demande, { numeroUnique }),
  signalement: (numero: string) => generatePath(routes.signalement, { numero }),
} as const;
