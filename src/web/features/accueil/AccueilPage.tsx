import { Badge, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';

const SERVICES = [
  {
    to: paths.logement,
    title: 'Logement social',
    text: 'Déposez votre demande de logement social auprès de la mairie annexe, suivez-la étape par étape et envoyez vos documents.',
    soon: false,
  },
  {
    to: paths.technique,
    title: 'Signalements techniques',
    text: 'Voirie, éclairage, propreté : signalez un problème dans le quartier, sur la carte ou par une adresse, et suivez sa prise en charge.',
    soon: false,
  },
  {
    to: paths.securite,
    title: 'Sécurité',
    text: 'Les numéros d’urgence et les services en ligne de l’État pour signaler une infraction ou porter plainte.',
    soon: false,
  },
];

export function AccueilPage() {
  usePageTitle('Accueil');
  return (
    <Stack gap="lg" maw={1100}>
      <div>
        <Title order={1}>Bienvenue sur Quartier Vivant</Title>
        <Text size="lg" mt="xs">
          Le service en ligne des habitants du Jas de Bouffan pour faire avancer vos démarches et rendre le quartier plus agréable.
        </Text>
      </div>
      <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
        {SERVICES.map((s) => (
          <Card key={s.to} withBorder padding="lg" component={Link} to={s.to}>
            <Group justify="space-between" align="flex-start" wrap="nowrap" mb="xs">
              <Title order={2} size="h3">
                {s.title}
              </Title>
              {s.soon && (
                <Badge color="gray.8" variant="outline" style={{ flexShrink: 0 }}>
                  Bientôt disponible
                </Badge>
              )}
            </Group>
            <Text>{s.text}</Text>
          </Card>
        ))}
      </SimpleGrid>
    </Stack>
  );
}
