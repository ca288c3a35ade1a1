import { Alert, Anchor, Button, Card, Divider, Loader, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { formatHorodatage, formatJour, formatJourCivil } from '../../../domain/dates.js';
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import type { LogementComplet } from '../../../domain/logement.js';
import { isValidNumeroUnique, normaliseNumeroUnique, NUMERO_UNIQUE_MESSAGE } from '../../../domain/normalise.js';
import {
  BAILLEURS,
  labelOf,
  LOGEMENTS_ACTUELS,
  QUARTIER_OPTIONS,
  QUARTIERS_SOUHAITES,
  SEXES,
  SITUATIONS_FAMILIALES,
  TYPES_DE_LOGEMENT,
} from '../../../domain/options.js';
import { paths } from '../../app/paths.js';
import { ApiError } from '../../lib/api.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useHistorique, useStatutEnDirect } from '../gestion/api.js';
import { useDemande } from './api.js';
import { getCle, takeCleFromHash } from './cles.js';
import { UploadBlocks } from './Documents.js';
import { ProgressBar } from './ProgressBar.js';

export const NOT_FOUND_MESSAGE = "Il n'existe pas de demande de logement pour ce numéro unique";
export const FETCH_ERROR_MESSAGE = 'Erreur : impossible de récupérer les données de la demande.';

const euros = new Intl.NumberFormat('fr-FR', { style: 'currency', currency: 'EUR', maximumFractionDigits: 2 });

export function DemandePage() {
  const raw = useParams().numeroUnique ?? '';
  const numero = normaliseNumeroUnique(raw);
  usePageTitle(`Demande n° ${numero}`);
  const valid = isValidNumeroUnique(numero);

  return (
    <Stack maw={960} gap="lg">
      <Anchor component={Link} to={paths.logement} w="fit-content">
        ← Retour
      </Anchor>
      <Title order={1} style={{ overflowWrap: 'anywhere' }}>
        Demande de logement n° {numero}
      </Title>
      {valid ? (
        <DemandeContent numero={numero} />
      ) : (
        <Alert color="red" role="alert">
          {NUMERO_UNIQUE_MESSAGE}
        </Alert>
      )}
    </Stack>
  );
}

function DemandeContent({ numero }: { numero: string }) {
  // The key in the address (#cle=…) is kept on the device before the first fetch, then hidden.
  useState(() => takeCleFromHash(numero));
  const { data, error, isPending, refetch, isFetching } = useDemande(numero);
  // A status changed by the town hall shows here without reloading.
  useStatutEnDirect(numero);

  if (isPending) {
    return (
      <Stack align="flex-start" gap="xs" role="status">
        <Loader size="sm" aria-hidden="true" />
        <Text>Chargement…</Text>
      </Stack>
    );
  }
  if (error) {
    if (error instanceof ApiError && error.status === 404) {
      return (
        <Stack gap="sm">
          <Alert color="orange" role="alert">
            {NOT_FOUND_MESSAGE}
          </Alert>
          <Text>
            Vérifiez le numéro, ou{' '}
            <Anchor component={Link} to={paths.nouvelleDemande}>
              déposez une nouvelle demande
            </Anchor>
            .
          </Text>
        </Stack>
      );
    }
    return (
      <Stack gap="sm" align="flex-start">
        <Alert color="red" role="alert" title={FETCH_ERROR_MESSAGE}>
          {error.message}
        </Alert>
        <Button onClick={() => void refetch()} loading={isFetching}>
          Réessayer
        </Button>
      </Stack>
    );
  }

  return (
    <Stack gap="lg">
      <Text>Enregistrée le {formatJour(data.dateDEnregistrement)}.</Text>
      <Card withBorder padding="lg">
        <ProgressBar statut={data.statutDeLaDemande} />
      </Card>
      <Historique numero={numero} />
      {data.acces === 'complet' ? (
        <>
          <Details demande={data} />
          <Divider />
          {Object.values(data.documents).some((list) => list.length > 0) && (
            <Button component="a" href={`/app/api/logement/${encodeURIComponent(numero)}/documents.zip`} variant="outline" w="fit-content" download>
              Tout télécharger (zip)
            </Button>
          )}
          <UploadBlocks demande={data} />
        </>
      ) : (
        <Alert color="blue" variant="light" title="Accès au détail de la demande">
          {getCle(numero) ? (
            <Text>
              Le lien privé enregistré sur cet appareil ne correspond pas à cette demande. Ouvrez le lien privé reçu par e-mail lors de
              l'enregistrement pour voir le détail et envoyer vos documents.
            </Text>
          ) : (
            <Text>
              Seul le statut de la demande est visible ici. Pour voir son détail et envoyer vos documents, ouvrez le lien privé reçu lors de
              l'enregistrement (il vous a aussi été envoyé par e-mail), ou connectez-vous au compte avec lequel la demande a été déposée.
            </Text>
          )}
        </Alert>
      )}
    </Stack>
  );
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  const empty = children === null || children === undefined || children === '';
  return (
    <div>
      <Text component="dt" size="sm" c="gray.7">
        {label}
      </Text>
      <Text component="dd" m={0} fw={500} style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
        {empty ? 'Non renseigné' : children}
      </Text>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section>
      <Title order={2} size="h4" mb="xs">
        {title}
      </Title>
      <SimpleGrid component="dl" cols={{ base: 1, sm: 2 }} spacing="sm" verticalSpacing="sm" m={0}>
        {children}
      </SimpleGrid>
    </section>
  );
}

const money = (n: number | null) => (n === null ? '' : euros.format(n));

function Details({ demande: d }: { demande: LogementComplet }) {
  const adresse = [d.adresse, d.adresseComplement, [d.codePostal, d.ville].filter(Boolean).join(' ')].filter(Boolean).join('\n');
  const souhaites = d.quartierSouhaite.map((q) => labelOf(QUARTIERS_SOUHAITES, q)).join(', ');
  return (
    <Stack gap="lg">
      <Section title="Identité et coordonnées">
        <Field label="Prénom et nom">{[d.prenom, d.nom].filter(Boolean).join(' ')}</Field>
        <Field label="Sexe">{labelOf(SEXES, d.sexe)}</Field>
        <Field label="Date de naissance">{d.dateDeNaissance ? formatJourCivil(d.dateDeNaissance) : ''}</Field>
        <Field label="Adresse e-mail">{d.email}</Field>
        <Field label="Téléphone">{d.numeroDeTelephone}</Field>
        <Field label="Adresse">{adresse}</Field>
      </Section>
      <Section title="Situation">
        <Field label="Situation familiale">{labelOf(SITUATIONS_FAMILIALES, d.situationFamiliale)}</Field>
        <Field label="Nombre d'enfants">{String(d.nombreDEnfants)}</Field>
        <Field label="Logement actuel">{labelOf(LOGEMENTS_ACTUELS, d.logementActuel)}</Field>
        <Field label="Type de logement actuel">{labelOf(TYPES_DE_LOGEMENT, d.typeDeLogementActuel)}</Field>
        <Field label="Quartier actuel">{labelOf(QUARTIER_OPTIONS, d.quartierActuel)}</Field>
        <Field label="Bailleur actuel">{labelOf(BAILLEURS, d.bailleurActuel)}</Field>
      </Section>
      <Section title="Logement souhaité">
        <Field label="Type de logement souhaité">{labelOf(TYPES_DE_LOGEMENT, d.typeDeLogementSouhaite)}</Field>
        <Field label="Quartiers souhaités">{souhaites}</Field>
      </Section>
      <Section title="Ressources">
        <Field label="Salaire brut mensuel">{money(d.salaireBrut)}</Field>
        <Field label="Revenu fiscal N-1">{money(d.salaireAvisImpot1)}</Field>
        <Field label="Revenu fiscal N-2">{money(d.salaireAvisImpot2)}</Field>
      </Section>
      <Section title="Motivations et commentaires">
        <Field label="Motivations">{d.motivations}</Field>
        <Field label="Commentaires">{d.commentaires}</Field>
      </Section>
    </Stack>
  );
}

/** The dated history of the status (managers also see who changed it). */
function Historique({ numero }: { numero: string }) {
  const { data } = useHistorique(numero);
  if (!data || data.length === 0) return null;
  return (
    <section aria-labelledby="historique-titre">
      <Title order={2} size="h4" id="historique-titre" mb="sm">
        Historique
      </Title>
      <Timeline active={data.length - 1} bulletSize={14} lineWidth={2}>
        {data.map((e, i) => (
          <Timeline.Item key={`${e.date}-${i}`} title={e.de ? e.vers : `Demande enregistrée : ${e.vers}`}>
            <Text size="sm" c="dimmed">
              {formatHorodatage(e.date)}
              {e.par ? ` — ${e.par}` : ''}
            </Text>
          </Timeline.Item>
        ))}
      </Timeline>
    </section>
  );
}
