import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { MOT_DE_PASSE_MAX, MOT_DE_PASSE_MIN, motDePasseSchema } from '../../../domain/compte.js';
import { paths } from '../../app/paths.js';
import { ApiError, NETWORK_MESSAGE } from '../../lib/api.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { requestPasswordReset, resetPassword } from './api.js';

export function MotDePasseOubliePage() {
  usePageTitle('Mot de passe oublié');
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!email.trim()) return setError("L'adresse e-mail est obligatoire.");
    setError(null);
    try {
      await requestPasswordReset(email.trim());
      setSent(true);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : NETWORK_MESSAGE);
    }
  }
  return (
    <Stack maw={480} gap="md">
      <Title order={1}>Mot de passe oublié</Title>
      {sent ? (
        <Alert color="teal" role="status" title="Vérifiez votre messagerie">
          Si un compte existe pour {email}, un lien pour choisir un nouveau mot de passe vient d'y être envoyé (valable une heure).
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <Text>Indiquez l'adresse e-mail de votre compte : nous vous enverrons un lien pour choisir un nouveau mot de passe.</Text>
            <TextInput label="Adresse e-mail" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={error} />
            <Button type="submit" w="fit-content">
              Envoyer le lien
            </Button>
          </Stack>
        </form>
      )}
      <Anchor component={Link} to={paths.connexion}>
        ← Retour à la connexion
      </Anchor>
    </Stack>
  );
}

export function NouveauMotDePassePage() {
  usePageTitle('Nouveau mot de passe');
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(search.get('error') ? "Ce lien n'est plus valide. Demandez-en un nouveau." : null);
  const [done, setDone] = useState(false);
  async function submit(event: FormEvent) {
    event.preventDefault();
    const parsed = motDePasseSchema.safeParse(password);
    if (!parsed.success) return setError(parsed.error.issues[0]!.message);
    setError(null);
    try {
      await resetPassword(token, password);
      setDone(true);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : NETWORK_MESSAGE);
    }
  }
  return (
    <Stack maw={480} gap="md">
      <Title order={1}>Nouveau mot de passe</Title>
      {done ? (
        <Alert color="teal" role="status" title="Mot de passe changé">
          Vous pouvez maintenant{' '}
          <Anchor component={Link} to={paths.connexion}>
            vous connecter
          </Anchor>{' '}
          avec votre nouveau mot de passe.
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <PasswordInput
              label="Nouveau mot de passe"
              description={`De ${MOT_DE_PASSE_MIN} à ${MOT_DE_PASSE_MAX} caractères.`}
              autoComplete="new-password"
              required
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              error={error}
              visibilityToggleButtonProps={{ 'aria-label': 'Afficher ou masquer le mot de passe' }}
            />
            <Button type="submit" w="fit-content" disabled={!token}>
              Enregistrer
            </Button>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
