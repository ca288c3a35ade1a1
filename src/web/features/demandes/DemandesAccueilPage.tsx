import { Anchor, Badge, Button, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { isGestionnaire } from '../../../domain/compte.js';
import { ETATS_CORRECTION } from '../../../domain/corrections.js';
import { estCloturee } from '../../../domain/cycleDeVie.js';
import { formatJour } from '../../../domain/dates.js';
import { numeroUniqueSchema } from '../../../domain/demande.js';
import { NumeroLookup } from '../../components/NumeroLookup.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useMesDemandes } from '../../lib/mesDemandes.js';
import { OublierCetAppareil } from './CetAppareil.js';
import { ORANGE_A_FAIRE } from './Corrections.js';
import { estMemorisee, useNumerosEnregistres } from '../../lib/clesDAcces.js';

/** The housing service's page: submit a request, follow one, and (signed in) one's own or all of them. */
export function DemandesAccueilPage() {
  usePageTitle('Logement social');
  const navigate = useNavigate();
  const surCetAppareil = useNumerosEnregistres();
  const { data: moi } = useMoi();

  return (
    <Stack maw={760} gap="lg">
      <Group justify="space-between" align="center">
        <Title order={1}>Logement social</Title>
        {moi ? (
          <Anchor component={Link} to={paths.deconnexion}>
            Déconnexion
          </Anchor>
        ) : (
          <Anchor component={Link} to={paths.connexion}>
            Connexion
          </Anchor>
        )}
      </Group>
      {moi && isGestionnaire(moi.userType) && (
        <Button component={Link} to={paths.toutesLesDemandes} variant="outline" w="fit-content">
          Toutes les demandes
        </Button>
      )}
      {moi && <MesDemandes />}
      <Text>
        Déposez votre demande de logement social auprès de la mairie annexe du Jas de Bouffan, puis suivez son avancement et envoyez vos
        documents. Vous aurez besoin de votre <strong>numéro unique</strong> de demandeur (il commence par 013 dans les Bouches-du-Rhône).
      </Text>

      <Card withBorder padding="lg">
        <Title order={2} size="h3" mb="xs">
          Nouvelle demande
        </Title>
        <Text mb="md">Remplissez le formulaire en quelques minutes. Aucun compte n’est nécessaire.</Text>
        <Button component={Link} to={paths.nouvelleDemande} size="md" w="fit-content">
          Soumettre ma demande
        </Button>
      </Card>

      <Card withBorder padding="lg">
        <Title order={2} size="h3" mb="xs">
          Suivre ma demande
        </Title>
        <NumeroLookup
          label="Numéro unique de la demande"
          submitLabel="Voir ma demande"
          schema={numeroUniqueSchema}
          onFound={(n) => navigate(paths.demande(n))}
        />
        {surCetAppareil.length > 0 && (
          <section aria-labelledby="sur-cet-appareil">
            <Text fw={600} mt="lg" mb="xs" id="sur-cet-appareil">
              Demandes enregistrées sur cet appareil
            </Text>
            <List mb="sm">
              {surCetAppareil.map((n) => (
                <List.Item key={n}>
                  <Anchor component={Link} to={paths.demande(n)}>
                    Demande n° {n}
                  </Anchor>{' '}
                  <Text span size="sm" c="dimmed">
                    {estMemorisee(n) ? '(mémorisée sur cet appareil)' : "(jusqu’à la fermeture de l’onglet)"}
                  </Text>
                </List.Item>
              ))}
            </List>
            <Text size="sm" c="dimmed" mb="xs">
              Sur un ordinateur partagé, effacez ces liens avant de partir.
            </Text>
            <OublierCetAppareil />
          </section>
        )}
      </Card>
    </Stack>
  );
}

/** The requests submitted while signed in (their owner sees them in full without the link). */
function MesDemandes() {
  const { data, isPending, error } = useMesDemandes();
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="mes-demandes">
      <Title order={2} size="h3" id="mes-demandes" mb="xs">
        Mes demandes
      </Title>
      {isPending ? (
        <Text>Chargement…</Text>
      ) : error ? (
        <Text c="red.8">{error.message}</Text>
      ) : data.length === 0 ? (
        <Text>Vous n’avez pas encore déposé de demande avec ce compte.</Text>
      ) : (
        <List>
          {data.map((d) => (
            <List.Item key={d.numeroUnique}>
              <Anchor component={Link} to={paths.demande(d.numeroUnique)}>
                Demande n° {d.numeroUnique}
              </Anchor>{' '}
              — {d.statutDeLaDemande}, déposée le {formatJour(d.dateDEnregistrement)}
              {/* The town hall waits for them: said where they look first (the e-mail may have been missed); not once closed. */}
              {d.correction === 'demandee' && !estCloturee(d.statutDeLaDemande) && (
                <Badge ml="xs" size="sm" variant="filled" color={ORANGE_A_FAIRE}>
                  {ETATS_CORRECTION.demandee}
                </Badge>
              )}
            </List.Item>
          ))}
        </List>
      )}
    </Card>
  );
}
