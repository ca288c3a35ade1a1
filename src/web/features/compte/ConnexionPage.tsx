import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Anchor, Avatar, Button, Card, Divider, Group, Loader, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { Link, Navigate, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { MESSAGES } from '../../../domain/erreurs.js';
import { errorMessage } from '../../lib/api.js';
import { useParametres } from '../../lib/parametres.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { destinationSure, useMoi } from '../../lib/session.js';
import { useConnexion, useConnexionGoogle, usePublicProfile } from './api.js';
import { Bienvenue, PARAM_BIENVENUE } from './Bienvenue.js';
import {
  AdresseChangee,
  AdresseConfirmee,
  CHANGEMENT_ADRESSE,
  CONFIRMATION_ADRESSE,
  LienDeChangementPerime,
  LienDeConfirmationPerime,
  PARAM_CONFIRMATION,
} from './ConfirmationAdresse.js';
import classes from './ConnexionPage.module.css';
import { InscriptionModal } from './InscriptionModal.js';
import { connexionSchema } from './schemas.js';

const ECHEC_GOOGLE = 'La connexion avec Google a échoué. Réessayez, ou utilisez votre e-mail.';

/** The query of the sign-in screen, kept on what it links to: where the person was going (`?retour=`). */
function avecRetour(params: Record<string, string>, retour: string | null): string {
  return `?${new URLSearchParams(retour ? { ...params, retour } : params).toString()}`;
}

/** Which e-mailed link landed here: the one that confirms an address, or the one that changes it. */
function lienOuvert(valeur: string | null): typeof CONFIRMATION_ADRESSE | typeof CHANGEMENT_ADRESSE | null {
  return valeur === CONFIRMATION_ADRESSE || valeur === CHANGEMENT_ADRESSE ? valeur : null;
}

/**
 * Sign-in screen (docs/produit.md « Comptes »), also the landing of an invitation link /invitation/:uid, of
 * the e-mailed links that confirm an address (?confirmation=adresse) or change it (?confirmation=changement),
 * with &error=… when they failed, and of a new account: the welcome, after a sign-up here (the page's own
 * state) or through Google (?bienvenue=1).
 * `?retour=` is where the person was going: they go there once signed in, if it is a path of this site
 * (destinationSure), else to Logement.
 */
export function ConnexionPage() {
  const { uid } = useParams();
  const [search] = useSearchParams();
  const { data: moi, isPending: moiPending, isError: moiEnEchec } = useMoi();
  // Signed up here: the welcome, as soon as the new session is read (not the way on to the destination).
  const [inscrit, setInscrit] = useState(false);
  const retour = destinationSure(search.get('retour'));
  const destination = retour ?? paths.logement;
  const lien = lienOuvert(search.get(PARAM_CONFIRMATION));
  const erreurDeLien = lien ? search.get('error') : null;
  const bienvenue = inscrit || search.has(PARAM_BIENVENUE);
  const vue =
    ((lien || bienvenue) && moiPending) || (inscrit && !moi && !moiEnEchec)
      ? 'chargement'
      : erreurDeLien
        ? lien === CHANGEMENT_ADRESSE
          ? 'changement-perime'
          : 'lien-perime'
        : lien && moi
          ? lien === CHANGEMENT_ADRESSE
            ? 'adresse-changee'
            : 'adresse-confirmee'
          : bienvenue && moi
            ? 'bienvenue'
            : 'connexion';
  usePageTitle(TITRES[vue]);

  if (vue === 'chargement') return <Loader role="progressbar" aria-label="Chargement" />;
  if (vue === 'lien-perime') return <LienDeConfirmationPerime erreur={erreurDeLien!} moi={moi ?? null} destination={destination} />;
  if (vue === 'changement-perime') return <LienDeChangementPerime erreur={erreurDeLien!} moi={moi ?? null} />;
  if (vue === 'adresse-confirmee') return <AdresseConfirmee moi={moi!} destination={destination} />;
  if (vue === 'adresse-changee') return <AdresseChangee moi={moi!} destination={destination} />;
  if (vue === 'bienvenue') return <Bienvenue moi={moi!} inviterUid={uid} destination={destination} />;
  if (!moiPending && moi) return <Navigate to={destination} replace />;
  return <Connexion uid={uid} retour={retour} lien={lien} onInscrit={() => setInscrit(true)} />;
}

const TITRES = {
  chargement: 'Connexion',
  connexion: 'Connexion',
  'lien-perime': 'Lien de confirmation inutilisable',
  'changement-perime': 'Lien de changement d’adresse inutilisable',
  'adresse-confirmee': 'Adresse confirmée',
  'adresse-changee': 'Adresse e-mail changée',
  bienvenue: 'Bienvenue',
} as const;

/** What the sign-in form says first when an e-mailed link that worked opened it signed out. */
const LIEN_REUSSI = {
  [CONFIRMATION_ADRESSE]: { titre: 'Votre adresse e-mail est confirmée', texte: 'Connectez-vous pour continuer.' },
  [CHANGEMENT_ADRESSE]: { titre: 'Votre adresse e-mail est changée', texte: 'Connectez-vous avec la nouvelle adresse pour continuer.' },
} as const;

/** The sign-in form, the invitation's banner, and the sign-up and Google buttons. */
function Connexion({
  uid,
  retour,
  lien,
  onInscrit,
}: {
  uid: string | undefined;
  retour: string | null;
  /** The e-mailed link that worked and opened this screen signed out, if any. */
  lien: keyof typeof LIEN_REUSSI | null;
  onInscrit: () => void;
}) {
  const [search] = useSearchParams();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const { data: parametres } = useParametres();
  const inviter = usePublicProfile(uid);
  const [inscription, { open, close }] = useDisclosure(false);
  const invitationId = useId();
  const connexion = useConnexion();
  const google = useConnexionGoogle();
  const destination = retour ?? paths.logement;
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitted },
  } = useForm({ resolver: zodResolver(connexionSchema), defaultValues: { email: '', password: '' } });

  // Google sends people back here with ?erreur=google when it failed; the next attempt replaces that message.
  const failure = connexion.error ?? google.error;
  const formError = failure
    ? errorMessage(failure, MESSAGES.reseau)
    : search.get('erreur') === 'google' && !isSubmitted && google.isIdle
      ? ECHEC_GOOGLE
      : null;

  // Each attempt starts without the previous one's server message, also when the fields are refused before any call.
  const oublierLesEchecs = () => {
    connexion.reset();
    google.reset();
  };
  const submit = handleSubmit((data) => {
    oublierLesEchecs();
    connexion.mutate(data, { onSuccess: () => navigate(destination) });
  }, oublierLesEchecs);

  function startGoogle() {
    connexion.reset();
    google.mutate({
      inviterUid: uid,
      retours: {
        destination,
        // A new account's welcome is shown here, where the person signed up (the invitation's address keeps its inviter).
        bienvenue: `${pathname}${avecRetour({ [PARAM_BIENVENUE]: '1' }, retour)}`,
        erreur: `${paths.connexion}${avecRetour({ erreur: 'google' }, retour)}`,
      },
    });
  }

  function created() {
    close();
    onInscrit();
  }

  return (
    <div className={classes.columns}>
      <Stack gap="md">
        {/* The page's subject, not the greeting (RGAA 9.1); the greeting opens the text below. */}
        <Title order={1}>Connexion</Title>
        {uid && inviter.data && (
          // A part named by what it shows: « Invitation reçue par Élodie Roux ».
          <Card withBorder padding="md" component="section" aria-labelledby={`${invitationId}-titre ${invitationId}-nom`}>
            <Group wrap="nowrap">
              <Avatar src={inviter.data.pic} alt="" size="lg" radius="xl" />
              <div>
                <Text fw={600} id={`${invitationId}-titre`}>
                  Invitation reçue par
                </Text>
                <Text size="lg" id={`${invitationId}-nom`}>
                  {inviter.data.nom ? `${inviter.data.prenom} ${inviter.data.nom}` : inviter.data.prenom}
                </Text>
              </div>
            </Group>
          </Card>
        )}
        <Text>
          Bonjour ! Connectez-vous pour retrouver vos demandes de logement et vos voisins du Jas de Bouffan. Pas encore de compte ? Créez-le en une
          minute.
        </Text>
        {retour && <Text>Après la connexion, vous reviendrez à la page que vous vouliez ouvrir.</Text>}
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
            {lien && (
              <Alert color="teal" role="status" title={LIEN_REUSSI[lien].titre}>
                {LIEN_REUSSI[lien].texte}
              </Alert>
            )}
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
      <InscriptionModal opened={inscription} onClose={close} onCreated={created} inviterUid={inviter.data ? uid : undefined} />
    </div>
  );
}
