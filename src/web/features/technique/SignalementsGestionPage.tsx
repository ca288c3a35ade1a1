import { Alert, Anchor, Badge, Button, Card, Group, Loader, NativeSelect, Pagination, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { isGestionnaire } from '../../../domain/compte.js';
import { formatJour } from '../../../domain/dates.js';
import { pluriel } from '../../../domain/pluriel.js';
import {
  ETAT_SIGNALEMENT_LIBELLES,
  ETATS_SIGNALEMENT,
  listeGestionSignalementsQuerySchema,
  TRI_SIGNALEMENTS_LIBELLES,
  type EvenementSignalement,
  type ListeGestionSignalementsQuery,
  type TriSignalements,
} from '../../../domain/signalements.js';
import { z } from '../../../domain/zod.js';
import { AccesReserve, ConnexionRequise } from '../../components/AccesReserve.js';
import { paths } from '../../lib/paths.js';
import { useRechercheDansLAdresse } from '../../lib/rechercheDansLAdresse.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useCategories } from './api.js';
import { requeteListeGestion, useListeGestion } from './apiGestion.js';
import { useGestionEnDirect } from './enDirect.js';
import { EtatBadge } from './Etat.js';

const TITRE = 'Tous les signalements techniques';

/** The columns a manager sorts by clicking their header, in the table's order. */
const COLONNES: readonly TriSignalements[] = ['numero', 'creeLe', 'misAJourLe', 'etat', 'categorie'];

/** How the list is sorted, in words, for its caption. */
const ORDRES_DE_TRI: Readonly<Record<TriSignalements, Record<'asc' | 'desc', string>>> = {
  numero: { asc: 'par numéro, dans l’ordre croissant', desc: 'par numéro, dans l’ordre décroissant' },
  creeLe: { asc: 'par date du signalement, du plus ancien au plus récent', desc: 'par date du signalement, du plus récent au plus ancien' },
  misAJourLe: { asc: 'par dernière mise à jour, de la plus ancienne à la plus récente', desc: 'par dernière mise à jour, de la plus récente à la plus ancienne' },
  etat: { asc: 'par état, dans l’ordre des étapes', desc: 'par état, dans l’ordre inverse des étapes' },
  categorie: { asc: 'par catégorie, de A à Z', desc: 'par catégorie, de Z à A' },
};

/** The sorts a phone offers (the table's headers do on a wider screen). */
const TRIS = COLONNES.flatMap((c) =>
  (['asc', 'desc'] as const).map((ordre) => {
    const enMots = ORDRES_DE_TRI[c][ordre];
    return { value: `${c}.${ordre}`, label: enMots.charAt(0).toUpperCase() + enMots.slice(1) };
  }),
);

const FILTRES_ETAT = [
  { value: '', label: 'Tous les états' },
  { value: 'ouverts', label: 'Ouverts (à traiter)' },
  { value: 'fermes', label: 'Fermés' },
  ...ETATS_SIGNALEMENT.map((e) => ({ value: e, label: ETAT_SIGNALEMENT_LIBELLES[e] })),
];

/** The list's query as the address gives it: a missing or wrong value falls back to its default. */
const depuisAdresse = z.object(
  Object.fromEntries(
    Object.entries(listeGestionSignalementsQuerySchema.shape as Record<string, z.ZodType>).map(([nom, schema]) => [nom, schema.catch(schema.parse(undefined))]),
  ),
) as unknown as z.ZodType<ListeGestionSignalementsQuery, Record<string, string>>;

/** The list's state in the address (requeteGestionSignalements, and the page), so that a view can be shared. */
function useParams(): [ListeGestionSignalementsQuery, (patch: Partial<ListeGestionSignalementsQuery>) => void] {
  const [search, setSearch] = useSearchParams();
  const params = depuisAdresse.parse(Object.fromEntries(search));
  const update = (patch: Partial<ListeGestionSignalementsQuery>) => setSearch(requeteListeGestion({ ...params, ...patch }), { replace: true });
  return [params, update];
}

/** `/technique/list`: every report, for managers and admins. */
export function SignalementsGestionPage() {
  usePageTitle(TITRE);
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <ConnexionRequise />;
  if (!isGestionnaire(moi.userType)) {
    return <AccesReserve>La liste de tous les signalements techniques est réservée aux gestionnaires de la mairie annexe.</AccesReserve>;
  }
  return <Liste />;
}

const nombre = new Intl.NumberFormat('fr-FR');

function Liste() {
  const [params, update] = useParams();
  const [q, taper] = useRechercheDansLAdresse(params.q, (value) => update({ q: value, page: 1 }));
  const { data, error, isPending, isFetching } = useListeGestion(params);
  const { data: categories } = useCategories();
  const [arrivees, setArrivees] = useState(0);
  useGestionEnDirect((event: EvenementSignalement) => {
    if (event.de === null && event.quoi === undefined) setArrivees((n) => n + 1);
  });
  const etroit = useMediaQuery('(max-width: 47.99em)', undefined, { getInitialValueInEffect: false });

  const pages = !data
    ? 1
    : data.totalExact
      ? Math.max(1, Math.ceil(data.total / params.parPage))
      : Math.max(Math.ceil(data.total / params.parPage) + 1, params.page + (data.data.length === params.parPage ? 1 : 0));
  const legende = `Signalements techniques, triés ${ORDRES_DE_TRI[params.tri][params.ordre]}`;
  const trierPar = (tri: TriSignalements) => update({ tri, ordre: params.tri === tri && params.ordre === 'asc' ? 'desc' : 'asc', page: 1 });
  const filtre = Boolean(params.q || params.etat || params.categorie || params.masque || params.du || params.au);

  return (
    <Stack gap="md">
      <Title order={1}>{TITRE}</Title>
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Rechercher"
          description="Numéro, titre, description, adresse, nom ou e-mail (majuscules, accents et apostrophes ignorés)"
          type="search"
          value={q}
          onChange={(e) => taper(e.currentTarget.value)}
          style={{ flex: '1 1 18rem' }}
        />
        <NativeSelect label="État" value={params.etat} onChange={(e) => update({ etat: e.currentTarget.value as ListeGestionSignalementsQuery['etat'], page: 1 })} data={FILTRES_ETAT} />
        <NativeSelect
          label="Catégorie"
          value={params.categorie}
          onChange={(e) => update({ categorie: e.currentTarget.value, page: 1 })}
          data={[
            { value: '', label: 'Toutes les catégories' },
            ...(categories ?? []).map((c) => ({ value: c.code, label: c.libelle })),
            // A category in the address that the list no longer offers stays chosen.
            ...(params.categorie && categories && !categories.some((c) => c.code === params.categorie) ? [{ value: params.categorie, label: params.categorie }] : []),
          ]}
        />
        <NativeSelect
          label="Modération"
          value={params.masque}
          onChange={(e) => update({ masque: e.currentTarget.value as ListeGestionSignalementsQuery['masque'], page: 1 })}
          data={[
            { value: '', label: 'Tous' },
            { value: 'oui', label: 'Avec un contenu masqué' },
            { value: 'non', label: 'Sans contenu masqué' },
          ]}
        />
        <TextInput label="Signalés depuis le" type="date" value={params.du} onChange={(e) => update({ du: e.currentTarget.value, page: 1 })} />
        <TextInput label="Signalés jusqu’au" type="date" value={params.au} onChange={(e) => update({ au: e.currentTarget.value, page: 1 })} />
      </Group>
      <div role="status" aria-live="polite">
        {data && (
          <Text>
            {data.totalExact ? pluriel(data.total, 'signalement', 'signalements') : `Plus de ${nombre.format(data.total)} signalements`}
            {isFetching ? ' — mise à jour…' : ''}
            {arrivees > 0 ? ` — ${pluriel(arrivees, 'nouveau signalement arrivé', 'nouveaux signalements arrivés')} depuis l’ouverture de la page` : ''}
          </Text>
        )}
      </div>
      {error && (
        <Alert color="red" role="alert">
          {error.message}
        </Alert>
      )}
      {isPending ? (
        <Loader role="progressbar" aria-label="Chargement des signalements" />
      ) : data && data.data.length === 0 ? (
        <Alert role="status" color="gray" title={filtre ? 'Aucun signalement ne correspond à cette recherche ou à ces filtres' : 'Aucun signalement pour le moment'}>
          {filtre ? (
            <Button variant="default" mt="xs" onClick={() => update({ q: '', etat: '', categorie: '', masque: '', du: '', au: '', page: 1 })}>
              Effacer la recherche et les filtres
            </Button>
          ) : (
            'Les signalements des habitants apparaîtront ici dès leur envoi.'
          )}
        </Alert>
      ) : etroit ? (
        <Stack gap="sm">
          <NativeSelect
            label="Trier"
            value={`${params.tri}.${params.ordre}`}
            onChange={(e) => {
              const [tri, ordre] = e.currentTarget.value.split('.') as [TriSignalements, 'asc' | 'desc'];
              update({ tri, ordre, page: 1 });
            }}
            data={TRIS}
          />
          <Stack component="ul" gap="sm" aria-label={legende} p={0} m={0} style={{ listStyle: 'none' }}>
            {data?.data.map((s) => (
              <Card key={s.numero} component="li" withBorder padding="sm">
                <Group justify="space-between" align="flex-start" wrap="nowrap">
                  <Anchor component={Link} to={paths.signalement(s.numero)} fw={700} style={{ overflowWrap: 'anywhere' }}>
                    n° {s.numero} — {s.titre}
                  </Anchor>
                  <EtatBadge etat={s.etat} />
                </Group>
                <Text size="sm">{s.categorie.libelle}</Text>
                <Text size="sm">{s.adresse || 'Placé sur la carte, sans adresse.'}</Text>
                <Text size="sm" c="dimmed">
                  Signalé le {formatJour(s.creeLe)}, mis à jour le {formatJour(s.misAJourLe)}
                </Text>
                {s.contenuMasque && <MarqueMasque />}
              </Card>
            ))}
          </Stack>
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover verticalSpacing="xs">
            <Table.Caption>{legende}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                {COLONNES.slice(0, 1).map((c) => (
                  <EnTete key={c} colonne={c} params={params} onTrier={trierPar} />
                ))}
                <Table.Th scope="col">Titre et lieu</Table.Th>
                {COLONNES.slice(1).map((c) => (
                  <EnTete key={c} colonne={c} params={params} onTrier={trierPar} />
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data?.data.map((s) => (
                <Table.Tr key={s.numero}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>
                    <Anchor component={Link} to={paths.signalement(s.numero)}>
                      {s.numero}
                    </Anchor>
                  </Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere' }}>
                    {s.titre}
                    {/* The place under the title, not a column of its own: the table fits the desk at 1024 px. */}
                    <Text size="sm" c="dimmed">
                      {s.adresse || 'Placé sur la carte, sans adresse.'}
                    </Text>
                    {s.contenuMasque && <MarqueMasque />}
                  </Table.Td>
                  <Table.Td>{formatJour(s.creeLe)}</Table.Td>
                  <Table.Td>{formatJour(s.misAJourLe)}</Table.Td>
                  <Table.Td>
                    <EtatBadge etat={s.etat} />
                  </Table.Td>
                  <Table.Td>{s.categorie.libelle}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Pagination
        total={pages}
        value={Math.min(params.page, pages)}
        onChange={(page) => update({ page })}
        getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
        getControlProps={(control) => ({
          'aria-label': { first: 'Première page', previous: 'Page précédente', next: 'Page suivante', last: 'Dernière page' }[control],
        })}
      />
    </Stack>
  );
}

function MarqueMasque() {
  return (
    <Badge display="block" mt={4} size="sm" variant="outline" color="gray.8" tt="none" w="fit-content">
      Contenu masqué
    </Badge>
  );
}

/** A sortable column's header: a button, its state said by aria-sort (and the caption in words). */
function EnTete({ colonne, params, onTrier }: { colonne: TriSignalements; params: ListeGestionSignalementsQuery; onTrier: (c: TriSignalements) => void }) {
  const actif = params.tri === colonne;
  return (
    <Table.Th scope="col" aria-sort={actif ? (params.ordre === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton onClick={() => onTrier(colonne)} fw={700} fz="inherit" lh="inherit">
        {TRI_SIGNALEMENTS_LIBELLES[colonne]} {actif ? (params.ordre === 'asc' ? '▲' : '▼') : ''}
      </UnstyledButton>
    </Table.Th>
  );
}
