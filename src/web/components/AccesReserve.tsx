import { Alert, Button, Group, Stack, Title } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../lib/paths.js';

/** A page the signed-in person may not see: says who may, and where to go instead (never a dead end). */
export function AccesReserve({ children }: { children: string }) {
  return (
    <Stack maw={640}>
      <Title order={1}>Accès réservé</Title>
      <Alert color="orange">{children}</Alert>
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
