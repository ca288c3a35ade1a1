import { Alert, Anchor, Button, Group, Loader, NativeSelect, Pagination, Stack, Table, Text, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { isGestionnaire } from '../../../domain/compte.js';
import { formatJour } from '../../../domain/dates.js';
import { CHAMPS_DEMANDE, listeQuerySchema, TAILLES_DE_PAGE, type LigneDemande, type ListeQuery, type Tri } from '../../../domain/demande.js';
import { labelOf } from '../../../domain/options.js';
import { STATUT_COULEUR_TEXTE, STATUT_COULEURS, STATUTS, type Statut } from '../../../domain/statut.js';
import { z } from '../../../domain/zod.js';
import { errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { useStatutEnDirect } from '../../lib/statutEnDirect.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { exportCsvUrl, listeQueryString, useChangementStatut, useListe } from './api.js';

const COLUMNS: { key: Tri; label: string }[] = [
  { key: 'numeroUnique', label: 'Numéro unique' },
  { key: 'prenom', label: 'Prénom' },
  { key: 'nom', label: 'Nom' },
  { key: 'email', label: 'E-mail' },
  { key: 'nombreDEnfants', label: 'Enfants' },
  { key: 'typeDeLogementSouhaite', label: 'Logement souhaité' },
  { key: 'dateDEnregistrement', label: 'Enregistrée le' },
  { key: 'statutDeLaDemande', label: 'Statut' },
];

/** The list's query as the address gives it: a missing or wrong value falls back to its default. */
const listeDepuisAdresse = z.object(
  Object.fromEntries(
    Object.entries(listeQuerySchema.shape as Record<string, z.ZodType>).map(([name, schema]) => [name, schema.catch(schema.parse(undefined))]),
  ),
) as unknown as z.ZodType<ListeQuery, Record<string, string>>;

/** Reads the list's state from the address, so a view can be bookmarked or shared. */
function useListeParams(): [ListeQuery, (patch: Partial<ListeQuery>) => void] {
  const [search, setSearch] = useSearchParams();
  const params = listeDepuisAdresse.parse(Object.fromEntries(search));
  const update = (patch: Partial<ListeQuery>) => setSearch(listeQueryString({ ...params, ...patch }), { replace: true });
  return [params, update];
}

export function ListeDemandesPage() {
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
  const changement = useChangementStatut(params);
  const [failure, setFailure] = useState<string | null>(null);
  useStatutEnDirect();

  const pages = data ? Math.max(1, Math.ceil(data.total / params.pageSize)) : 1;

  function sortBy(key: Tri) {
    update({ sort: key, order: params.sort === key && params.order === 'asc' ? 'desc' : 'asc', page: 1 });
  }

  function change(ligne: LigneDemande, statut: Statut) {
    setFailure(null);
    changement.mutate(
      { ligne, statut },
      {
        onError: (e) =>
          setFailure(`Le statut de la demande n° ${ligne.numeroUnique} n'a pas été changé : ${errorMessage(e, 'erreur inattendue.')}`),
      },
    );
  }

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Title order={1}>Toutes les demandes</Title>
        <Button component="a" href={exportCsvUrl(params)} variant="outline" download>
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
          onChange={(e) => update({ status: e.currentTarget.value as ListeQuery['status'], page: 1 })}
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
                  <Table.Td>{labelOf(CHAMPS_DEMANDE.typeDeLogementSouhaite.options, row.typeDeLogementSouhaite)}</Table.Td>
                  <Table.Td>{formatJour(row.dateDEnregistrement)}</Table.Td>
                  <Table.Td>
                    <NativeSelect
                      aria-label={`Statut de la demande n° ${row.numeroUnique}`}
                      value={row.statutDeLaDemande}
                      onChange={(e) => change(row, e.currentTarget.value as Statut)}
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
          data={TAILLES_DE_PAGE.map(String)}
        />
      </Group>
    </Stack>
  );
}
