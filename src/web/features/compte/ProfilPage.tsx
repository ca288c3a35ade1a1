import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Avatar, Button, Card, CopyButton, Fieldset, Group, List, Loader, Radio, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useForm, type FieldPath } from 'react-hook-form';
import { isVisibilite, VISIBILITES, type Moi, type ProfilPublic, type Visibilite } from '../../../domain/compte.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import type { z } from '../../../domain/zod.js';
import { ConnexionRequise } from '../../components/AccesReserve.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { cles } from '../../lib/queryKeys.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useChangementEmail, useChoixVisibilite, useModificationProfil } from './api.js';
import { RenvoiConfirmation } from './ConfirmationAdresse.js';
import { mesInformationsSchema } from './schemas.js';
import { DonneesDuCompte, SuppressionCompte } from './SuppressionCompte.js';

type MesInformations = z.input<typeof mesInformationsSchema>;

/**
 * How a profile form's sending ended: the error (an alert), or what was saved, announced politely by a status region
 * present before it (the Alert inside has no role of its own: Mantine's default, alert, would make it assertive).
 */
function IssueDuFormulaire({ failure, status }: { failure: string | null; status: string | null }) {
  return (
    <>
      {failure && (
        <Alert color="red" role="alert">
          {failure}
        </Alert>
      )}
      <div role="status">
        {status && (
          <Alert role="none" color="teal">
            {status}
          </Alert>
        )}
      </div>
    </>
  );
}

export function ProfilPage() {
  usePageTitle('Mon profil');
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  // Signed out: the sign-in screen, which brings the person back here.
  if (!moi) return <ConnexionRequise />;
  return <Profil key={moi.uid} moi={moi} />;
}

function Profil({ moi }: { moi: Moi }) {
  const queryClient = useQueryClient();
  const modification = useModificationProfil();
  const changementEmail = useChangementEmail();
  // What was saved, said until the next keystroke; a failure, said until the next attempt.
  const [status, setStatus] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    reset,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<MesInformations, unknown, z.output<typeof mesInformationsSchema>>({
    resolver: zodResolver(mesInformationsSchema),
    defaultValues: { nom: moi.nom, prenom: moi.prenom, email: moi.email },
  });
  const field = (name: FieldPath<MesInformations>) => register(name, { onChange: () => setStatus(null) });
  // The new address a link was sent to from this page: it stays in the field until the link is opened, and saving the
  // names again must not send it again (each send counts against the address's limit of links).
  const [adresseDemandee, setAdresseDemandee] = useState<string | null>(null);

  // Each attempt starts without the previous one's messages, also when the fields are refused before any call.
  const save = handleSubmit(async ({ nom, prenom, email }) => {
    setFailure(null);
    const done: string[] = [];
    try {
      if (nom !== moi.nom || prenom !== moi.prenom) {
        const saved = await modification.mutateAsync({ nom, prenom });
        reset({ nom: saved.nom, prenom: saved.prenom, email });
        done.push('Nom et prénom enregistrés.');
      }
      if (email !== moi.email && email !== adresseDemandee) {
        await changementEmail.mutateAsync(email);
        setAdresseDemandee(email);
        done.push(`Un lien de confirmation a été envoyé à ${email} : l’adresse changera quand vous l’aurez ouvert.`);
      }
      await queryClient.invalidateQueries({ queryKey: cles.moi });
      setStatus(done.length > 0 ? done.join(' ') : 'Aucune modification à enregistrer.');
    } catch (error) {
      if (error instanceof ApiError) {
        for (const [name, message] of Object.entries(error.fields)) setError(name as FieldPath<MesInformations>, { message });
      }
      // What was saved before the failure is said too (the names, when the address's link could not be sent).
      if (done.length > 0) setStatus(done.join(' '));
      setFailure(errorMessage(error, MESSAGES.reseau));
    }
  }, () => {
    setFailure(null);
    setStatus(null);
  });

  return (
    <Stack maw={880} gap="lg">
      <Group>
        <Avatar src={moi.pic} alt="" size={64} radius="xl" />
        <Title order={1}>Mon profil</Title>
      </Group>
      <Card withBorder padding="lg" component="section" aria-labelledby="profil-infos">
        <Title order={2} size="h3" id="profil-infos" mb="sm">
          Mes informations
        </Title>
        <form onSubmit={save} noValidate>
          <Stack gap="sm">
            <IssueDuFormulaire failure={failure} status={status} />
            <TextInput {...field('email')} label="Adresse e-mail" type="email" autoComplete="email" error={errors.email?.message} required />
            {!moi.emailVerified && (
              <Text size="sm" c="dimmed">
                Adresse pas encore confirmée : ouvrez le lien reçu par e-mail, ou demandez-en un nouveau ci-dessous.
              </Text>
            )}
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              <TextInput {...field('nom')} label="Nom" autoComplete="family-name" error={errors.nom?.message} required />
              <TextInput {...field('prenom')} label="Prénom" autoComplete="given-name" error={errors.prenom?.message} required />
            </SimpleGrid>
            <Button type="submit" loading={isSubmitting} w="fit-content">
              Enregistrer
            </Button>
          </Stack>
        </form>
      </Card>

      {!moi.emailVerified && <ConfirmerMonAdresse email={moi.email} />}

      <QuiMeVoit moi={moi} />

      <Card withBorder padding="lg" component="section" aria-labelledby="profil-invitation">
        <Title order={2} size="h3" id="profil-invitation" mb="xs">
          Inviter mes voisins
        </Title>
        <Text mb="sm">Partagez ce lien : vos voisins qui s’inscrivent avec lui et vous vous suivrez mutuellement.</Text>
        <TextInput label="Mon lien d’invitation" value={moi.invitationLink} readOnly onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={moi.invitationLink}>
          {({ copied, copy }) => (
            <Button variant="outline" onClick={copy} mt="sm" w="fit-content">
              {copied ? 'Lien copié' : 'Copier le lien'}
            </Button>
          )}
        </CopyButton>
      </Card>

      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Voisins title="Ils me suivent" empty="Personne ne vous suit encore." list={moi.followers} />
        <Voisins title="Je les suis" empty="Vous ne suivez personne encore." list={moi.following} />
      </SimpleGrid>

      <DonneesDuCompte />
      <SuppressionCompte />
    </Stack>
  );
}

/** An address not confirmed yet: a new link, for a lost or expired one. */
function ConfirmerMonAdresse({ email }: { email: string }) {
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profil-confirmation">
      <Title order={2} size="h3" id="profil-confirmation" mb="xs">
        Confirmer mon adresse e-mail
      </Title>
      <Text mb="sm">
        Votre adresse {email} n’est pas encore confirmée. Vous ne trouvez pas l’e-mail de confirmation, ou son lien a expiré ? Recevez-en un nouveau.
      </Text>
      <RenvoiConfirmation email={email} />
    </Card>
  );
}

/** Who sees my name and photo: one choice among VISIBILITES, saved with its own button. */
function QuiMeVoit({ moi }: { moi: Moi }) {
  const queryClient = useQueryClient();
  const choix = useChoixVisibilite();
  const [value, setValue] = useState<Visibilite>(moi.visibilite);
  const [status, setStatus] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setFailure(null);
    try {
      await choix.mutateAsync(value);
      await queryClient.invalidateQueries({ queryKey: cles.moi });
      setStatus('Votre choix est enregistré.');
    } catch (error) {
      setFailure(errorMessage(error, MESSAGES.reseau));
    }
  };

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="profil-visibilite">
      <Title order={2} size="h3" id="profil-visibilite" mb="xs">
        Ce que voient les autres habitants
      </Title>
      <Text mb="sm">Votre e-mail, votre adresse, votre date de naissance et votre genre ne sont jamais montrés aux autres habitants.</Text>
      <form onSubmit={save} noValidate>
        <Stack gap="sm">
          <IssueDuFormulaire failure={failure} status={status} />
          <Fieldset legend={
              <Text component="span" id="visibilite-legende" size="sm" fw={600}>
                Qui voit mon nom et ma photo ?
              </Text>
            } variant="unstyled">
            <Radio.Group
              name="visibilite"
              value={value}
              onChange={(v) => {
                if (isVisibilite(v)) setValue(v);
                setStatus(null);
              }}
              aria-labelledby="visibilite-legende"
            >
              <Stack gap="sm" mt={4}>
                {VISIBILITES.map((v) => (
                  <Radio key={v.value} value={v.value} label={v.label} description={v.description} />
                ))}
              </Stack>
            </Radio.Group>
          </Fieldset>
          <Button type="submit" loading={choix.isPending} w="fit-content">
            Valider ce choix
          </Button>
        </Stack>
      </form>
    </Card>
  );
}

function Voisins({ title, empty, list }: { title: string; empty: string; list: ProfilPublic[] }) {
  return (
    <Card withBorder padding="lg" component="section" aria-label={title}>
      <Title order={2} size="h3" mb="sm">
        {title}
      </Title>
      {list.length === 0 ? (
        <Text c="dimmed">{empty}</Text>
      ) : (
        <List listStyleType="none" spacing="xs" ml={0} pl={0}>
          {list.map((p) => (
            <List.Item key={p.uid}>
              <Group gap="sm" wrap="nowrap">
                <Avatar src={p.pic} alt="" radius="xl" />
                <Text>{p.nom ? `${p.prenom} ${p.nom}` : p.prenom}</Text>
              </Group>
            </List.Item>
          ))}
        </List>
      )}
    </Card>
  );
}
