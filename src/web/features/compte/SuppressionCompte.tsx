import { Alert, Anchor, Button, Card, Group, List, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Dialog } from '../../components/Dialog.js';
import { aujourdhui } from '../../../domain/dates.js';
import { ApiError, apiUrl, errorMessage, sendJson } from '../../lib/api.js';
import { oublierToutesLesCles } from '../../lib/clesDAcces.js';
import { useMesDemandes } from '../../lib/mesDemandes.js';
import { paths } from '../../lib/paths.js';
import { cles } from '../../lib/queryKeys.js';
import { setLocalSignedIn } from '../../lib/session.js';
import { telecharger, useTelechargement } from '../../lib/telechargement.js';

/** « Télécharger mes données »: the profile, the follows and each owned request with its documents, in one zip. */
export function DonneesDuCompte() {
  // Fetched, not a plain link: a refusal (session ended, too many downloads) is said here in French, not a failed file.
  const telechargement = useTelechargement();
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profil-donnees">
      <Title order={2} size="h3" id="profil-donnees" mb="xs">
        Mes données
      </Title>
      <Text mb="sm">
        Téléchargez dans un fichier zip tout ce que Quartier Vivant garde sur vous : votre profil, vos abonnements, et chacune des demandes de logement
        déposées avec ce compte, avec leur historique et vos documents.
      </Text>
      <Button
        variant="outline"
        w="fit-content"
        loading={telechargement.pending}
        onClick={() => void telechargement.lancer(() => telecharger(apiUrl('/compte/export.zip'), {}, `quartier-vivant-mes-donnees-${aujourdhui()}.zip`))}
      >
        Télécharger mes données (zip)
      </Button>
      {telechargement.error && (
        <Alert color="red" role="alert" mt="sm">
          {telechargement.error}
        </Alert>
      )}
    </Card>
  );
}

/**
 * « Supprimer mon compte »: confirmed with the password (accounts opened with Google have none). The housing
 * requests stay with the town hall, reachable by their private links: the dialog says so and links each one,
 * to withdraw it first.
 */
export function SuppressionCompte() {
  const [ouvert, setOuvert] = useState(false);
  const [motDePasse, setMotDePasse] = useState('');
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  // The requests of this account, listed so that each can be withdrawn first.
  const { data: demandes } = useMesDemandes();
  const suppression = useMutation({
    mutationFn: async () => (await sendJson<{ data: { message: string } }>('/user/me/supprimer', motDePasse ? { motDePasse } : {})).data.message,
    onSuccess: (message) => {
      setLocalSignedIn(null);
      // As at sign-out (the drafts go with the keys): nothing of the person stays on this device (a shared computer).
      oublierToutesLesCles();
      queryClient.removeQueries({ queryKey: cles.demandes });
      notifications.show({ color: 'teal', title: 'Compte supprimé', message, autoClose: 15_000 });
      void navigate(paths.accueil);
      queryClient.setQueryData(cles.moi, null);
    },
  });
  const erreurChamp = suppression.error instanceof ApiError ? suppression.error.fields.motDePasse : undefined;

  const fermer = () => {
    if (suppression.isPending) return;
    setOuvert(false);
    setMotDePasse('');
    suppression.reset();
  };
  const confirmer = (event: FormEvent) => {
    event.preventDefault();
    suppression.mutate();
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profil-suppression">
      <Title order={2} size="h3" id="profil-suppression" mb="xs">
        Supprimer mon compte
      </Title>
      <Text mb="sm">Votre profil, votre photo, vos abonnements et vos connexions seront effacés définitivement.</Text>
      <Button color="red" variant="light" w="fit-content" onClick={() => setOuvert(true)}>
        Supprimer mon compte…
      </Button>
      <Dialog opened={ouvert} onClose={fermer} title="Supprimer votre compte ?">
        <form onSubmit={confirmer} noValidate>
          <Stack gap="sm">
            <Text>Votre profil, votre photo, vos abonnements et vos connexions seront effacés. Cette action ne peut pas être annulée.</Text>
            {demandes && demandes.length > 0 && (
              <Alert role="note" color="blue" variant="light" title="Vos demandes de logement restent enregistrées">
                <Text size="sm" mb="xs">
                  La mairie annexe les garde : vous les suivrez avec leur lien privé (reçu par e-mail au dépôt, ou redemandé depuis leur page). Pour
                  effacer aussi une demande, retirez-la d’abord depuis sa page :
                </Text>
                <List size="sm" spacing={4}>
                  {demandes.map((d) => (
                    <List.Item key={d.numeroUnique}>
                      <Anchor component={Link} to={paths.demande(d.numeroUnique)}>
                        Demande n° {d.numeroUnique}
                      </Anchor>
                    </List.Item>
                  ))}
                </List>
              </Alert>
            )}
            <PasswordInput
              label="Votre mot de passe"
              description="Pour confirmer. Un compte ouvert avec Google n’en a pas : laissez vide."
              value={motDePasse}
              onChange={(e) => setMotDePasse(e.currentTarget.value)}
              autoComplete="current-password"
              error={erreurChamp}
              data-autofocus
            />
            {suppression.error && !erreurChamp && (
              <Alert color="red" role="alert">
                {errorMessage(suppression.error)}
              </Alert>
            )}
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={fermer} disabled={suppression.isPending}>
                Garder mon compte
              </Button>
              <Button type="submit" color="red" loading={suppression.isPending}>
                Supprimer définitivement
              </Button>
            </Group>
          </Stack>
        </form>
      </Dialog>
    </Card>
  );
}
