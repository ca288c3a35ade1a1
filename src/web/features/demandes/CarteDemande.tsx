import { Anchor, Badge, Card, Checkbox, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { ETATS_CORRECTION } from '../../../domain/corrections.js';
import { formatJour } from '../../../domain/dates.js';
import type { LigneDemande } from '../../../domain/demande.js';
import type { Etiquette } from '../../../domain/etiquettes.js';
import { pluriel } from '../../../domain/pluriel.js';
import { paths } from '../../lib/paths.js';
import { ORANGE_A_FAIRE } from './Corrections.js';
import { BadgesEtiquettes } from './Etiquettes.js';

/**
 * One request of the managers' list on a phone's width, where the table would scroll sideways: who, the numéro
 * (the link to the request), what waits (correction, unread messages, labels), the status to change, the dates.
 * Its box to tick for bulk work is named like the table's.
 */
/** « Suivie par Camille Martin » under a request of the list (nothing when nobody follows it, or not yet known). */
export function SuiviePar({ nom }: { nom: string | null }) {
  if (!nom) return null;
  return (
    <Text size="xs" c="gray.7" mt={4}>
      Suivie par {nom}
    </Text>
  );
}

export function CarteDemande({
  ligne,
  etiquettes,
  suiviePar,
  choisie,
  onChoisie,
  statut,
}: {
  ligne: LigneDemande;
  etiquettes: readonly Etiquette[] | undefined;
  /** The name of the manager who follows it, or null. */
  suiviePar: string | null;
  choisie: boolean;
  onChoisie: (oui: boolean) => void;
  /** The status control (StatutDeLigne), the page's own. */
  statut: ReactNode;
}) {
  const { numeroUnique } = ligne;
  return (
    <Card component="li" withBorder padding="sm">
      <Stack gap={8}>
        <Group gap="sm" wrap="nowrap" align="flex-start">
          <Checkbox mt={2} aria-label={`Choisir la demande n° ${numeroUnique}`} checked={choisie} onChange={(e) => onChoisie(e.currentTarget.checked)} />
          <Stack gap={2} miw={0}>
            <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
              {`${ligne.prenom} ${ligne.nom}`.trim()}
            </Text>
            <Text size="sm">
              n°{' '}
              <Anchor component={Link} to={paths.demande(numeroUnique)} style={{ overflowWrap: 'anywhere' }}>
                {numeroUnique}
              </Anchor>
            </Text>
            <Text size="sm" c="gray.7" style={{ overflowWrap: 'anywhere' }}>
              {ligne.email}
            </Text>
          </Stack>
        </Group>
        {(ligne.correction || ligne.messagesNonLus > 0) && (
          <Group gap={4}>
            {ligne.correction && (
              <Badge size="sm" variant="filled" color={ligne.correction === 'faite' ? 'teal.9' : ORANGE_A_FAIRE}>
                {ETATS_CORRECTION[ligne.correction]}
              </Badge>
            )}
            {ligne.messagesNonLus > 0 && (
              <Badge size="sm" variant="filled" color="blue.9">
                {pluriel(ligne.messagesNonLus, 'message non lu', 'messages non lus')}
              </Badge>
            )}
          </Group>
        )}
        <BadgesEtiquettes ids={ligne.etiquettes} etiquettes={etiquettes} />
        <SuiviePar nom={suiviePar} />
        {statut}
        <Text size="sm" c="gray.7">
          Enregistrée le {formatJour(ligne.dateDEnregistrement)}, valide jusqu’au {formatJour(ligne.valideJusqua)}
        </Text>
      </Stack>
    </Card>
  );
}
