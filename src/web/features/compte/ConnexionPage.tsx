import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Avatar, Button, Card, Divider, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useForm } from 'react-hook-form';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { MESSAGES } from '../../../domain/erreurs.js';
import { errorMessage } from '../../lib/api.js';
import { useParametres } from '../../lib/parametres.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useMoi } from '../../lib/session.js';
import { useConnexion, useConnexionGoogle, usePublicProfile } from './api.js';
import classes from './ConnexionPage.module.css';
import { InscriptionModal } from './InscriptionModal.js';
import { connexionSchema } from './schemas.js';

const ECHEC_GOOGLE = 'La connexion avec Google a échoué. Réessayez, ou utilisez votre e-mail.';

/** Sign-in screen (docs/produit.md « Comptes »), also the landing of an invitation link /invitation/:uid. */
export function ConnexionPage() {
  usePageTitle('Connexion');
  const { uid } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const { data: moi, isPending: moiPending } = useMoi();
  const { data: parametres } = useParametres();
  const inviter = usePublicProfile(uid);
  const [inscription, { open, close }] = useDisclosure(false);
  const connexion = useConnexion();
  const google = useConnexionGoogle();
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitted },
  } = useForm({ resolver: zodResolver(connexionSchema), defaultValues: { email: '', password: '' } });

  if (!moiPending && moi) return <Navigate to={paths.logement} replace />;

  // Google sends people back here with ?erreur=google when it failed; the next attempt replaces that message.
  const failure = connexion.error ?? google.error;
  const formError = failure
    ? errorMessage(failure, MESSAGES.reseau)
    : search.get('erreur') === 'google' && !isSubmitted && google.isIdle
      ? ECHEC_GOOGLE
      : null;

  const submit = handleSubmit((data) => {
    google.reset();
    connexion.mutate(data, { onSuccess: () => navigate(paths.logement) });
  });

  function startGoogle() {
    connexion.reset();
    google.mutate(uid);
  }

  return (
    <div className={classes.columns}>
      <Stack gap="md">
        <Title order={1}>Bonjour</Title>
        {uid && inviter.data && (
          <Card withBorder padding="md" aria-label="Invitation">
            <Group wrap="nowrap">
              <Avatar src={inviter.data.pic} alt="" size="lg" radius="xl" />
              <div>
                <Text fw={600}>Invitation reçue par</Text>
                <Text size="lg">{inviter.data.nom ? `${inviter.data.prenom} ${inviter.data.nom}` : inviter.data.prenom}</Text>
              </div>
            </Group>
          </Card>
        )}
        <Text>
          Connectez-vous pour retrouver vos demandes de logement et vos voisins du Jas de Bouffan. Pas encore de compte ? Créez-le en une minute.
        </Text>
        <Text>
          Vous pouvez aussi{' '}
          <Anchor component={Link} to={paths.nouvelleDemande}>
            déposer une demande de logement sans compte
          </Anchor>
          .
        </Text>
      </Stack>

      <Card withBorder padding="lg">
        <form onSubmit={submit} noValidate aria-label="Connexion">
          <Stack gap="sm">
            {formError && (
              <Alert color="red" role="alert" title="Connexion impossible">
                {formError}
              </Alert>
            )}
            <TextInput {...register('email')} label="Adresse e-mail" type="email" autoComplete="email" required error={errors.email?.message} />
            <PasswordInput
              {...register('password')}
              label="Mot de passe"
              autoComplete="current-password"
              required
              error={errors.password?.message}
              visibilityToggleButtonProps={{ 'aria-label': 'Afficher ou masquer le mot de passe' }}
            />
            <Anchor component={Link} to={paths.motDePasseOublie} size="sm" w="fit-content">
              Mot de passe oublié ?
            </Anchor>
            <Button type="submit" loading={connexion.isPending}>
              Se connecter
            </Button>
            <Button variant="outline" onClick={open}>
              Créer nouveau compte
            </Button>
            {parametres?.google && (
              <>
                <Divider label="OU" labelPosition="center" />
                <Button variant="default" onClick={startGoogle}>
                  Connexion avec Google
                </Button>
              </>
            )}
          </Stack>
        </form>
      </Card>
      <InscriptionModal opened={inscription} onClose={close} inviterUid={inviter.data ? uid : undefined} />
    </div>
  );
}
