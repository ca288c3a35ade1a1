import { Alert, Button, Card, CloseButton, Group, Loader, NativeSelect, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { COULEUR_ETIQUETTE_VALUES, ETIQUETTE_NOM_MAX, ETIQUETTES_MAX, type CouleurEtiquette } from '../../../domain/etiquettes.js';
import { AccesReserve, ConnexionRequise } from '../../components/AccesReserve.js';
import { errorMessage } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useCreationEtiquette, useEtiquettes, useSuppressionEtiquette } from './apiEtiquettes.js';
import { BadgeEtiquette } from './Etiquettes.js';

const LIBELLES_COULEUR: Record<CouleurEtiquette, string> = {
  bleu: 'Bleu',
  vert: 'Vert',
  rouge: 'Rouge',
  violet: 'Violet',
  orange: 'Orange',
  rose: 'Rose',
  turquoise: 'Turquoise',
  gris: 'Gris',
};

/** Admins keep the set of labels managers put on requests (docs/produit.md « Étiquettes »). */
export function EtiquettesPage() {
  usePageTitle('Étiquettes');
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <ConnexionRequise />;
  if (moi.userType !== 'admin') return <AccesReserve>Les étiquettes sont gérées par les administrateurs.</AccesReserve>;
  return <Etiquettes />;
}

function Etiquettes() {
  const { data, error } = useEtiquettes();
  const creation = useCreationEtiquette();
  const suppression = useSuppressionEtiquette();
  const [nom, setNom] = useState('');
  const [couleur, setCouleur] = useState<CouleurEtiquette>('bleu');
  return (
    <Stack maw={720} gap="lg">
      <Title order={1}>Étiquettes</Title>
      <Text>
        Les gestionnaires posent ces étiquettes sur les demandes et filtrent la liste sur elles. Les habitants ne les voient jamais. {ETIQUETTES_MAX} au
        plus ; supprimer une étiquette la retire de toutes les demandes.
      </Text>
      <Card
        withBorder
        padding="md"
        component="form"
        aria-labelledby="nouvelle-etiquette"
        onSubmit={(e) => {
          e.preventDefault();
          creation.mutate({ nom, couleur }, { onSuccess: () => setNom('') });
        }}
      >
        <Title order={2} size="h4" id="nouvelle-etiquette" mb="sm">
          Nouvelle étiquette
        </Title>
        <Group align="flex-end" gap="sm">
          <TextInput label="Nom" required value={nom} maxLength={ETIQUETTE_NOM_MAX} onChange={(e) => setNom(e.currentTarget.value)} style={{ flex: '1 1 14rem' }} />
          <NativeSelect
            label="Couleur"
            value={couleur}
            onChange={(e) => setCouleur(e.currentTarget.value as CouleurEtiquette)}
            data={COULEUR_ETIQUETTE_VALUES.map((c) => ({ value: c, label: LIBELLES_COULEUR[c] }))}
          />
          <Button type="submit" loading={creation.isPending} disabled={nom.trim() === ''}>
            Créer
          </Button>
        </Group>
        {creation.error && (
          <Alert color="red" role="alert" mt="sm">
            {errorMessage(creation.error, 'L’étiquette n’a pas pu être créée.')}
          </Alert>
        )}
      </Card>
      {error && <Alert color="red">{error.message}</Alert>}
      {data && data.length === 0 && <Text c="dimmed">Aucune étiquette pour le moment.</Text>}
      {data && data.length > 0 && (
        <Stack gap="xs" component="ul" aria-label="Étiquettes existantes" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {data.map((e) => (
            <Group component="li" key={e.id} justify="space-between" wrap="nowrap">
              <BadgeEtiquette etiquette={e} />
              <CloseButton aria-label={`Supprimer l’étiquette ${e.nom}`} disabled={suppression.isPending} onClick={() => suppression.mutate(e.id)} />
            </Group>
          ))}
        </Stack>
      )}
      <div role="status">{suppression.error && <Alert color="red">{errorMessage(suppression.error, 'L’étiquette n’a pas pu être supprimée.')}</Alert>}</div>
    </Stack>
  );
}
