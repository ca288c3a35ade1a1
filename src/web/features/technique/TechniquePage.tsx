import { Alert, Anchor, Box, Button, Card, Grid, Group, Loader, NativeSelect, Pagination, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { isGestionnaire } from '../../../domain/compte.js';
import { useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { formatJour } from '../../../domain/dates.js';
import { pluriel } from '../../../domain/pluriel.js';
import {
  ETAT_SIGNALEMENT_LIBELLES,
  ETATS_SIGNALEMENT,
  listeSignalementsQuerySchema,
  numeroSignalementSchema,
  PAR_PAGE_MAX,
  type ListeSignalementsQuery,
  type SignalementResume,
} from '../../../domain/signalements.js';
import { NumeroLookup } from '../../components/NumeroLookup.js';
import { errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { AlerteQuartier } from './AlerteQuartier.js';
import { listeQueryString, useCategories, useListeSignalements } from './api.js';
import { CarteDuQuartier } from './CarteDuQuartier.js';
import type { Marqueur } from './Carte.js';
import { useSignalementsEnDirect } from './enDirect.js';
import { EtatBadge } from './Etat.js';

/** The « récents » filter: the last 7, 30 or 90 days. */
const PERIODES = [7, 30, 90] as const;

/**
 * The list's filters read from the address (so that a filtered view can be shared): a value the list does not know
 * is left out, the others kept.
 */
export function filtresDepuisAdresse(search: URLSearchParams): ListeSignalementsQuery {
  const brut = Object.fromEntries(search);
  const lu = listeSignalementsQuerySchema.safeParse(brut);
  if (lu.success) return lu.data;
  const fautifs = new Set(lu.error.issues.map((issue) => String(issue.path[0])));
  return listeSignalementsQuerySchema.parse(Object.fromEntries(Object.entries(brut).filter(([cle]) => !fautifs.has(cle))));
}

/** A report's accessible name, on the map and in announcements: its number, title and state. */
export const nomDuSignalement = (s: Pick<SignalementResume, 'numero' | 'titre' | 'etat'>) =>
  `Signalement n° ${s.numero} : ${s.titre} (${ETAT_SIGNALEMENT_LIBELLES[s.etat]})`;

export function TechniquePage() {
  usePageTitle('Signalements techniques');
  const navigate = useNavigate();
  const { data: moi } = useMoi();
  return (
    <Stack maw={1200} gap="xl">
      <Stack gap="sm">
        <Title order={1}>Signalements techniques</Title>
        <Text>
          Voirie, éclairage public, propreté, espaces verts, mobilier urbain : signalez un problème dans l’espace public du quartier et suivez sa
          prise en charge par la mairie.
        </Text>
        <Group gap="sm">
          <Button component={Link} to={paths.nouveauSignalement} size="md" w="fit-content">
            Signaler un problème
          </Button>
          {moi && isGestionnaire(moi.userType) && (
            <Button component={Link} to={paths.signalements} size="md" variant="outline" w="fit-content">
              Tous les signalements (gestion)
            </Button>
          )}
        </Group>
      </Stack>

      <SignalementsDuQuartier />

      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Card withBorder padding="lg" component="section" aria-labelledby="suivre-titre">
          <Title order={2} size="h3" mb="sm" id="suivre-titre">
            Suivre un signalement
          </Title>
          <NumeroLookup
            label="Numéro du signalement"
            description="Il vous a été donné à l’enregistrement, par exemple 2026-00042."
            requiredMessage="Saisissez le numéro de votre signalement."
            placeholder=""
            schema={numeroSignalementSchema}
            submitLabel="Suivre"
            onFound={(n) => navigate(paths.signalement(n))}
          />
        </Card>
        <Card withBorder padding="lg">
          <AlerteQuartier key={moi?.email ?? ''} emailParDefaut={moi?.email ?? ''} />
        </Card>
      </SimpleGrid>
    </Stack>
  );
}

/** The district's public reports: filters (kept in the address), the map and the list of the same page, live. */
function SignalementsDuQuartier() {
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const q = filtresDepuisAdresse(search);
  const { data, error, isPending, isFetching, refetch } = useListeSignalements(q);
  // The map shows the most recent matches, up to the API's largest page, whatever page of the list is read.
  const { data: surLaCarte } = useListeSignalements({ ...q, page: 1, parPage: PAR_PAGE_MAX });
  const { data: categories } = useCategories();
  const titreListe = useRef<HTMLHeadingElement>(null);
  const [annonce, setAnnonce] = useState('');
  // A new report appears in the list by itself; the page also says so.
  useSignalementsEnDirect((event) => {
    if (event.de === null) setAnnonce(`Un nouveau signalement vient d’être fait (n° ${event.numero}) : la liste est à jour.`);
  });

  const changer = (patch: Partial<ListeSignalementsQuery>) => {
    setSearch(new URLSearchParams(listeQueryString({ ...q, page: 1, ...patch })));
  };
  const pages = data ? Math.max(1, Math.ceil(data.total / data.parPage)) : 1;
  // The same marks as long as the same reports: a mark keeps the focus while the page draws again.
  const marqueurs: Marqueur[] = useMemo(
    () => (surLaCarte?.data ?? []).map((s) => ({ numero: s.numero, lat: s.lat, lon: s.lon, etat: s.etat, nom: nomDuSignalement(s) })),
    [surLaCarte],
  );
  const carteIncomplete = surLaCarte !== undefined && surLaCarte.total > surLaCarte.data.length;
  const filtre = Boolean(q.categorie || q.etat || q.depuis);

  return (
    <Stack component="section" aria-labelledby="signalements-titre" gap="md">
      <Title order={2} id="signalements-titre">
        Les signalements du quartier
      </Title>
      <Box component="form" role="search" aria-label="Filtrer les signalements" onSubmit={(e) => e.preventDefault()}>
        <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="sm">
          <NativeSelect
            label="Catégorie"
            value={q.categorie}
            onChange={(e) => changer({ categorie: e.currentTarget.value })}
            data={[
              { value: '', label: 'Toutes les catégories' },
              ...(categories ?? []).map((c) => ({ value: c.code, label: c.libelle })),
              // A category named in the address but no longer offered stays choosable.
              ...(q.categorie && categories && !categories.some((c) => c.code === q.categorie) ? [{ value: q.categorie, label: q.categorie }] : []),
            ]}
          />
          <NativeSelect
            label="État"
            value={q.etat}
            onChange={(e) => changer({ etat: e.currentTarget.value as ListeSignalementsQuery['etat'] })}
            data={[
              { value: '', label: 'Tous les états' },
              { value: 'ouverts', label: 'Ouverts (en attente ou en cours)' },
              { value: 'fermes', label: 'Fermés (résolus ou clos)' },
              { group: 'Un état précis', items: ETATS_SIGNALEMENT.map((e) => ({ value: e, label: ETAT_SIGNALEMENT_LIBELLES[e] })) },
            ]}
          />
          <NativeSelect
            label="Signalés depuis"
            value={q.depuis ? String(q.depuis) : ''}
            onChange={(e) => changer({ depuis: e.currentTarget.value ? Number(e.currentTarget.value) : undefined })}
            data={[
              { value: '', label: 'Toutes les dates' },
              ...PERIODES.map((j) => ({ value: String(j), label: `Les ${j} derniers jours` })),
              ...(q.depuis && !(PERIODES as readonly number[]).includes(q.depuis) ? [{ value: String(q.depuis), label: `Les ${q.depuis} derniers jours` }] : []),
            ]}
          />
        </SimpleGrid>
      </Box>
      <div role="status" aria-live="polite">
        {data && (
          <Text fw={600}>
            {data.total === 0
              ? filtre
                ? 'Aucun signalement ne correspond à ces critères.'
                : 'Aucun signalement pour le moment.'
              : `${data.totalExact ? '' : 'Plus de '}${pluriel(data.total, 'signalement', 'signalements')}${filtre ? ' correspondant à ces critères' : ''}${pages > 1 ? ` — page ${q.page} sur ${pages}` : ''}.`}
          </Text>
        )}
        {annonce && <Text size="sm">{annonce}</Text>}
      </div>

      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="xs">
            <Anchor component="button" type="button" size="sm" w="fit-content" onClick={() => titreListe.current?.focus()}>
              Passer la carte : aller à la liste des signalements
            </Anchor>
            <CarteDuQuartier
              nom="Carte des signalements du quartier"
              description="Chaque signalement de la liste y est un repère : touchez-le, ou atteignez-le avec la touche Tab puis appuyez sur Entrée, pour l’ouvrir. Les flèches déplacent la carte, + et − changent le zoom."
              marqueurs={marqueurs}
              onMarqueur={(numero) => navigate(paths.signalement(numero))}
              alternative="La liste des signalements ci-dessous donne les mêmes informations."
            />
            <Text size="sm" c="dimmed">
              {carteIncomplete
                ? `La carte montre les ${surLaCarte.data.length} signalements les plus récents de la liste.`
                : 'La carte montre tous les signalements de la liste.'}{' '}
              Repères : ! ouvert, ✓ résolu, × fermé. Le tireté est la limite du quartier.
            </Text>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Title order={3} size="h4" mb="sm" ref={titreListe} tabIndex={-1} id="liste-signalements">
            Liste des signalements
          </Title>
          {isPending ? (
            <Group gap="xs" role="status">
              <Loader size="sm" aria-hidden="true" />
              <Text>Chargement des signalements…</Text>
            </Group>
          ) : error ? (
            <Stack gap="sm" align="flex-start">
              <Alert color="red" role="alert" title="La liste n’a pas pu être chargée">
                {errorMessage(error)}
              </Alert>
              <Button onClick={() => void refetch()} loading={isFetching}>
                Réessayer
              </Button>
            </Stack>
          ) : (
            <Stack gap="sm">
              {data.data.length > 0 && (
                <Box component="ul" m={0} p={0} style={{ listStyle: 'none' }} aria-labelledby="liste-signalements">
                  {data.data.map((s) => (
                    <Box component="li" key={s.numero} mb="sm">
                      <LigneSignalement signalement={s} />
                    </Box>
                  ))}
                </Box>
              )}
              {pages > 1 && (
                <Pagination
                  total={pages}
                  value={Math.min(q.page, pages)}
                  onChange={(page) => {
                    setSearch(new URLSearchParams(listeQueryString({ ...q, page })));
                    titreListe.current?.focus();
                  }}
                  getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
                  getControlProps={(control) => ({
                    'aria-label': { first: 'Première page', previous: 'Page précédente', next: 'Page suivante', last: 'Dernière page' }[control],
                  })}
                />
              )}
            </Stack>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function LigneSignalement({ signalement: s }: { signalement: SignalementResume }) {
  return (
    <Card withBorder padding="sm">
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="xs">
        <Anchor component={Link} to={paths.signalement(s.numero)} fw={600} style={{ overflowWrap: 'anywhere' }}>
          {s.titre}
        </Anchor>
        <EtatBadge etat={s.etat} />
      </Group>
      <Text size="sm" mt={4}>
        {s.categorie.libelle}
        {s.adresse ? ` — ${s.adresse}` : ''}
      </Text>
      <Text size="sm" c="dimmed">
        N° {s.numero}, signalé le {formatJour(s.creeLe)}
      </Text>
    </Card>
  );
}
