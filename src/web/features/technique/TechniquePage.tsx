import { Alert, Button, Card, Stack, Text, Title } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { paths } from '../../lib/paths.js';
import { NumeroLookup } from '../../components/NumeroLookup.js';
import { usePageTitle } from '../../lib/usePageTitle.js';

export function TechniquePage() {
  usePageTitle('Signalements techniques');
  const navigate = useNavigate();
  return (
    <Stack maw={720} gap="lg">
      <Title order={1}>Signalements techniques</Title>
      <Text>Voirie, éclairage public, propreté : signalez un problème dans le quartier et suivez sa prise en charge.</Text>
      <Alert color="blue" variant="light" title="Service bientôt disponible">
        Les signalements en ligne ne sont pas encore ouverts.
      </Alert>
      <Button component={Link} to={paths.nouveauSignalement} w="fit-content">
        Signaler un problème
      </Button>
      <Card withBorder padding="lg">
        <Title order={2} size="h3" mb="sm">
          Suivre un signalement
        </Title>
        <NumeroLookup label="Numéro du signalement" submitLabel="Suivre" onFound={(n) => navigate(paths.signalement(n))} />
      </Card>
    </Stack>
  );
}
