import { Alert, Anchor, Button, Card, Code, CopyButton, Group, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import { fieldMessages } from '../../../domain/erreurs.js';
import { LIBELLE_CLE_MAX, nouvelleCleSchema, OPEN311_CHEMIN, type CleCree, type CleOpen311 } from '../../../domain/open311.js';
import { AccesReserve, ConnexionRequise } from '../../components/AccesReserve.js';
import { Annonce } from '../../components/Annonce.js';
import { Dialog } from '../../components/Dialog.js';
import { errorMessage } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useClesOpen311, useCreerCleOpen311, useRevoquerCleOpen311 } from './apiOpen311.js';

const TITRE = 'Clés d’API Open311';
const DECOUVERTE = `${OPEN311_CHEMIN}/discovery.json`;

/** `/admin/open311`: admins issue the API keys other tools post reports with (Open311), and revoke them. */
export function ClesOpen311Page() {
  usePageTitle(TITRE);
  const { data: moi, isPending } = useMoi();
  if (isPending) return <Loader role="progressbar" aria-label="Chargement" />;
  if (!moi) return <ConnexionRequise />;
  if (moi.userType !== 'admin') return <AccesReserve>Les clés d’API Open311 sont délivrées par les administrateurs.</AccesReserve>;
  return <ClesOpen311 />;
}

function ClesOpen311() {
  const { data, error, isPending } = useClesOpen311();
  const [annonce, setAnnonce] = useState<string | null>(null);
  const refAnnonce = useRef<HTMLParagraphElement>(null);
  const [aRevoquer, setARevoquer] = useState<CleOpen311 | null>(null);
  const annoncer = (texte: string) => {
    setAnnonce(texte);
    queueMicrotask(() => refAnnonce.current?.focus());
  };
  return (
    <Stack maw={960} gap="lg">
      <Title order={1}>{TITRE}</Title>
      <Stack gap="xs">
        <Text>
          Open311 est la norme par laquelle les autres outils de la mairie (logiciel des services techniques, application de la Métropole…) lisent les
          signalements techniques du quartier et en envoient de nouveaux, à l’adresse <Code>{OPEN311_CHEMIN}/</Code>. Leur point d’entrée est le{' '}
          <Anchor href={DECOUVERTE}>document de découverte Open311</Anchor>.
        </Text>
        <Text>
          Lire est ouvert à tous ; envoyer un signalement demande une clé d’API. Délivrez une clé par outil : chaque signalement reçu garde le nom de sa
          clé. Une clé n’est affichée qu’une fois, à sa création : Quartier Vivant n’en garde qu’une empreinte et ne peut pas la retrouver. Une clé
          révoquée est refusée aussitôt.
        </Text>
      </Stack>
      <Annonce ref={refAnnonce}>{annonce}</Annonce>
      <NouvelleCle />
      <Stack gap="sm" component="section" aria-labelledby="cles-delivrees">
        <Title order={2} size="h3" id="cles-delivrees">
          Clés délivrées
        </Title>
        {isPending ? (
          <Loader role="progressbar" aria-label="Chargement des clés" />
        ) : error ? (
          <Alert color="red" role="alert">
            {errorMessage(error, 'Les clés n’ont pas pu être chargées.')}
          </Alert>
        ) : data.length === 0 ? (
          <Text>Aucune clé n’a encore été délivrée.</Text>
        ) : (
          <ListeCles cles={data} onRevoquer={setARevoquer} />
        )}
      </Stack>
      {aRevoquer && (
        <Revocation
          cle={aRevoquer}
          onClose={() => setARevoquer(null)}
          onFaite={() => {
            setARevoquer(null);
            annoncer(`La clé « ${aRevoquer.libelle} » est révoquée : les outils qui l’utilisent sont refusés.`);
          }}
        />
      )}
    </Stack>
  );
}

function NouvelleCle() {
  const creation = useCreerCleOpen311();
  const [libelle, setLibelle] = useState('');
  const [erreur, setErreur] = useState<string | null>(null);
  const [creee, setCreee] = useState<CleCree | null>(null);
  const refChamp = useRef<HTMLInputElement>(null);
  const envoyer = (e: FormEvent) => {
    e.preventDefault();
    creation.reset();
    const lu = nouvelleCleSchema.safeParse({ libelle });
    if (!lu.success) {
      setErreur(fieldMessages(lu.error).libelle ?? lu.error.issues[0]!.message);
      refChamp.current?.focus();
      return;
    }
    setErreur(null);
    setCreee(null);
    creation.mutate(lu.data, {
      onSuccess: (cree) => {
        setCreee(cree);
        setLibelle('');
      },
    });
  };
  return (
    <>
      <Card withBorder padding="md" component="form" aria-labelledby="nouvelle-cle" onSubmit={envoyer} noValidate>
        <Title order={2} size="h3" id="nouvelle-cle" mb="sm">
          Nouvelle clé
        </Title>
        <Stack gap="sm">
          <TextInput
            ref={refChamp}
            label="Qui utilisera la clé ?"
            description={`L’outil ou le service, par exemple « Logiciel de la voirie » (${LIBELLE_CLE_MAX} caractères au plus).`}
            required
            maxLength={LIBELLE_CLE_MAX}
            value={libelle}
            error={erreur}
            onChange={(e) => {
              setLibelle(e.currentTarget.value);
              if (erreur) setErreur(null);
            }}
          />
          {creation.error && (
            <Alert color="red" role="alert">
              {errorMessage(creation.error, 'La clé n’a pas été créée.')}
            </Alert>
          )}
          <Group>
            <Button type="submit" loading={creation.isPending}>
              Créer la clé
            </Button>
          </Group>
        </Stack>
      </Card>
      {creee && <CleAffichee creee={creee} onFermer={() => setCreee(null)} />}
    </>
  );
}

/** The key just issued, shown this once: its heading takes the focus (screen readers read it first). */
function CleAffichee({ creee, onFermer }: { creee: CleCree; onFermer: () => void }) {
  const refTitre = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    refTitre.current?.focus();
  }, [creee]);
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="cle-creee" bg="green.0" style={{ borderColor: 'var(--mantine-color-green-8)', borderWidth: 2 }}>
      <Title order={2} size="h3" id="cle-creee" ref={refTitre} tabIndex={-1} mb="xs">
        Clé créée pour « {creee.cle.libelle} »
      </Title>
      <Text fw={700} mb="sm">
        Copiez-la maintenant : elle ne sera plus affichée.
      </Text>
      <Text size="sm" mb="sm">
        Donnez-la à l’outil qui enverra les signalements : il l’envoie dans le champ <Code>api_key</Code> de chaque signalement.
      </Text>
      <TextInput label="Clé d’API" value={creee.apiKey} readOnly onFocus={(e) => e.currentTarget.select()} styles={{ input: { fontFamily: 'monospace' } }} />
      <Group mt="sm">
        <CopyButton value={creee.apiKey}>
          {({ copied, copy }) => (
            <Button variant="outline" onClick={copy} aria-live="polite">
              {copied ? 'Clé copiée' : 'Copier la clé'}
            </Button>
          )}
        </CopyButton>
        <Button variant="default" onClick={onFermer}>
          J’ai copié la clé
        </Button>
      </Group>
    </Card>
  );
}

const etat = (c: CleOpen311) => (c.revoqueeLe ? `Révoquée le ${formatHorodatage(c.revoqueeLe)}` : 'Active');
const utilisation = (c: CleOpen311) => (c.utiliseeLe ? formatHorodatage(c.utiliseeLe) : 'jamais');
const auteur = (c: CleOpen311) => c.creePar ?? 'un compte supprimé';

function BoutonRevoquer({ c, onRevoquer }: { c: CleOpen311; onRevoquer: (c: CleOpen311) => void }) {
  return (
    <Button size="xs" variant="outline" color="red.9" aria-label={`Révoquer la clé « ${c.libelle} »`} onClick={() => onRevoquer(c)}>
      Révoquer
    </Button>
  );
}

/** A table from 48em up; below, one card per key (nothing scrolls sideways on a phone). */
function ListeCles({ cles, onRevoquer }: { cles: CleOpen311[]; onRevoquer: (c: CleOpen311) => void }) {
  const etroit = useMediaQuery('(max-width: 47.99em)', undefined, { getInitialValueInEffect: false });
  const legende = 'Clés d’API Open311, les plus récentes d’abord';
  if (etroit) {
    return (
      <Stack component="ul" gap="sm" aria-label={legende} p={0} m={0} style={{ listStyle: 'none' }}>
        {cles.map((c) => (
          <Card key={c.id} component="li" withBorder padding="sm">
            <Text fw={700} style={{ overflowWrap: 'anywhere' }}>
              {c.libelle}
            </Text>
            <Text size="sm">
              Créée le {formatHorodatage(c.creeLe)} par {auteur(c)}
            </Text>
            <Text size="sm">Dernière utilisation : {utilisation(c)}</Text>
            <Text size="sm" fw={700} c={c.revoqueeLe ? 'red.9' : 'teal.9'}>
              {etat(c)}
            </Text>
            {!c.revoqueeLe && (
              <Group mt="xs">
                <BoutonRevoquer c={c} onRevoquer={onRevoquer} />
              </Group>
            )}
          </Card>
        ))}
      </Stack>
    );
  }
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped verticalSpacing="xs">
        <Table.Caption>{legende}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Nom</Table.Th>
            <Table.Th scope="col">Créée le</Table.Th>
            <Table.Th scope="col">Par</Table.Th>
            <Table.Th scope="col">Dernière utilisation</Table.Th>
            <Table.Th scope="col">État</Table.Th>
            <Table.Th scope="col">Action</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {cles.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td style={{ overflowWrap: 'anywhere' }}>{c.libelle}</Table.Td>
              <Table.Td>{formatHorodatage(c.creeLe)}</Table.Td>
              <Table.Td>{auteur(c)}</Table.Td>
              <Table.Td>{utilisation(c)}</Table.Td>
              <Table.Td c={c.revoqueeLe ? 'red.9' : 'teal.9'} fw={700}>
                {etat(c)}
              </Table.Td>
              <Table.Td>{c.revoqueeLe ? '—' : <BoutonRevoquer c={c} onRevoquer={onRevoquer} />}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function Revocation({ cle, onClose, onFaite }: { cle: CleOpen311; onClose: () => void; onFaite: () => void }) {
  const revocation = useRevoquerCleOpen311();
  return (
    <Dialog opened onClose={onClose} title={`Révoquer la clé « ${cle.libelle} » ?`} size="md">
      <Stack gap="md">
        <Text>
          Les outils qui l’utilisent seront refusés aussitôt : ils ne pourront plus envoyer de signalement. Cela ne peut pas être annulé ; il faudra
          délivrer une nouvelle clé.
        </Text>
        <Text size="sm">Les signalements déjà reçus avec cette clé restent, et gardent son nom.</Text>
        {revocation.error && (
          <Alert color="red" role="alert">
            {errorMessage(revocation.error, 'La clé n’a pas été révoquée.')}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-autofocus>
            Annuler
          </Button>
          <Button color="red.8" loading={revocation.isPending} onClick={() => revocation.mutate(cle.id, { onSuccess: onFaite })}>
            Révoquer la clé
          </Button>
        </Group>
      </Stack>
    </Dialog>
  );
}
