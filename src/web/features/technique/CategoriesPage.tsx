import { Alert, Button, Card, Checkbox, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { pluriel } from '../../../domain/pluriel.js';
import { LIBELLE_CATEGORIE_MAX, type CategorieGestion, type ModificationCategorie, type NouvelleCategorie } from '../../../domain/signalements.js';
import { AccesReserve, ConnexionRequise } from '../../components/AccesReserve.js';
import { Annonce } from '../../components/Annonce.js';
import { apiFetch, apiUrl, errorMessage, fetchOk, sendJson } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { clesTechnique } from './cles.js';

const TITRE = 'Catégories de signalements';
const cle = [...clesTechnique.categories, 'admin'];
const chemin = (code: string) => `/technique/categories/admin/${encodeURIComponent(code)}`;

function useCategoriesAdmin() {
  return useQuery({ queryKey: cle, queryFn: async () => (await apiFetch<{ data: CategorieGestion[] }>('/technique/categories/admin')).data });
}

/** After any change: the admins' list and the residents' form's list are read again. */
function useChangement<T>(fn: (v: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: fn, onSuccess: () => queryClient.invalidateQueries({ queryKey: clesTechnique.categories }) });
}

/** `/admin/categories`: admins keep the reports' categories and the service each one is e-mailed to. */
export function CategoriesPage() {
  usePageTitle(TITRE);
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <ConnexionRequise />;
  if (moi.userType !== 'admin') return <AccesReserve>Les catégories de signalements sont gérées par les administrateurs.</AccesReserve>;
  return <Categories />;
}

function Categories() {
  const { data, error, isPending } = useCategoriesAdmin();
  const [annonce, setAnnonce] = useState<string | null>(null);
  const refAnnonce = useRef<HTMLParagraphElement>(null);
  const annoncer = (texte: string) => {
    setAnnonce(texte);
    queueMicrotask(() => refAnnonce.current?.focus());
  };
  return (
    <Stack maw={820} gap="lg">
      <Title order={1}>{TITRE}</Title>
      <Text>
        Les habitants choisissent l’une des catégories proposées en faisant un signalement ; chacun est envoyé par e-mail au service de sa catégorie. Une
        catégorie déjà utilisée ne se supprime pas : elle peut ne plus être proposée.
      </Text>
      <Annonce ref={refAnnonce}>{annonce}</Annonce>
      <Nouvelle onFaite={annoncer} />
      {isPending ? (
        <Loader role="progressbar" aria-label="Chargement des catégories" />
      ) : error ? (
        <Alert color="red" role="alert">
          {errorMessage(error, 'Les catégories n’ont pas pu être chargées.')}
        </Alert>
      ) : (
        data.map((c) => <UneCategorie key={c.code} c={c} onFaite={annoncer} />)
      )}
    </Stack>
  );
}

function Nouvelle({ onFaite }: { onFaite: (texte: string) => void }) {
  const creation = useChangement((n: NouvelleCategorie) => sendJson<{ data: CategorieGestion }>('/technique/categories/admin', n));
  const [libelle, setLibelle] = useState('');
  const [description, setDescription] = useState('');
  const [emailService, setEmailService] = useState('');
  const envoyer = (e: FormEvent) => {
    e.preventDefault();
    creation.mutate(
      { libelle, description, emailService: emailService.trim() || null, active: true },
      {
        onSuccess: () => {
          onFaite(`La catégorie « ${libelle.trim()} » est ajoutée.`);
          setLibelle('');
          setDescription('');
          setEmailService('');
        },
      },
    );
  };
  return (
    <Card withBorder padding="md" component="form" aria-labelledby="nouvelle-categorie" onSubmit={envoyer} noValidate>
      <Title order={2} size="h4" id="nouvelle-categorie" mb="sm">
        Nouvelle catégorie
      </Title>
      <Stack gap="sm">
        <TextInput label="Nom" required maxLength={LIBELLE_CATEGORIE_MAX} value={libelle} onChange={(e) => setLibelle(e.currentTarget.value)} />
        <TextInput label="Description" description="Facultative, 200 caractères au plus." maxLength={200} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <TextInput label="E-mail du service" description="Facultatif : reçoit chaque nouveau signalement de la catégorie." type="email" value={emailService} onChange={(e) => setEmailService(e.currentTarget.value)} />
        {creation.error && (
          <Alert color="red" role="alert">
            {errorMessage(creation.error, 'La catégorie n’a pas été ajoutée.')}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={creation.isPending}>
            Ajouter la catégorie
          </Button>
        </Group>
      </Stack>
    </Card>
  );
}

function UneCategorie({ c, onFaite }: { c: CategorieGestion; onFaite: (texte: string) => void }) {
  const modification = useChangement((m: ModificationCategorie) => sendJson<{ data: CategorieGestion }>(chemin(c.code), m, 'PUT'));
  const suppression = useChangement(() => fetchOk(apiUrl(chemin(c.code)), { method: 'DELETE' }));
  const [libelle, setLibelle] = useState(c.libelle);
  const [description, setDescription] = useState(c.description);
  const [emailService, setEmailService] = useState(c.emailService ?? '');
  const [active, setActive] = useState(c.active);
  const id = `categorie-${c.code}`;
  const erreur = modification.error ?? suppression.error;
  return (
    <Card
      withBorder
      padding="md"
      component="form"
      aria-labelledby={id}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        modification.mutate({ libelle, description, emailService: emailService.trim() || null, active }, { onSuccess: () => onFaite(`La catégorie « ${libelle.trim()} » est enregistrée.`) });
      }}
    >
      <Title order={2} size="h4" id={id}>
        {c.libelle}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Code {c.code} — {c.signalements > 0 ? pluriel(c.signalements, 'signalement', 'signalements') : 'aucun signalement'}
      </Text>
      <Stack gap="sm">
        <TextInput label="Nom" required maxLength={LIBELLE_CATEGORIE_MAX} value={libelle} onChange={(e) => setLibelle(e.currentTarget.value)} />
        <TextInput label="Description" maxLength={200} value={description} onChange={(e) => setDescription(e.currentTarget.value)} />
        <TextInput label="E-mail du service" type="email" value={emailService} onChange={(e) => setEmailService(e.currentTarget.value)} />
        <Checkbox label="Proposée aux habitants" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
        {erreur && (
          <Alert color="red" role="alert">
            {errorMessage(erreur, 'La catégorie n’a pas été changée.')}
          </Alert>
        )}
        <Group>
          <Button type="submit" loading={modification.isPending}>
            Enregistrer
          </Button>
          {c.signalements === 0 && (
            <Button
              variant="default"
              color="red.8"
              loading={suppression.isPending}
              aria-label={`Supprimer la catégorie « ${c.libelle} »`}
              onClick={() => suppression.mutate(undefined, { onSuccess: () => onFaite(`La catégorie « ${c.libelle} » est supprimée.`) })}
            >
              Supprimer
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
