import { Anchor, AppShell, Burger, Group, NavLink, Text } from '@mantine/core';
import { useDisclosure, useMediaQuery } from '@mantine/hooks';
import { useEffect, useRef } from 'react';
import { Link, Outlet, useLocation, useNavigationType } from 'react-router';
import { Logo } from '../components/Logo.js';
import { paths } from '../lib/paths.js';
import { useMoi } from '../lib/session.js';
import classes from './Layout.module.css';

const LINKS = [
  { to: paths.accueil, label: 'Accueil', exact: true },
  { to: paths.logement, label: 'Logement' },
  { to: paths.technique, label: 'Signalements techniques' },
  { to: paths.securite, label: 'Sécurité' },
];

interface NavItem {
  to: string;
  label: string;
  exact?: boolean;
}

export function Layout() {
  const [opened, { toggle, close }] = useDisclosure(false);
  const { pathname } = useLocation();
  const { data: moi } = useMoi();
  const links: NavItem[] = [
    ...LINKS,
    ...(moi
      ? [
          { to: paths.profil, label: 'Mon profil' },
          ...(moi.userType === 'admin'
            ? [
                { to: paths.utilisateurs, label: 'Utilisateurs' },
                { to: paths.etiquettes, label: 'Étiquettes' },
                { to: paths.categories, label: 'Catégories de signalements' },
                { to: paths.clesOpen311, label: 'Clés d’API Open311' },
              ]
            : []),
          { to: paths.deconnexion, label: 'Déconnexion' },
        ]
      : [{ to: paths.connexion, label: 'Connexion' }]),
  ];
  // Below 992 px the menu is a drawer: closed, it must leave the keyboard's and screen readers' path too.
  const isDrawer = useMediaQuery('(max-width: 61.99em)');

  // The mobile menu closes once a page is chosen.
  useEffect(() => {
    close();
  }, [pathname, close]);

  // After a change of page, focus goes to the new content (screen readers read it from its start), and the window to
  // its top, unless the page already put the focus somewhere in its content (a page's effects run before this one).
  // Not on the first load; going back or forward (POP) keeps the scroll the browser restores.
  const premierePage = useRef(true);
  const navigation = useNavigationType();
  useEffect(() => {
    if (premierePage.current) {
      premierePage.current = false;
      return;
    }
    const contenu = document.getElementById('contenu');
    if (contenu && !contenu.contains(document.activeElement)) {
      contenu.focus({ preventScroll: true });
      if (navigation !== 'POP') window.scrollTo({ top: 0 });
    }
  }, [pathname, navigation]);

  return (
    <AppShell
      header={{ height: 64 }}
      navbar={{ width: 250, breakpoint: 'md', collapsed: { mobile: !opened } }}
      padding="md"
    >
      <a href="#contenu" className={classes.skip}>
        Aller au contenu
      </a>
      <AppShell.Header>
        <Group h="100%" px="md" gap="sm" wrap="nowrap">
          <Burger
            opened={opened}
            onClick={toggle}
            hiddenFrom="md"
            size="sm"
            aria-label={opened ? 'Fermer le menu' : 'Ouvrir le menu'}
            aria-expanded={opened}
            aria-controls="menu-principal"
          />
          <Link to={paths.accueil} className={classes.brand}>
            <Logo />
            <div>
              {/* Not a heading: each page's h1 comes first in the headings (RGAA 9.1). */}
              <Text fw={700} fz="h4" lh={1.1}>
                Quartier Vivant
              </Text>
              <span className={classes.subtitle}>Jas de Bouffan · Aix-en-Provence</span>
            </div>
          </Link>
        </Group>
      </AppShell.Header>

      <AppShell.Navbar
        p="sm"
        id="menu-principal"
        aria-label="Menu principal"
        component="nav"
        style={isDrawer && !opened ? { visibility: 'hidden' } : undefined}
      >
        {links.map((link) => {
          const active = link.exact ? pathname === link.to : pathname === link.to || pathname.startsWith(`${link.to}/`);
          return (
            <NavLink
              key={link.to}
              component={Link}
              to={link.to}
              label={link.label}
              active={active}
              aria-current={active ? 'page' : undefined}
            />
          );
        })}
      </AppShell.Navbar>

      <AppShell.Main>
        <div id="contenu" tabIndex={-1} style={{ minHeight: 'calc(100dvh - 64px - 8rem)', outline: 'none' }}>
          <Outlet />
        </div>
      </AppShell.Main>
      {/* Outside <main>: the page's footer landmark (contentinfo), beside the menu on desktops. */}
      <footer className={classes.footer}>
        <span>Quartier Vivant — mairie annexe du Jas de Bouffan, Aix-en-Provence</span>
        <nav aria-label="Informations sur le site" className={classes.footerLinks}>
          <Anchor component={Link} to={paths.planDuSite} size="sm">
            Plan du site
          </Anchor>
          <Anchor component={Link} to={paths.donneesPersonnelles} size="sm">
            Données personnelles
          </Anchor>
          <Anchor component={Link} to={paths.mentionsLegales} size="sm">
            Mentions légales
          </Anchor>
          <Anchor component={Link} to={paths.accessibilite} size="sm">
            Accessibilité : non conforme
          </Anchor>
        </nav>
      </footer>
    </AppShell>
  );
}
