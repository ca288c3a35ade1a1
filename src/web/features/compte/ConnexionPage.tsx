import { Alert, Anchor, Avatar, Button, Card, Divider, Group, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { paths } from '../../app/paths.js';
import { ApiError, NETWORK_MESSAGE } from '../../lib/api.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useParametres } from '../logement/api.js';
import { signIn, startGoogle, useMoi, usePublicProfile } from './api.js';
import classes from './ConnexionPage.module.css';
import { InscriptionModal } from './InscriptionModal.js';

/** Sign-in screen (SPEC §2), also the landing of an invitation link /invitation/:uid. */
export function ConnexionPage() {
  usePageTitle('Connexion');
  const { uid } = useParams();
  const [search] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { data: moi, isPending: moiPending } = useMoi();
  const { data: parametres } = useParametres();
  const inviter = usePublicProfile(uid);
  const [inscription, { open, close }] = useDisclosure(false);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});
  const [formError, setFormError] = useState<string | null>(search.get('erreur') === 'google' ? 'La connexion avec Google a échoué. Réessayez, ou utilisez votre e-mail.' : null);
  const [busy, setBusy] = useState(false);

  if (!moiPending && moi) return <Navigate to={paths.logement} replace />;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const next = {
      email: email.trim() === '' ? "L'adresse e-mail est obligatoire." : undefined,
      password: password === '' ? 'Le mot de passe est obligatoire.' : undefined,
    };
    setErrors(next);
    setFormError(null);
    if (next.email || next.password) return;
    setBusy(true);
    try {
      await signIn(email, password);
      await queryClient.invalidateQueries({ queryKey: ['moi'] });
      navigate(paths.logement);
    } catch (error) {
      setFormError(error instanceof ApiError ? error.message : NETWORK_MESSAGE);
    } finally {
      setBusy(false);
    }
  }

  async function google() {
    setFormError(null);
    try {
      await startGoogle(uid);
    } catch (error) {
      setFormError(error instanceof ApiError ? error.message : NETWORK_MESSAGE);
    }
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
                <Text size="lg">
                  {inviter.data.prenom} {inviter.data.nom}
                </Text>
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
            <TextInput
              label="Adresse e-mail"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.currentTarget.value)}
              error={errors.email}
            />
            <PasswordInput
              label="Mot de passe"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={errors.password}
              visibilityToggleButtonProps={{ 'aria-label': 'Afficher ou masquer le mot de passe' }}
            />
            <Anchor component={Link} to={paths.motDePasseOublie} size="sm" w="fit-content">
              Mot de passe oublié ?
            </Anchor>
            <Button type="submit" loading={busy}>
              Se connecter
            </Button>
            <Button variant="outline" onClick={open}>
              Créer nouveau compte
            </Button>
            {parametres?.google && (
              <>
                <Divider label="OU" labelPosition="center" />
                <Button variant="default" onClick={google}>
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
