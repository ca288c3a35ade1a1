import { Alert, Badge, Chip, Group, Stack, Text, Title } from '@mantine/core';
import { COULEURS_ETIQUETTE, type Etiquette } from '../../../domain/etiquettes.js';
import { errorMessage } from '../../lib/api.js';
import { useChangementEtiquettes, useEtiquettes, useEtiquettesDemande } from './apiEtiquettes.js';

/** One label as a coloured badge (white text on a colour of 4.5:1 or more). */
export function BadgeEtiquette({ etiquette }: { etiquette: Etiquette }) {
  return (
    <Badge color={COULEURS_ETIQUETTE[etiquette.couleur]} variant="filled" size="sm" style={{ textTransform: 'none' }}>
      {etiquette.nom}
    </Badge>
  );
}

/** The badges of the labels whose ids are given, in the set's order. */
export function BadgesEtiquettes({ ids, etiquettes }: { ids: readonly string[]; etiquettes: readonly Etiquette[] | undefined }) {
  const portees = (etiquettes ?? []).filter((e) => ids.includes(e.id));
  if (portees.length === 0) return null;
  return (
    <Group gap={4} mt={4}>
      {portees.map((e) => (
        <BadgeEtiquette key={e.id} etiquette={e} />
      ))}
    </Group>
  );
}

/** A manager puts labels on the request or takes them off, one click each (saved at once). */
export function EtiquettesDemande({ numero }: { numero: string }) {
  const { data: toutes } = useEtiquettes();
  const { data: ids } = useEtiquettesDemande(numero);
  const changement = useChangementEtiquettes(numero);
  return (
    <Stack gap="xs" component="section" aria-labelledby="etiquettes-titre">
      <Title order={3} id="etiquettes-titre">
        Étiquettes
      </Title>
      {toutes && toutes.length === 0 && <Text c="dimmed">Aucune étiquette n’existe encore : un administrateur les crée.</Text>}
      {toutes && ids && toutes.length > 0 && (
        <Chip.Group multiple value={ids} onChange={(value) => changement.mutate(value)}>
          <Group gap="xs" role="group" aria-labelledby="etiquettes-titre">
            {toutes.map((e) => (
              <Chip key={e.id} value={e.id} color={COULEURS_ETIQUETTE[e.couleur]} variant="outline" disabled={changement.isPending}>
                {e.nom}
              </Chip>
            ))}
          </Group>
        </Chip.Group>
      )}
      <div role="status">
        {changement.error && <Alert color="red">{errorMessage(changement.error, 'Les étiquettes n’ont pas pu être changées.')}</Alert>}
      </div>
    </Stack>
  );
}
