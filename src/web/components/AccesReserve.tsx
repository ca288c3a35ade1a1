import { Alert, Button, Group, Stack, Title } from '@mantine/core';
import { useEffect } from 'react';
import { Link, Navigate, useLocation } from 'react-router';
import { paths } from '../lib/paths.js';
import { connexionPour } from '../lib/session.js';

const TITRE = 'Accès réservé — Quartier Vivant';

/**
 * The page's title says « Accès réservé », not the title of the page that was refused. That page sets its own
 * title (usePageTitle) in an effect that runs after this component's, when both appear at once: this one is
 * set just after (a microtask, once React has run every effect of the render).
 */
function useTitreAccesReserve() {
  useEffect(() => {
    let affiche = true;
    queueMicrotask(() => {
      if (affiche) document.title = TITRE;
    });
    return () => {
      affiche = false;
    };
  }, []);
}

/** A page the signed-in person may not see: says who may, and where to go instead (never a dead end). */
export function AccesReserve({ children }: { children: string }) {
  useTitreAccesReserve();
  return (
    <Stack maw={640}>
      <Title order={1}>Accès réservé</Title>
      {/* Information that is the page itself, not an interruption: no alert role (Mantine's default). */}
      <Alert color="orange" role="note">
        {children}
      </Alert>
      <Group gap="sm">
        <Button component={Link} to={paths.logement}>
          Mes demandes de logement
        </Button>
        <Button component={Link} to={paths.accueil} variant="default">
          Retour à l’accueil
        </Button>
      </Group>
    </Stack>
  );
}

/**
 * A page that needs an account, opened signed out: on to the sign-in screen, which brings the person back
 * here once signed in (/connexion?retour=…, docs/produit.md « Comptes »).
 */
export function ConnexionRequise() {
  const { pathname, search, hash } = useLocation();
  return <Navigate to={connexionPour(`${pathname}${search}${hash}`)} replace />;
}
