import { Alert, Stack, Text } from '@mantine/core';
import type { Moi } from '../../../domain/compte.js';
import { Suite, TitreAnnonce } from './ConfirmationAdresse.js';

/** The sign-in screen's flag for the welcome: set after a sign-up, and by Google's return for a new account. */
export const PARAM_BIENVENUE = 'bienvenue';

/**
 * The welcome after a sign-up (docs/produit.md « Comptes »): the account exists, the confirmation e-mail left
 * (not for Google's addresses, already confirmed), and, from an invitation link, the inviter now followed, by
 * the first name the invitation screen showed. The follow is read from the account itself (`following`): only
 * what the server did is said.
 */
export function Bienvenue({ moi, inviterUid, destination }: { moi: Moi; inviterUid: string | undefined; destination: string }) {
  const inviteur = inviterUid ? moi.following.find((p) => p.uid === inviterUid) : undefined;
  return (
    <Stack maw={640} gap="md">
      <TitreAnnonce>{moi.prenom ? `Bienvenue, ${moi.prenom} !` : 'Bienvenue !'}</TitreAnnonce>
      <Alert color="teal" role="status" title="Votre compte est créé.">
        <Stack gap="xs">
          {!moi.emailVerified && (
            <Text size="sm">
              Un e-mail de confirmation a été envoyé à <strong>{moi.email}</strong> : ouvrez le lien qu’il contient (valable 24 heures) pour confirmer
              votre adresse.
            </Text>
          )}
          {inviteur && (
            <Text size="sm">
              Vous suivez désormais {inviteur.prenom}, et {inviteur.prenom} vous suit : chacun voit le nom et la photo de l’autre.
            </Text>
          )}
        </Stack>
      </Alert>
      <Text>Vous pouvez maintenant déposer et suivre vos demandes de logement, et retrouver vos voisins du Jas de Bouffan.</Text>
      <Suite destination={destination} />
    </Stack>
  );
}
