import { Button, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../lib/paths.js';
import { usePageTitle } from '../lib/usePageTitle.js';

export function NotFoundPage() {
  usePageTitle('Page introuvable');
  return (
    <Stack maw={640} gap="md">
      <Title order={1}>Page introuvable</Title>
      <Text>L’adresse demandée ne correspond à aucune page de Quartier Vivant. Elle a peut-être été mal recopiée.</Text>
      <Button component={Link} to={paths.accueil} w="fit-content">
        Retour à l’accueil
      </Button>
    </Stack>
  );
}

