import { Alert, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { normaliseNumeroUnique } from '../../../domain/normalise.js';
import { Dialog } from '../../components/Dialog.js';
import { errorMessage } from '../../lib/api.js';
import { useEffacementGestionnaire } from './apiEffacement.js';

/**
 * A manager erases the request at the person's request (docs/operations.md): confirmed by typing its
 * numéro unique. The history keeps the step, with the manager's name and nothing about the person.
 */
export function EffacementGestionnaire({ numero, onEffacee }: { numero: string; onEffacee: () => void }) {
  const [ouvert, setOuvert] = useState(false);
  const [saisie, setSaisie] = useState('');
  const effacement = useEffacementGestionnaire(numero);
  const confirme = normaliseNumeroUnique(saisie) === numero;

  const fermer = () => {
    if (effacement.isPending) return;
    setOuvert(false);
    setSaisie('');
    effacement.reset();
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="effacement-titre">
      <Title order={2} size="h4" id="effacement-titre" mb="xs">
        Effacer la demande
      </Title>
      <Text mb="sm">
        À la demande écrite de la personne (droit à l’effacement), vous pouvez effacer sa demande : ses informations et ses documents sont supprimés,
        l’historique des statuts reste, sans donnée personnelle.
      </Text>
      <Button color="red" variant="light" w="fit-content" onClick={() => setOuvert(true)}>
        Effacer cette demande…
      </Button>
      <Dialog opened={ouvert} onClose={fermer} title="Effacer la demande à la demande de la personne">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (!confirme) return;
            effacement.mutate(undefined, {
              onSuccess: () => {
                setOuvert(false);
                onEffacee();
              },
            });
          }}
        >
          <Stack gap="sm">
            <Text>
              Les informations de la demande n° {numero} et tous ses documents seront effacés définitivement. La personne recevra un e-mail de
              confirmation. Cette action ne peut pas être annulée.
            </Text>
            <TextInput
              label={`Pour confirmer, saisissez le numéro unique ${numero}`}
              value={saisie}
              onChange={(e) => setSaisie(e.currentTarget.value)}
              autoComplete="off"
              data-autofocus
            />
            {effacement.error && (
              <Alert color="red" role="alert">
                {errorMessage(effacement.error)}
              </Alert>
            )}
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={fermer} disabled={effacement.isPending}>
                Annuler
              </Button>
              <Button type="submit" color="red" disabled={!confirme} loading={effacement.isPending}>
                Effacer définitivement
              </Button>
            </Group>
          </Stack>
        </form>
      </Dialog>
    </Card>
  );
}
