import { Alert, Anchor, Loader, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useInformationsLegales } from './api.js';

/** « Mentions légales » (loi n° 2004-575 du 21 juin 2004, article 6): who publishes and who hosts the site. */
export function MentionsLegalesPage() {
  usePageTitle('Mentions légales');
  const { data, isPending, isError } = useInformationsLegales();
  return (
    <Stack maw={760} gap="md">
      <Title order={1}>Mentions légales</Title>
      {isPending && <Loader role="progressbar" aria-label="Chargement des mentions légales" />}
      {isError && (
        <Alert color="red" role="alert">
          Les mentions légales n’ont pas pu être chargées. Rechargez la page dans un instant.
        </Alert>
      )}
      {data && (
        <>
          <section>
            <Title order={2} size="h3">
              Éditeur du site
            </Title>
            <Text>{data.editeur}</Text>
            <Text>{data.adresse}</Text>
            <Text>Contact : {data.contact}</Text>
          </section>
          <section>
            <Title order={2} size="h3">
              Directeur de la publication
            </Title>
            <Text>{data.directeurPublication}</Text>
          </section>
          <section>
            <Title order={2} size="h3">
              Hébergement
            </Title>
            <Text>{data.hebergeur}</Text>
          </section>
          <section>
            <Title order={2} size="h3">
              Données personnelles
            </Title>
            <Text>
              Ce que nous faisons de vos données, combien de temps nous les gardons et comment exercer vos droits :{' '}
              <Anchor component={Link} to={paths.donneesPersonnelles}>
                page « Données personnelles »
              </Anchor>
              .
            </Text>
          </section>
          <section>
            <Title order={2} size="h3">
              Cookies
            </Title>
            <Text>
              Le site ne dépose aucun cookie de mesure d’audience ni de publicité. Seul un cookie de session, indispensable,
              est déposé quand vous vous connectez à votre compte ; il disparaît à la déconnexion.
            </Text>
          </section>
        </>
      )}
    </Stack>
  );
}
