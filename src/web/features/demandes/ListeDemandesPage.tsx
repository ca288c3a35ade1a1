import { Alert, Anchor, Button, Group, Loader, NativeSelect, Pagination, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { formatJour } from '../../../domain/dates.js';
import { useDebouncedCallback } from '@mantine/hooks';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { isGestionnaire } from '../../../domain/compte.js';
import { labelOf, TYPES_DE_LOGEMENT } from '../../../domain/options.js';
import { STATUT_COULEUR_TEXTE, STATUT_COULEURS, STATUTS, type Statut } from '../../../domain/statut.js';
import { paths } from '../../app/paths.js';
import { ApiError } from '../../lib/api.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useMoi } from '../compte/api.js';
import { changerStatut, listeQueryString, useListe, useStatutEnDirect, type LigneDemande, type ListeParams } from './api.js';

const PAGE_SIZES = ['5', '10', '25', '50', '100'];

const COLUMNS: { key: string; label: string }[] = [
  { key: 'numeroUnique', label: 'Numéro unique' },
  { key: 'prenom', label: 'Prénom' },
  { key: 'nom', label: 'Nom' },
  { key: 'email', label: 'E-mail' },
  { key: 'nombreDEnfants', label: 'Enfants' },
  { key: 'typeDeLogementSouhaite', label: 'Logement souhaité' },
  { key: 'dateDEnregistrement', label: 'Enregistrée le' },
  { key: 'statutDeLaDemande', label: 'Statut' },
];

/** Reads the list's state from the address, so a view can be bookmarked or shared. */
function useListeParams(): [ListeParams, (patch: Partial<ListeParams>) => void] {
  const [search, setSearch] = useSearchParams();
  const size = Number(search.get('pageSize'));
  const params: ListeParams = {
    q: search.get('q') ?? '',
    status: search.get('status') ?? '',
    sort: search.get('sort') ?? 'dateDEnregistrement',
    order: search.get('order') === 'asc' ? 'asc' : 'desc',
    page: Math.max(1, Number(search.get('page')) || 1),
    pageSize: PAGE_SIZES.includes(String(size)) ? size : 10,
  };
  const update = (patch: Partial<ListeParams>) => setSearch(listeQueryString({ ...params, ...patch }), { replace: true });
  return [params, update];
}

export function ListePage() {
  usePageTitle('Toutes les demandes');
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader aria-label="Chargement" />;
  if (!moi) return <Navigate to={paths.connexion} replace />;
  if (!isGestionnaire(moi.userType)) {
    return (
      <Stack maw={640}>
        <Title order={1}>Accès réservé</Title>
        <Alert color="orange">La liste des demandes est réservée aux gestionnaires de la mairie annexe.</Alert>
      </Stack>
    );
  }
  return <Liste />;
}

function Liste() {
  const [params, update] = useListeParams();
  const [q, setQ] = useState(params.q);
  const search = useDebouncedCallback((value: string) => update({ q: value, page: 1 }), 300);
  const { data, error, isPending, isFetching } = useListe(params);
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);
  useStatutEnDirect();

  const pages = data ? Math.max(1, Math.ceil(data.total / params.pageSize)) : 1;

  function sortBy(key: string) {
    update({ sort: key, order: params.sort === key && params.order === 'asc' ? 'desc' : 'asc', page: 1 });
  }

  async function change(row: LigneDemande, statut: Statut) {
    setFailure(null);
    const key = ['liste', params];
    const previous = queryClient.getQueryData<{ data: LigneDemande[]; total: number }>(key);
    // The row changes at once; if the server refuses, it goes back and says why.
    queryClient.setQueryData(key, (old: typeof previous) =>
      old ? { ...old, data: old.data.map((r) => (r.id === row.id ? { ...r, statutDeLaDemande: statut } : r)) } : old,
    );
    try {
      await changerStatut(row.numeroUnique, statut);
    } catch (e) {
      queryClient.setQueryData(key, previous);
      setFailure(`Le statut de la demande n° ${row.numeroUnique} n'a pas été changé : ${e instanceof ApiError ? e.message : 'erreur inattendue.'}`);
    }
  }

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Title order={1}>Toutes les demandes</Title>
        <Button component="a" href={`/app/api/logement/export.csv?${listeQueryString(params)}`} variant="outline" download>
          Exporter (CSV)
        </Button>
      </Group>
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Rechercher"
          description="Nom, e-mail, numéro, adresse… (majuscules et accents ignorés)"
          value={q}
          onChange={(e) => {
            setQ(e.currentTarget.value);
            search(e.currentTarget.value);
          }}
          style={{ flex: '1 1 18rem' }}
          type="search"
        />
        <NativeSelect
          label="Statut"
          value={params.status}
          onChange={(e) => update({ status: e.currentTarget.value, page: 1 })}
          data={[{ value: '', label: 'Tous les statuts' }, ...STATUTS.map((s) => ({ value: s, label: s }))]}
        />
      </Group>
      <div role="status" aria-live="polite">
        {data && (
          <Text>
            {data.total} demande{data.total > 1 ? 's' : ''}
            {isFetching ? ' — mise à jour…' : ''}
          </Text>
        )}
      </div>
      {failure && (
        <Alert color="red" role="alert" withCloseButton onClose={() => setFailure(null)} closeButtonLabel="Fermer le message">
          {failure}
        </Alert>
      )}
      {error && (
        <Alert color="red" role="alert">
          {error.message}
        </Alert>
      )}
      {isPending ? (
        <Loader aria-label="Chargement des demandes" />
      ) : (
        <Table.ScrollContainer minWidth={1100}>
          <Table striped highlightOnHover verticalSpacing="xs">
            <Table.Caption>Demandes de logement, triées par {COLUMNS.find((c) => c.key === params.sort)?.label.toLowerCase()}</Table.Caption>
            <Table.Thead>
              <Table.Tr>
                {COLUMNS.map((c) => {
                  const active = params.sort === c.key;
                  return (
                    <Table.Th key={c.key} scope="col" aria-sort={active ? (params.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
                      <UnstyledButton onClick={() => sortBy(c.key)} fw={700}>
                        {c.label} {active ? (params.order === 'asc' ? '▲' : '▼') : ''}
                      </UnstyledButton>
                    </Table.Th>
                  );
                })}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data?.data.map((row) => (
                <Table.Tr key={row.id}>
                  <Table.Td>
                    <Anchor component={Link} to={paths.demande(row.numeroUnique)}>
                      {row.numeroUnique}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{row.prenom}</Table.Td>
                  <Table.Td>{row.nom}</Table.Td>
                  <Table.Td style={{ overflowWrap: 'anywhere', minWidth: '12rem' }}>{row.email}</Table.Td>
                  <Table.Td>{row.nombreDEnfants}</Table.Td>
                  <Table.Td>{labelOf(TYPES_DE_LOGEMENT, row.typeDeLogementSouhaite as never)}</Table.Td>
                  <Table.Td>{formatJour(row.dateDEnregistrement)}</Table.Td>
                  <Table.Td>
                    <NativeSelect
                      aria-label={`Statut de la demande n° ${row.numeroUnique}`}
                      value={row.statutDeLaDemande}
                      onChange={(e) => void change(row, e.currentTarget.value as Statut)}
                      data={STATUTS.map((s) => ({ value: s, label: s }))}
                      miw="14rem"
                      styles={{ input: { background: STATUT_COULEURS[row.statutDeLaDemande], color: STATUT_COULEUR_TEXTE, fontWeight: 600 } }}
                      data-statut={row.statutDeLaDemande}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <Group justify="space-between">
        <Pagination
          total={pages}
          value={Math.min(params.page, pages)}
          onChange={(page) => update({ page })}
          getItemProps={(page) => ({ 'aria-label': `Page ${page}` })}
          getControlProps={(control) => ({
            'aria-label': { first: 'Première page', previous: 'Page précédente', next: 'Page suivante', last: 'Dernière page' }[control],
          })}
        />
        <NativeSelect
          label="Par page"
          value={String(params.pageSize)}
          onChange={(e) => update({ pageSize: Number(e.currentTarget.value), page: 1 })}
          data={PAGE_SIZES}
        />
      </Group>
    </Stack>
  );
}
