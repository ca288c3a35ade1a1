import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useRef } from 'react';
import { useForm } from 'react-hook-form';
import { Link } from 'react-router';
import type { Moi } from '../../../domain/compte.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { connexionPour } from '../../lib/session.js';
import { useRenvoiConfirmation } from './api.js';
import { oubliSchema } from './schemas.js';

/**
 * The e-mailed link that confirms an address lands on /connexion?confirmation=adresse (the server's
 * RETOUR_CONFIRMATION_ADRESSE, src/server/auth/index.ts); better-auth adds `&error=…` when it failed.
 */
export const PARAM_CONFIRMATION = 'confirmation';
export const CONFIRMATION_ADRESSE = 'adresse';
/**
 * The e-mailed link that changes an account's address (« Mon profil », better-auth's /change-email) lands on
 * /connexion?confirmation=changement, with `&error=…` when it failed: TOKEN_EXPIRED (after 24 hours),
 * INVALID_TOKEN (cut, or already used: the account's address is no longer the one the link changes),
 * USER_NOT_FOUND (account deleted), INVALID_USER (another account is signed in on this device).
 */
export const CHANGEMENT_ADRESSE = 'changement';

/** A heading that takes the focus when its screen appears, so that it is what a screen reader reads first. */
export function TitreAnnonce({ children }: { children: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <Title order={1} ref={ref} tabIndex={-1}>
      {children}
    </Title>
  );
}

/** The next step after an account is ready: on to `destination` (Logement unless the person was going elsewhere), or the profile. */
export function Suite({ destination }: { destination: string }) {
  return (
    <Group gap="sm">
      <Button component={Link} to={destination}>
        {destination === paths.logement ? 'Mes demandes de logement' : 'Continuer'}
      </Button>
      <Button component={Link} to={paths.profil} variant="default">
        Mon profil
      </Button>
    </Group>
  );
}

/** The confirmation link worked and signed the person in (better-auth's autoSignInAfterVerification). */
export function AdresseConfirmee({ moi, destination }: { moi: Moi; destination: string }) {
  return (
    <Stack maw={640} gap="md">
      <TitreAnnonce>Votre adresse e-mail est confirmée</TitreAnnonce>
      <Alert color="teal" role="status">
        {moi.emailVerified ? `Merci : l’adresse ${moi.email} est bien la vôtre.` : 'Merci : l’adresse du lien est confirmée.'}
      </Alert>
      <Text>
        Vous pouvez maintenant déposer et suivre vos demandes de logement, et retrouver vos voisins du Jas de Bouffan. Le lien de votre page Profil
        invite vos voisins : inscrits avec lui, vous vous suivrez mutuellement.
      </Text>
      <Suite destination={destination} />
    </Stack>
  );
}

/** The link that changes the address worked: the account has its new address (better-auth keeps the session up to date). */
export function AdresseChangee({ moi, destination }: { moi: Moi; destination: string }) {
  return (
    <Stack maw={640} gap="md">
      <TitreAnnonce>Votre adresse e-mail est changée</TitreAnnonce>
      <Alert color="teal" role="status">
        L’adresse de votre compte est désormais {moi.email}. Utilisez-la pour vous connecter : les e-mails de Quartier Vivant y seront envoyés.
      </Alert>
      <Suite destination={destination} />
    </Stack>
  );
}

/** What a failed change-of-address link's `error` (better-auth's code) means for the person. */
function raisonDuChangement(erreur: string): string {
  if (erreur === 'TOKEN_EXPIRED') return 'Ce lien a expiré : il n’est valable que 24 heures après son envoi.';
  if (erreur === 'USER_NOT_FOUND') return 'Le compte de ce lien n’existe plus : il a peut-être été supprimé.';
  if (erreur === 'INVALID_USER') return 'Ce lien a été envoyé pour un autre compte que celui qui est connecté sur cet appareil.';
  if (erreur === 'EMAIL_TAKEN') return 'Un autre compte utilise cette adresse depuis l’envoi du lien : elle ne peut pas être la vôtre aussi.';
  return 'Ce lien a déjà servi, ou il n’est pas complet : il a peut-être été coupé en le copiant.';
}

/**
 * The link that changes the address did not work: why, and the next step. A new link is asked for where the
 * first one was, in « Mon profil » (signed in: the sign-in screen brings the person back there).
 */
export function LienDeChangementPerime({ erreur, moi }: { erreur: string; moi: Moi | null }) {
  return (
    <Stack maw={640} gap="md">
      <TitreAnnonce>Ce lien ne permet pas de changer l’adresse e-mail</TitreAnnonce>
      {/* Part of the page the focused heading introduces, not an interruption. */}
      <Alert color="orange" role="note">
        {raisonDuChangement(erreur)}
      </Alert>
      {erreur === 'USER_NOT_FOUND' ? (
        <Anchor component={Link} to={paths.connexion} w="fit-content">
          Créer un compte ou se connecter
        </Anchor>
      ) : erreur === 'INVALID_USER' && moi ? (
        <>
          <Text>
            Déconnectez-vous, puis ouvrez de nouveau le lien depuis l’e-mail. Ou, si le compte connecté est bien le vôtre, demandez un nouveau
            lien depuis « Mon profil ».
          </Text>
          <Group gap="sm">
            <Button component={Link} to={paths.deconnexion}>
              Se déconnecter
            </Button>
            <Button component={Link} to={paths.profil} variant="default">
              Mon profil
            </Button>
          </Group>
        </>
      ) : (
        <>
          <Text>
            Pour changer d’adresse, demandez un nouveau lien : dans « Mon profil », saisissez la nouvelle adresse e-mail puis enregistrez. Le lien
            part à cette adresse et reste valable 24 heures.
          </Text>
          {moi ? (
            <>
              <Text>L’adresse de votre compte est aujourd’hui {moi.email}.</Text>
              <Button component={Link} to={paths.profil} w="fit-content">
                Mon profil
              </Button>
            </>
          ) : (
            <>
              <Text>Connectez-vous avec l’adresse actuelle de votre compte : l’ancienne, ou la nouvelle si vous aviez déjà ouvert ce lien.</Text>
              <Button component={Link} to={connexionPour(paths.profil)} w="fit-content">
                Se connecter
              </Button>
            </>
          )}
        </>
      )}
    </Stack>
  );
}

/** What the link's `error` (better-auth's code) means for the person. */
function raisonDe(erreur: string): string {
  if (erreur === 'TOKEN_EXPIRED') return 'Ce lien de confirmation a expiré : il n’est valable que 24 heures après son envoi.';
  if (erreur === 'USER_NOT_FOUND') return 'Aucun compte n’a plus cette adresse e-mail : il a peut-être été supprimé.';
  return 'Ce lien de confirmation n’est pas valable : il a peut-être été coupé en le copiant. Ouvrez-le en entier depuis l’e-mail, ou demandez-en un nouveau.';
}

/** The confirmation link did not work (expired, cut, for a deleted account): why, and a new one. */
export function LienDeConfirmationPerime({ erreur, moi, destination }: { erreur: string; moi: Moi | null; destination: string }) {
  return (
    <Stack maw={640} gap="md">
      <TitreAnnonce>Ce lien ne permet plus de confirmer l’adresse</TitreAnnonce>
      {/* Part of the page the focused heading introduces, not an interruption. */}
      <Alert color="orange" role="note">
        {raisonDe(erreur)}
      </Alert>
      {moi?.emailVerified ? (
        <>
          <Text>Bonne nouvelle : votre adresse {moi.email} est déjà confirmée, vous n’avez rien d’autre à faire.</Text>
          <Suite destination={destination} />
        </>
      ) : moi ? (
        <RenvoiConfirmation email={moi.email} />
      ) : erreur === 'USER_NOT_FOUND' ? (
        <Anchor component={Link} to={paths.connexion} w="fit-content">
          Créer un compte ou se connecter
        </Anchor>
      ) : (
        <RenvoiConfirmation />
      )}
    </Stack>
  );
}

/**
 * « Recevoir un nouveau lien »: with `email` (signed in), a button for the account's own address; without, a
 * form for it. The answer is announced (role="status"); a failure is said until the next attempt.
 */
export function RenvoiConfirmation({ email }: { email?: string }) {
  const renvoi = useRenvoiConfirmation();
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm({ resolver: zodResolver(oubliSchema), defaultValues: { email: '' } });
  const envoye = renvoi.isSuccess
    ? email
      ? `Un nouveau lien de confirmation a été envoyé à ${email}. Il est valable 24 heures.`
      : `Si un compte dont l’adresse n’est pas encore confirmée existe pour ${renvoi.variables}, un nouveau lien vient d’y être envoyé (valable 24 heures).`
    : null;
  const echec = renvoi.error ? errorMessage(renvoi.error, MESSAGES.reseau) : null;
  // The previous answer goes at each attempt, also when the address typed is refused before any call.
  const submit = handleSubmit(
    (data) => {
      renvoi.reset();
      renvoi.mutate(data.email);
    },
    () => renvoi.reset(),
  );

  return (
    <Stack gap="sm">
      {email ? (
        <Button variant="outline" w="fit-content" loading={renvoi.isPending} onClick={() => renvoi.mutate(email)}>
          Recevoir un nouveau lien
        </Button>
      ) : (
        <form onSubmit={submit} noValidate aria-label="Nouveau lien de confirmation">
          <Stack gap="sm">
            <Text>Indiquez l’adresse e-mail de votre compte : nous y enverrons un nouveau lien pour la confirmer.</Text>
            <TextInput {...register('email')} label="Adresse e-mail" type="email" autoComplete="email" required error={errors.email?.message} />
            <Button type="submit" w="fit-content" loading={renvoi.isPending}>
              Recevoir un nouveau lien
            </Button>
          </Stack>
        </form>
      )}
      {echec && (
        <Alert color="red" role="alert">
          {echec}
        </Alert>
      )}
      {/* A success is a status message: the region is there before it, and the Alert inside has no alert role. */}
      <div role="status" aria-live="polite">
        {envoye && (
          <Alert role="none" color="teal">
            {envoye}
          </Alert>
        )}
      </div>
    </Stack>
  );
}
