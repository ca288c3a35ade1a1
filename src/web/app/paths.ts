/** Every route path of the web app, in one place. */
export const paths = {
  accueil: '/',
  securite: '/securite',
  connexion: '/connexion',
  invitation: (uid: string) => `/invitation/${encodeURIComponent(uid)}`,
  deconnexion: '/deconnexion',
  motDePasseOublie: '/connexion/mot-de-passe-oublie',
  nouveauMotDePasse: '/connexion/nouveau-mot-de-passe',
  profil: '/profile',
  utilisateurs: '/admin/utilisateurs',
  logement: '/logement',
  nouvelleDemande: '/logement/nouveau',
  demande: (numeroUnique: string) => `/logement/${encodeURIComponent(numeroUnique)}`,
  technique: '/technique',
  nouveauSignalement: '/technique/nouveau',
  signalement: (numero: string) => `/technique/${encodeURIComponent(numero)}`,
  signalements: '/technique/list',
} as const;
