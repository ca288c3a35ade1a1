import { Alert, Anchor, Badge, Button, Checkbox, CloseButton, Group, Loader, NativeSelect, Pagination, SegmentedControl, Stack, Table, Text, Textarea, TextInput, Title, UnstyledButton } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect, useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { AccesReserve, ConnexionRequise } from '../../components/AccesReserve.js';
import { Dialog } from '../../components/Dialog.js';
import { isGestionnaire } from '../../../domain/compte.js';
import { EXPIRATION_LABELS, EXPIRATIONS } from '../../../domain/cycleDeVie.js';
import { formatJour } from '../../../domain/dates.js';
import { ETAT_CORRECTION_VALUES, ETATS_CORRECTION } from '../../../domain/corrections.js';
import { CHAMPS_DEMANDE, listeQuerySchema, ONGLETS, type Onglet, MOTIF_MAX, avecMotif, requeteDeVue, TAILLES_DE_PAGE, type Compteurs, type LigneDemande, type ListeQuery, type Tri } from '../../../domain/demande.js';
import { labelOf } from '../../../domain/options.js';
import { de, pluriel } from '../../../domain/pluriel.js';
import { STATUTS, type Statut } from '../../../domain/statut.js';
import { VUE_NOM_MAX } from '../../../domain/vues.js';
import { z } from '../../../domain/zod.js';
import { errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { useMoi } from '../../lib/session.js';
import { useRechercheDansLAdresse } from '../../lib/rechercheDansLAdresse.js';
import { useStatutEnDirect } from '../../lib/statutEnDirect.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { notifierChangement } from './AnnulationStatut.js';
import { CarteDemande, SuiviePar } from './CarteDemande.js';
import { ORANGE_A_FAIRE } from './Corrections.js';
import { useEtiquettes } from './apiEtiquettes.js';
import { BadgesEtiquettes } from './Etiquettes.js';
import { useGestionnaires } from './apiInstruction.js';
import { ExportDemandes } from './ExportDemandes.js';
import { BarreDeLot } from './LotDemandes.js';
import { listeQueryString, useChangementStatut, useCompteurs, useListe } from './api.js';
import { StatutDeLigne } from './StatutDeLigne.js';
import { useAjoutVue, useSuppressionVue, useVues } from './apiVues.js';

// The status, the column managers act in, comes right after the numéro: on a 1024 px screen or a tablet,
// where the rest scrolls sideways, it is never cut.
const COLUMNS: { key: Tri; label: string }[] = [
  { key: 'numeroUnique', label: 'Numéro unique' },
  { key: 'statutDeLaDemande', label: 'Statut' },
  { key: 'prenom', label: 'Prénom' },
  { key: 'nom', label: 'Nom' },
  // The dates before the e-mail: at the desk's 1280 px (and 1024) what a manager scans is in sight, the address is
  // what scrolls out (the search finds it).
  { key: 'dateDEnregistrement', label: 'Enregistrée le' },
  { key: 'valideJusqua', label: 'Valide jusqu’au' },
  { key: 'nombreDEnfants', label: 'Enfants' },
  { key: 'typeDeLogementSouhaite', label: 'Logement souhaité' },
  { key: 'email', label: 'E-mail' },
];

/** How the list is sorted, in words, for its caption: « triées par date d’enregistrement, de la plus récente à la plus ancienne ». */
const ORDRES_DE_TRI: Readonly<Record<Tri, Record<'asc' | 'desc', string>>> = {
  numeroUnique: { asc: 'par numéro unique, dans l’ordre croissant', desc: 'par numéro unique, dans l’ordre décroissant' },
  statutDeLaDemande: { asc: 'par statut, dans l’ordre des étapes', desc: 'par statut, dans l’ordre inverse des étapes' },
  prenom: { asc: 'par prénom, de A à Z', desc: 'par prénom, de Z à A' },
  nom: { asc: 'par nom, de A à Z', desc: 'par nom, de Z à A' },
  email: { asc: 'par adresse e-mail, de A à Z', desc: 'par adresse e-mail, de Z à A' },
  nombreDEnfants: { asc: 'par nombre d’enfants, du plus petit au plus grand', desc: 'par nombre d’enfants, du plus grand au plus petit' },
  typeDeLogementSouhaite: { asc: 'par logement souhaité, du studio au T6', desc: 'par logement souhaité, du T6 au studio' },
  dateDEnregistrement: {
    asc: 'par date d’enregistrement, de la plus ancienne à la plus récente',
    desc: 'par date d’enregistrement, de la plus récente à la plus ancienne',
  },
  valideJusqua: {
    asc: 'par fin de validité, de la plus proche à la plus lointaine',
    desc: 'par fin de validité, de la plus lointaine à la plus proche',
  },
};

/** The sorts a phone's list offers (its table's headers do on a wider screen): « Par date d’enregistrement, de la plus récente… ». */
const TRIS = COLUMNS.flatMap((c) =>
  (['asc', 'desc'] as const).map((order) => {
    const enMots = ORDRES_DE_TRI[c.key][order];
    return { value: `${c.key}.${order}`, label: enMots.charAt(0).toUpperCase() + enMots.slice(1) };
  }),
);

/** Final statuses: choosing one asks first (a misclick would e-mail a refusal). */
const A_CONFIRMER: readonly Statut[] = ['Refusé', 'Radiée', 'Attribué'];

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
  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <ConnexionRequise />;
  if (!isGestionnaire(moi.userType)) {
    return <AccesReserve>La liste des demandes est réservée aux gestionnaires de la mairie annexe.</AccesReserve>;
  }
  return <Liste />;
}

const nombre = new Intl.NumberFormat('fr-FR');

/** « Refusé (12) »: a name and, once known, its count (fr-FR thousands), as the tabs show theirs. */
const avecNombre = (libelle: string, n: number | null | undefined) => (n === null || n === undefined ? libelle : `${libelle} (${nombre.format(n)})`);

/**
 * The status filter's options, each with the number of requests in that status (all of them, as the tabs count:
 * withdrawn and erased ones left out). The count is in the option's text, so that a screen reader reads it with
 * the status (« En attente des documents (1 234) »); the value stays the status.
 */
function optionsDeStatut(compteurs: Compteurs | undefined) {
  return [
    { value: '', label: avecNombre('Tous les statuts', compteurs?.toutes) },
    ...STATUTS.map((s) => ({ value: s, label: avecNombre(s, compteurs?.parStatut[s]) })),
  ];
}

function Liste() {
  const [params, update] = useListeParams();
  const [q, taper] = useRechercheDansLAdresse(params.q, (value) => update({ q: value, page: 1 }));
  const { data, error, isPending, isFetching } = useListe(params);
  const { data: etiquettes } = useEtiquettes();
  const { data: compteurs } = useCompteurs();
  // « Suivie par »: the row holds the manager's id, named from the managers' list (a former one: « un ancien gestionnaire »).
  const { data: gestionnaires } = useGestionnaires();
  const nomDuSuivi = (row: LigneDemande): string | null =>
    row.suiviePar && gestionnaires ? (gestionnaires.find((g) => g.id === row.suiviePar)?.nom ?? 'un ancien gestionnaire') : null;
  const changement = useChangementStatut(params);
  const [failure, setFailure] = useState<string | null>(null);
  useStatutEnDirect();

  // Past TOTAL_BORNE matches the last page is unknown (docs/decisions/0013): the pager goes one page past the
  // bound, then one past the current page while pages come full.
  const pages = !data
    ? 1
    : data.totalExact
      ? Math.max(1, Math.ceil(data.total / params.pageSize))
      : Math.max(Math.ceil(data.total / params.pageSize) + 1, params.page + (data.data.length === params.pageSize ? 1 : 0));

  // A page past the end (its last rows changed status or left, an old bookmark): the list goes to its last page
  // rather than saying no request matches beside a count of them.
  const derniere = data && data.data.length === 0 && data.total > 0 ? Math.max(1, Math.ceil(data.total / params.pageSize)) : null;
  const audela = derniere !== null && derniere < params.page;
  useEffect(() => {
    if (audela) update({ page: derniere });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `update` is new at each render; the page is what counts
  }, [audela, derniere]);

  function sortBy(key: Tri) {
    update({ sort: key, order: params.sort === key && params.order === 'asc' ? 'desc' : 'asc', page: 1 });
  }

  // Each row's status control, to give it the focus back when its notice's « Annuler » goes away.
  const selects = useRef(new Map<string, HTMLInputElement>());
  // Below Mantine's sm (48em) each request is a card: the table would scroll sideways on a phone. Read at the
  // first render, so that a phone never draws the table first.
  const etroit = useMediaQuery('(max-width: 47.99em)', undefined, { getInitialValueInEffect: false });
  const legende = `Demandes de logement, triées ${ORDRES_DE_TRI[params.sort][params.order]}`;
  const statutDe = (row: LigneDemande, label?: string) => (
    <StatutDeLigne
      ligne={row}
      label={label}
      miw={label ? undefined : '16rem'}
      onChoisir={(statut) => choisir(row, statut)}
      inputRef={(element) => {
        if (element) selects.current.set(row.numeroUnique, element);
        else selects.current.delete(row.numeroUnique);
      }}
    />
  );
  const [aConfirmer, setAConfirmer] = useState<{ ligne: LigneDemande; statut: Statut } | null>(null);
  // Where the focus goes when the bulk work's bar closes with nothing left of it.
  const titre = useRef<HTMLHeadingElement>(null);
  // The rows chosen for bulk work: forgotten when the list shows other rows (search, filter, sort, page).
  // Either some numéros, or every request of the filter but those unticked since (`sauf`).
  const [choisis, setChoisis] = useState<{ liste: string; numeros: string[] | { sauf: string[] } }>({ liste: '', numeros: [] });
  const cetteListe = `${requeteDeVue(params)}&page=${params.page}`;
  const numerosChoisis = choisis.liste === cetteListe ? choisis.numeros : [];
  const filtre = Array.isArray(numerosChoisis) ? null : numerosChoisis;
  const numeros = Array.isArray(numerosChoisis) ? numerosChoisis : [];
  const estChoisie = (numero: string) => (filtre ? !filtre.sauf.includes(numero) : numeros.includes(numero));
  const choisir1 = (numero: string, oui: boolean) => {
    if (filtre) {
      setChoisis({ liste: cetteListe, numeros: { sauf: oui ? filtre.sauf.filter((n) => n !== numero) : [...filtre.sauf, numero] } });
      return;
    }
    setChoisis({ liste: cetteListe, numeros: oui ? [...numeros, numero] : numeros.filter((n) => n !== numero) });
  };
  const surLaPage = data?.data.map((r) => r.numeroUnique) ?? [];
  const tousChoisis = surLaPage.length > 0 && surLaPage.every(estChoisie);
  const quelquesChoisis = filtre !== null || numeros.length > 0;
  // The page's box: ticked, the page's rows (taken back from those left out of the filter); unticked, nothing.
  const choisirLaPage = (oui: boolean) =>
    setChoisis({ liste: cetteListe, numeros: !oui ? [] : filtre ? { sauf: filtre.sauf.filter((n) => !surLaPage.includes(n)) } : surLaPage });

  function change(ligne: LigneDemande, statut: Statut, motif?: string) {
    setFailure(null);
    const ancien = ligne.statutDeLaDemande;
    changement.mutate(
      { ligne, statut, motif },
      {
        onSuccess: (retour) => notifierChangement(ancien, retour, () => selects.current.get(ligne.numeroUnique)),
        onError: (e) =>
          setFailure(`Le statut de la demande n° ${ligne.numeroUnique} n’a pas été changé : ${errorMessage(e, 'erreur inattendue.')}`),
      },
    );
  }

  /** « Refusé » and « Attribué » wait for a confirmation; the select keeps showing the current status meanwhile. */
  function choisir(ligne: LigneDemande, statut: Statut) {
    if (A_CONFIRMER.includes(statut)) setAConfirmer({ ligne, statut });
    else change(ligne, statut);
  }

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <Title order={1} ref={titre} tabIndex={-1}>
          Toutes les demandes
        </Title>
        <ExportDemandes params={params} />
      </Group>
      <Onglets params={params} update={update} />
      <VuesEnregistrees params={params} />
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Rechercher"
          description="Nom, e-mail, téléphone, numéro, adresse… (majuscules, accents, apostrophes et tirets ignorés)"
          value={q}
          onChange={(e) => taper(e.currentTarget.value)}
          style={{ flex: '1 1 18rem' }}
          type="search"
        />
        <NativeSelect
          label="Statut"
          value={params.status}
          onChange={(e) => update({ status: e.currentTarget.value as ListeQuery['status'], page: 1 })}
          data={optionsDeStatut(compteurs)}
        />
        <NativeSelect
          label="Validité"
          value={params.expiration}
          onChange={(e) => update({ expiration: e.currentTarget.value as ListeQuery['expiration'], page: 1 })}
          data={[{ value: '', label: 'Toutes' }, ...EXPIRATIONS.map((x) => ({ value: x, label: EXPIRATION_LABELS[x] }))]}
        />
        <NativeSelect
          label="Corrections"
          value={params.correction}
          onChange={(e) => update({ correction: e.currentTarget.value as ListeQuery['correction'], page: 1 })}
          data={[{ value: '', label: 'Toutes' }, ...ETAT_CORRECTION_VALUES.map((x) => ({ value: x, label: ETATS_CORRECTION[x] }))]}
        />
        {etiquettes && etiquettes.length > 0 && (
          <NativeSelect
            label="Étiquette"
            value={params.etiquette}
            onChange={(e) => update({ etiquette: e.currentTarget.value, page: 1 })}
            data={[{ value: '', label: 'Toutes' }, ...etiquettes.map((e) => ({ value: e.id, label: e.nom }))]}
          />
        )}
      </Group>
      <div role="status" aria-live="polite">
        {data && (
          <Text>
            {data.totalExact ? pluriel(data.total, 'demande', 'demandes') : `Plus de ${nombre.format(data.total)} demandes`}
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
      {/* Outside what the list shows: an action that moves every row out of the list (then empty) keeps its
          progress and its count on screen, until the manager closes them. */}
      <BarreDeLot
        choix={filtre ? { mode: 'filtre', total: data?.total ?? 0, sauf: filtre.sauf } : { mode: 'numeros', numeros }}
        params={params}
        page={surLaPage.length}
        total={data?.total ?? 0}
        totalExact={data?.totalExact ?? true}
        onToutLeFiltre={() => setChoisis({ liste: cetteListe, numeros: { sauf: [] } })}
        onLance={() => setChoisis({ liste: '', numeros: [] })}
        onFerme={() => titre.current?.focus()}
      />
      {isPending || audela ? (
        <Loader role="progressbar" aria-label="Chargement des demandes" />
      ) : data && data.data.length === 0 ? (
        <AucuneDemande
          params={params}
          onEffacer={() => update({ q: '', status: '', expiration: '', suivi: '', onglet: '', correction: '', etiquette: '', page: 1 })}
        />
      ) : (
        <>
          {etroit ? (
            <Stack gap="sm">
              <NativeSelect
                label="Trier"
                value={`${params.sort}.${params.order}`}
                onChange={(e) => {
                  const [sort, order] = e.currentTarget.value.split('.') as [Tri, 'asc' | 'desc'];
                  update({ sort, order, page: 1 });
                }}
                data={TRIS}
              />
              <Checkbox
                label="Choisir toutes les demandes de la page"
                checked={tousChoisis}
                indeterminate={!tousChoisis && quelquesChoisis}
                onChange={(e) => choisirLaPage(e.currentTarget.checked)}
              />
              <Stack component="ul" gap="sm" aria-label={legende} p={0} m={0} style={{ listStyle: 'none' }}>
                {data?.data.map((row) => (
                  <CarteDemande
                    key={row.id}
                    ligne={row}
                    etiquettes={etiquettes}
                    suiviePar={nomDuSuivi(row)}
                    choisie={estChoisie(row.numeroUnique)}
                    onChoisie={(oui) => choisir1(row.numeroUnique, oui)}
                    statut={statutDe(row, 'Statut')}
                  />
                ))}
              </Stack>
            </Stack>
          ) : (
            // The scroll bar always shown: a table wider than the screen says that it goes on.
            <Table.ScrollContainer minWidth={1000} scrollAreaProps={{ type: 'always', offsetScrollbars: 'x' }}>
              <Table striped highlightOnHover verticalSpacing="xs">
                <Table.Caption>{legende}</Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col" w="2.5rem">
                      <Checkbox
                        aria-label="Choisir toutes les demandes de la page"
                        checked={tousChoisis}
                        indeterminate={!tousChoisis && quelquesChoisis}
                        onChange={(e) => choisirLaPage(e.currentTarget.checked)}
                      />
                    </Table.Th>
                    {COLUMNS.map((c) => {
                      const active = params.sort === c.key;
                      return (
                        <Table.Th key={c.key} scope="col" aria-sort={active ? (params.order === 'asc' ? 'ascending' : 'descending') : 'none'}>
                          <UnstyledButton onClick={() => sortBy(c.key)} fw={700} fz="inherit" lh="inherit">
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
                        <Checkbox
                          aria-label={`Choisir la demande n° ${row.numeroUnique}`}
                          checked={estChoisie(row.numeroUnique)}
                          onChange={(e) => choisir1(row.numeroUnique, e.currentTarget.checked)}
                        />
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={paths.demande(row.numeroUnique)}>
                          {row.numeroUnique}
                        </Anchor>
                        {row.correction && (
                          <Badge display="block" mt={4} size="sm" variant="filled" color={row.correction === 'faite' ? 'teal.9' : ORANGE_A_FAIRE} w="fit-content">
                            {ETATS_CORRECTION[row.correction]}
                          </Badge>
                        )}
                        {row.messagesNonLus > 0 && (
                          <Badge display="block" mt={4} size="sm" variant="filled" color="blue.9" w="fit-content">
                            {pluriel(row.messagesNonLus, 'message non lu', 'messages non lus')}
                          </Badge>
                        )}
                        <BadgesEtiquettes ids={row.etiquettes} etiquettes={etiquettes} />
                        <SuiviePar nom={nomDuSuivi(row)} />
                      </Table.Td>
                      <Table.Td>{statutDe(row)}</Table.Td>
                      <Table.Td>{row.prenom}</Table.Td>
                      <Table.Td>{row.nom}</Table.Td>
                      <Table.Td>{formatJour(row.dateDEnregistrement)}</Table.Td>
                      <Table.Td>{formatJour(row.valideJusqua)}</Table.Td>
                      <Table.Td>{row.nombreDEnfants}</Table.Td>
                      <Table.Td>{labelOf(CHAMPS_DEMANDE.typeDeLogementSouhaite.options, row.typeDeLogementSouhaite)}</Table.Td>
                      <Table.Td title={row.email} style={{ maxWidth: '14rem', overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
                        {row.email}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
      <ConfirmationStatut
        demande={aConfirmer}
        onCancel={() => setAConfirmer(null)}
        onConfirm={(motif) => {
          if (aConfirmer) change(aConfirmer.ligne, aConfirmer.statut, motif);
          setAConfirmer(null);
        }}
      />
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

/**
 * The manager's saved views: each a link to the list as it was saved (search, filters, tab, sort), and
 * « Enregistrer cette vue » to name the current one.
 */
function VuesEnregistrees({ params }: { params: ListeQuery }) {
  const { data: vues } = useVues();
  const ajout = useAjoutVue();
  const suppression = useSuppressionVue();
  const [ouverte, setOuverte] = useState(false);
  const [nom, setNom] = useState('');
  const bouton = useRef<HTMLButtonElement>(null);
  const fermer = () => {
    setOuverte(false);
    ajout.reset();
  };
  return (
    <Group gap="xs" component="section" aria-label="Vues enregistrées">
      {vues?.map((vue) => (
        <Group key={vue.id} gap={2} wrap="nowrap">
          <Button component={Link} to={`?${vue.requete}`} variant="light" size="xs">
            {vue.nom}
          </Button>
          <CloseButton size="sm" aria-label={`Supprimer la vue « ${vue.nom} »`} onClick={() => suppression.mutate(vue.id, { onSuccess: () => bouton.current?.focus() })} />
        </Group>
      ))}
      <Button ref={bouton} variant="subtle" size="xs" onClick={() => setOuverte(true)}>
        Enregistrer cette vue
      </Button>
      {suppression.error && (
        <Text c="red.9" size="sm" role="alert">
          {errorMessage(suppression.error, 'La vue n’a pas pu être supprimée.')}
        </Text>
      )}
      <Dialog opened={ouverte} onClose={fermer} title="Enregistrer cette vue" size="md">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            ajout.mutate(
              { nom, requete: requeteDeVue(params) },
              {
                onSuccess: () => {
                  setNom('');
                  fermer();
                  bouton.current?.focus();
                },
              },
            );
          }}
        >
          <Stack gap="md">
            <Text size="sm">La recherche, les filtres, l’onglet et le tri actuels, à retrouver en un clic. Vous seul la voyez.</Text>
            <TextInput
              label="Nom de la vue"
              value={nom}
              onChange={(e) => setNom(e.currentTarget.value)}
              maxLength={VUE_NOM_MAX}
              required
              data-autofocus
              error={ajout.error ? errorMessage(ajout.error, 'La vue n’a pas pu être enregistrée.') : undefined}
            />
            <Group justify="flex-end" gap="sm">
              <Button variant="default" onClick={fermer}>
                Annuler
              </Button>
              <Button type="submit" loading={ajout.isPending}>
                Enregistrer
              </Button>
            </Group>
          </Stack>
        </form>
      </Dialog>
    </Group>
  );
}

type CleOnglet = 'toutes' | 'suivies' | Onglet;

/**
 * The list's tabs, with their counts: all, « À traiter », « Suivies par moi », « Traitées », « Radiées /
 * refusées ». A group of radio buttons (one list, several views of it), stacked on a phone.
 */
function Onglets({ params, update }: { params: ListeQuery; update: (patch: Partial<ListeQuery>) => void }) {
  const { data } = useCompteurs();
  const etroit = useMediaQuery('(max-width: 48em)');
  const compte = (statuts: readonly Statut[]) => (data ? statuts.reduce((n, s) => n + data.parStatut[s], 0) : null);
  const valeur: CleOnglet = params.suivi === 'moi' ? 'suivies' : params.onglet || 'toutes';
  const onglets: { value: CleOnglet; label: string }[] = [
    { value: 'toutes', label: avecNombre('Toutes', data?.toutes) },
    { value: 'a-traiter', label: avecNombre(ONGLETS['a-traiter'].libelle, compte(ONGLETS['a-traiter'].statuts)) },
    { value: 'suivies', label: avecNombre('Suivies par moi', data?.suiviesParMoi) },
    { value: 'traitees', label: avecNombre(ONGLETS.traitees.libelle, compte(ONGLETS.traitees.statuts)) },
    { value: 'closes', label: avecNombre(ONGLETS.closes.libelle, compte(ONGLETS.closes.statuts)) },
  ];
  return (
    <div role="group" aria-label="Vues de la liste">
      <SegmentedControl
        data={onglets}
        value={valeur}
        onChange={(v) => {
          const cle = v as CleOnglet;
          update({ suivi: cle === 'suivies' ? 'moi' : '', onglet: cle === 'toutes' || cle === 'suivies' ? '' : cle, page: 1 });
        }}
        orientation={etroit ? 'vertical' : 'horizontal'}
        fullWidth={etroit}
      />
    </div>
  );
}

/** An empty page of the list says why: no request yet, or none matching the search and filters, with the way out. */
function AucuneDemande({ params, onEffacer }: { params: ListeQuery; onEffacer: () => void }) {
  const filtres = [
    params.status && `statut « ${params.status} »`,
    params.expiration && `validité « ${EXPIRATION_LABELS[params.expiration]} »`,
    params.suivi === 'moi' && 'suivies par moi',
    params.onglet && `onglet « ${ONGLETS[params.onglet].libelle} »`,
    params.correction && ETATS_CORRECTION[params.correction].toLowerCase(),
    params.etiquette && 'étiquette choisie',
  ].filter(Boolean);
  if (!params.q && filtres.length === 0) {
    return (
      <Alert role="status" color="gray" title="Aucune demande pour le moment">
        Les demandes enregistrées par les habitants apparaîtront ici dès leur envoi.
      </Alert>
    );
  }
  return (
    <Alert role="status" color="gray" title={params.q ? `Aucune demande ne correspond à « ${params.q} »` : 'Aucune demande ne correspond à ces filtres'}>
      <Stack gap="sm" align="flex-start">
        {filtres.length > 0 && <Text size="sm">Filtres appliqués : {filtres.join(', ')}.</Text>}
        {params.q && <Text size="sm">Vérifiez l’orthographe, ou cherchez une partie du nom, de l’e-mail, du téléphone ou du numéro unique.</Text>}
        <Button variant="default" onClick={onEffacer}>
          {params.q ? (filtres.length > 0 ? 'Effacer la recherche et les filtres' : 'Effacer la recherche') : 'Effacer les filtres'}
        </Button>
      </Stack>
    </Alert>
  );
}

/**
 * « Refuser la demande d’Hélène Martin (n° …) ? » / « Attribuer un logement à … ? »: nothing changes until the
 * manager confirms; a refusal can carry a reason shown to the applicant in the history of the request.
 */
function ConfirmationStatut({
  demande,
  onCancel,
  onConfirm,
}: {
  demande: { ligne: LigneDemande; statut: Statut } | null;
  onCancel: () => void;
  onConfirm: (motif: string | undefined) => void;
}) {
  const [motif, setMotif] = useState('');
  // The last request asked about stays in the title while the dialog closes; a new question starts with no reason.
  const [affichee, setAffichee] = useState(demande);
  if (demande && demande !== affichee) {
    setAffichee(demande);
    setMotif('');
  }
  const refus = affichee ? avecMotif(affichee.statut) : false;
  const radiation = affichee?.statut === 'Radiée';
  const qui = affichee ? `${affichee.ligne.prenom} ${affichee.ligne.nom}`.trim() : '';
  const numero = affichee?.ligne.numeroUnique ?? '';
  const titre = radiation
    ? `Radier la demande ${de(qui)} (n° ${numero}) ?`
    : refus
      ? `Refuser la demande ${de(qui)} (n° ${numero}) ?`
      : `Attribuer un logement à ${qui} (n° ${numero}) ?`;
  return (
    <Dialog opened={demande !== null} onClose={onCancel} title={titre} size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm(refus ? motif.trim() || undefined : undefined);
        }}
      >
        <Stack gap="md">
          <Text>
            {radiation
              ? "L’habitant recevra un e-mail lui annonçant la radiation de sa demande."
              : refus
                ? "L’habitant recevra un e-mail lui annonçant le refus de sa demande."
                : "L’habitant recevra un e-mail lui annonçant l’attribution d’un logement."}{' '}
            Vous pourrez encore annuler pendant 10 secondes.
          </Text>
          {refus && (
            <Textarea
              label="Motif communiqué à l’habitant"
              description={`Facultatif. Il apparaîtra dans l’historique de sa demande. ${motif.length} / ${MOTIF_MAX} caractères.`}
              value={motif}
              onChange={(e) => setMotif(e.currentTarget.value)}
              maxLength={MOTIF_MAX}
              autosize
              minRows={3}
              maxRows={8}
              data-autofocus
            />
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onCancel}>
              Annuler
            </Button>
            <Button type="submit" color={refus ? 'red.8' : 'teal.9'} data-autofocus={refus ? undefined : true}>
              {radiation ? 'Radier la demande' : refus ? 'Refuser la demande' : 'Attribuer le logement'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Dialog>
  );
}
