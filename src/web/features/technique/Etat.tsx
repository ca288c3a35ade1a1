import { Badge } from '@mantine/core';
import { ETAT_SIGNALEMENT_LIBELLES, ETATS_OUVERTS, type EtatSignalement } from '../../../domain/signalements.js';

/** A state's badge: its French name, its colour by group (open: orange, resolved: green, closed: grey), as on the map. */
export function EtatBadge({ etat }: { etat: EtatSignalement }) {
  // The map marks' colours (Carte.module.css), each 5:1 or more on white.
  const couleur = ETATS_OUVERTS.includes(etat) ? '#b03a08' : etat === 'resolu' ? '#2b7a3d' : '#495057';
  return (
    // Never cut to « No… » in a narrow table cell: the name wraps instead (« Hors compétence de la mairie »).
    <Badge color={couleur} variant="outline" tt="none" h="auto" py={2} style={{ flexShrink: 0, maxWidth: '100%' }} styles={{ label: { whiteSpace: 'normal', overflow: 'visible' } }}>
      {ETAT_SIGNALEMENT_LIBELLES[etat]}
    </Badge>
  );
}
