import { Alert, Button, Stack, Title } from '@mantine/core';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { NotFoundPage } from './NotFoundPage.js';

/** Shown when a page fails to load (e.g. its code could not be fetched on a poor connection). */
export function RouteError() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  return (
    <Stack maw={640} p="md" gap="md">
      <Title order={1}>La page n’a pas pu s’afficher</Title>
      <Alert color="red" title="Erreur de chargement" role="alert">
        Le chargement de la page a échoué, souvent à cause d’une connexion internet instable. Réessayez.
      </Alert>
      <Button onClick={() => window.location.reload()} w="fit-content">
        Recharger la page
      </Button>
    </Stack>
  );
}
