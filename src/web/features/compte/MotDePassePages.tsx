import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Button, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { Link, useSearchParams } from 'react-router';
import { MOT_DE_PASSE_MAX, MOT_DE_PASSE_MIN, motDePasseSchema } from '../../../domain/compte.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { z } from '../../../domain/zod.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useNouveauMotDePasse, useOubliMotDePasse } from './api.js';
import { oubliSchema } from './schemas.js';

export function MotDePasseOubliePage() {
  usePageTitle('Mot de passe oublié');
  const oubli = useOubliMotDePasse();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm({ resolver: zodResolver(oubliSchema), defaultValues: { email: '' } });
  // Each attempt starts without the previous one's server message, also when the address is refused before any call.
  const submit = handleSubmit(
    ({ email }) => {
      oubli.reset();
      oubli.mutate(email);
    },
    () => oubli.reset(),
  );
  return (
    <Stack maw={480} gap="md">
      <Title order={1}>Mot de passe oublié</Title>
      {oubli.isSuccess ? (
        <Alert color="teal" role="status" title="Vérifiez votre messagerie">
          Si un compte existe pour {oubli.variables}, un lien pour choisir un nouveau mot de passe vient d’y être envoyé (valable une heure).
        </Alert>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap="sm">
            <Text>Indiquez l’adresse e-mail de votre compte : nous vous enverrons un lien pour choisir un nouveau mot de passe.</Text>
            <TextInput
              {...register('email')}
              label="Adresse e-mail"
              type="email"
              autoComplete="email"
              required
              error={errors.email?.message ?? (oubli.error && errorMessage(oubli.error, MESSAGES.reseau))}
            />
            <Button type="submit" w="fit-content" loading={oubli.isPending}>
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

const nouveauMotDePasseSchema = z.object({ password: motDePasseSchema });

/** A reset link without its token: cut when copied. */
const LIEN_INCOMPLET = 'Ce lien est incomplet : ouvrez en entier celui reçu par e-mail, ou demandez-en un nouveau.';

/** A reset link that cannot serve (used, expired, made up, cut): why, and the way to a new one, right there. */
function LienInutilisable({ children }: { children: string }) {
  return (
    <Alert color="orange" role="alert" title="Lien inutilisable">
      <Stack gap="sm" align="flex-start">
        <Text size="sm">{children}</Text>
        <Button component={Link} to={paths.motDePasseOublie} size="sm">
          Demander un nouveau lien
        </Button>
      </Stack>
    </Alert>
  );
}

export function NouveauMotDePassePage() {
  usePageTitle('Nouveau mot de passe');
  const [search] = useSearchParams();
  const token = search.get('token') ?? '';
  const nouveau = useNouveauMotDePasse();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm({ resolver: zodResolver(nouveauMotDePasseSchema), defaultValues: { password: '' } });
  const submit = handleSubmit(
    ({ password }) => {
      nouveau.reset();
      nouveau.mutate({ token, newPassword: password });
    },
    () => nouveau.reset(),
  );
  // The link opened already refused (better-auth's ?error=INVALID_TOKEN), or refused when the password is sent
  // (used or expired meanwhile): the server's words, and no form, which could not work with it.
  const lienRefuse = search.get('error') !== null || (nouveau.error instanceof ApiError && nouveau.error.code === 'INVALID_TOKEN');
  const lienInutilisable = lienRefuse ? MESSAGES.lienMotDePassePerime : !token ? LIEN_INCOMPLET : null;
  return (
    <Stack maw={480} gap="md">
      <Title order={1}>Nouveau mot de passe</Title>
      {lienInutilisable ? (
        <LienInutilisable>{lienInutilisable}</LienInutilisable>
      ) : nouveau.isSuccess ? (
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
              {...register('password')}
              label="Nouveau mot de passe"
              description={`De ${MOT_DE_PASSE_MIN} à ${MOT_DE_PASSE_MAX} caractères.`}
              autoComplete="new-password"
              required
              error={errors.password?.message ?? (nouveau.error ? errorMessage(nouveau.error, MESSAGES.reseau) : null)}
              visibilityToggleButtonProps={{ 'aria-label': 'Afficher ou masquer le mot de passe' }}
            />
            <Button type="submit" w="fit-content" loading={nouveau.isPending}>
              Enregistrer
            </Button>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
