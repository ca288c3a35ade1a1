import { Alert, Avatar, Button, Card, CopyButton, Group, List, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate } from 'react-router';
import { capitaliser, type ProfilPublic } from '../../../domain/compte.js';
import { paths } from '../../app/paths.js';
import { ApiError, NETWORK_MESSAGE } from '../../lib/api.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { changeEmail, updateProfil, useMoi } from './api.js';

export function ProfilPage() {
  usePageTitle('Mon profil');
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader aria-label="Chargement" />;
  if (!moi) return <Navigate to={paths.connexion} replace />;
  return <Profil key={moi.uid} />;
}

function Profil() {
  const { data: moi } = useMoi();
  const queryClient = useQueryClient();
  const [nom, setNom] = useState(moi!.nom);
  const [prenom, setPrenom] = useState(moi!.prenom);
  const [email, setEmail] = useState(moi!.email);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [status, setStatus] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setStatus(null), [nom, prenom, email]);

  async function save(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    setFailure(null);
    setBusy(true);
    const done: string[] = [];
    try {
      if (capitaliser(nom) !== moi!.nom || capitaliser(prenom) !== moi!.prenom) {
        const saved = await updateProfil(nom, prenom);
        setNom(saved.nom);
        setPrenom(saved.prenom);
        done.push('Nom et prénom enregistrés.');
      }
      if (email.trim().toLowerCase() !== moi!.email) {
        await changeEmail(email.trim());
        done.push(`Un lien de confirmation a été envoyé à ${email.trim()} : l'adresse changera quand vous l'aurez ouvert.`);
      }
      await queryClient.invalidateQueries({ queryKey: ['moi'] });
      setStatus(done.length > 0 ? done.join(' ') : 'Aucune modification à enregistrer.');
    } catch (error) {
      if (error instanceof ApiError) {
        setErrors(error.fields);
        setFailure(error.message);
      } else {
        setFailure(NETWORK_MESSAGE);
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack maw={880} gap="lg">
      <Group>
        <Avatar src={moi!.pic} alt="" size={64} radius="xl" />
        <Title order={1}>Mon profil</Title>
      </Group>
      <Card withBorder padding="lg" component="section" aria-labelledby="profil-infos">
        <Title order={2} size="h3" id="profil-infos" mb="sm">
          Mes informations
        </Title>
        <form onSubmit={save} noValidate>
          <Stack gap="sm">
            {failure && (
              <Alert color="red" role="alert">
                {failure}
              </Alert>
            )}
            <div role="status">{status && <Alert color="teal">{status}</Alert>}</div>
            <TextInput label="Adresse e-mail" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={errors.email} required />
            {!moi!.emailVerified && (
              <Text size="sm" c="dimmed">
                Adresse pas encore confirmée : ouvrez le lien reçu par e-mail.
              </Text>
            )}
            <SimpleGrid cols={{ base: 1, xs: 2 }}>
              <TextInput label="Nom" autoComplete="family-name" value={nom} onChange={(e) => setNom(e.currentTarget.value)} error={errors.nom} required />
              <TextInput label="Prénom" autoComplete="given-name" value={prenom} onChange={(e) => setPrenom(e.currentTarget.value)} error={errors.prenom} required />
            </SimpleGrid>
            <Button type="submit" loading={busy} w="fit-content">
              Enregistrer
            </Button>
          </Stack>
        </form>
      </Card>

      <Card withBorder padding="lg" component="section" aria-labelledby="profil-invitation">
        <Title order={2} size="h3" id="profil-invitation" mb="xs">
          Inviter mes voisins
        </Title>
        <Text mb="sm">Partagez ce lien : vos voisins qui s'inscrivent avec lui et vous vous suivrez mutuellement.</Text>
        <TextInput label="Mon lien d'invitation" value={moi!.invitationLink} readOnly onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={moi!.invitationLink}>
          {({ copied, copy }) => (
            <Button variant="outline" onClick={copy} mt="sm" w="fit-content">
              {copied ? 'Lien copié' : 'Copier le lien'}
            </Button>
          )}
        </CopyButton>
      </Card>

      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Voisins title="Ils me suivent" empty="Personne ne vous suit encore." list={moi!.followers} />
        <Voisins title="Je les suis" empty="Vous ne suivez personne encore." list={moi!.following} />
      </SimpleGrid>
    </Stack>
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
                <Text>
                  {p.prenom} {p.nom}
                </Text>
              </Group>
            </List.Item>
          ))}
        </List>
      )}
    </Card>
  );
}
