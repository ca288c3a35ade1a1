import { Alert, Button, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { paths } from '../lib/paths.js';
import { usePageTitle } from '../lib/usePageTitle.js';

/** An honest page for a service that does not exist yet. */
export function BientotPage({ title, children }: { title: string; children?: ReactNode }) {
  usePageTitle(title);
  return (
    <Stack maw={720} gap="md">
      <Title order={1}>{title}</Title>
      <Alert role="note" color="blue" title="Service bientôt disponible" variant="light">
        Ce service n’est pas encore ouvert. Il arrive bientôt sur Quartier Vivant.
      </Alert>
      {children ?? <Text>En attendant, vous pouvez vous adresser directement à la mairie annexe du Jas de Bouffan.</Text>}
      <Button component={Link} to={paths.accueil} variant="light" w="fit-content">
        Retour à l’accueil
      </Button>
    </Stack>
  );
}
