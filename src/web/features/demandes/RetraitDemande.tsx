import { Alert, Anchor, Button, Card, Group, List, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { CE_QUI_EST_EFFACE } from '../../../domain/effacement.js';
import { Dialog } from '../../components/Dialog.js';
import { errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { useTelechargement } from '../../lib/telechargement.js';
import { telechargerDonneesDemande, useRetraitDemande } from './apiEffacement.js';

/**
 * « Vos données »: download the request's data, or withdraw the request (confirmed in a dialog that says
 * what is erased). `onRetiree` tells the page, which then shows `RetraitFait` instead of the request.
 */
export function RetraitDemande({ numero, onRetiree }: { numero: string; onRetiree: () => void }) {
  const [confirmation, setConfirmation] = useState(false);
  const telechargement = useTelechargement();
  const retrait = useRetraitDemande(numero);

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="vos-donnees-titre">
      <Title order={2} size="h4" id="vos-donnees-titre" mb="xs">
        Vos données
      </Title>
      <Stack gap="sm">
        <Text>Téléchargez tout ce que la demande contient (ses informations, son historique et vos documents), dans un fichier zip.</Text>
        <Button variant="outline" w="fit-content" onClick={() => void telechargement.lancer(() => telechargerDonneesDemande(numero))} loading={telechargement.pending}>
          Télécharger mes données (zip)
        </Button>
        {telechargement.error && (
          <Alert color="red" role="alert">
            {telechargement.error}
          </Alert>
        )}
        <Text>
          Vous n’avez plus besoin de logement social ? Vous pouvez retirer votre demande : ses informations et vos documents seront effacés.
        </Text>
        <Button color="red" variant="light" w="fit-content" onClick={() => setConfirmation(true)}>
          Retirer ma demande
        </Button>
      </Stack>
      <Dialog opened={confirmation} onClose={() => !retrait.isPending && setConfirmation(false)} title="Retirer votre demande ?">
        <Stack gap="sm">
          <Text>Retirer la demande n° {numero} efface définitivement :</Text>
          <List size="sm" spacing={4}>
            {CE_QUI_EST_EFFACE.map((ligne) => (
              <List.Item key={ligne}>{ligne}</List.Item>
            ))}
          </List>
          <Text size="sm">
            La mairie annexe garde seulement l’historique des statuts, sans rien qui vous concerne. Vous recevrez un e-mail de confirmation, et vous
            pourrez déposer une nouvelle demande avec le même numéro unique. Cette action ne peut pas être annulée.
          </Text>
          {retrait.error && (
            <Alert color="red" role="alert">
              {errorMessage(retrait.error)}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={() => setConfirmation(false)} disabled={retrait.isPending}>
              Garder ma demande
            </Button>
            <Button
              color="red"
              loading={retrait.isPending}
              onClick={() =>
                retrait.mutate(undefined, {
                  onSuccess: () => {
                    setConfirmation(false);
                    onRetiree();
                  },
                })
              }
            >
              Retirer définitivement
            </Button>
          </Group>
        </Stack>
      </Dialog>
    </Card>
  );
}

/** After the withdrawal: what was done; the focus comes here so that a screen reader says it. */
export function RetraitFait({ titre, children }: { titre: string; children: React.ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <Stack gap="sm">
      <Alert color="teal" ref={ref} tabIndex={-1} role="status">
        <Title order={2} size="h4" mb="xs">
          {titre}
        </Title>
        {children}
      </Alert>
      <Anchor component={Link} to={paths.logement} w="fit-content">
        Retour à l’accueil des demandes
      </Anchor>
    </Stack>
  );
}
