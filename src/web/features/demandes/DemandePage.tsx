import { Alert, Anchor, Button, Card, Divider, Group, Loader, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { formatHorodatage, formatJour } from '../../../domain/dates.js';
import { CHAMPS_DEMANDE, peutEtreModifiee, recoitDesDocuments, SECTIONS_DEMANDE, valeurLue, type DemandeComplete } from '../../../domain/demande.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { isValidNumeroUnique, normaliseNumeroUnique, NUMERO_UNIQUE_MESSAGE } from '../../../domain/normalise.js';
import { ApiError } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { useStatutEnDirect } from '../../lib/statutEnDirect.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { useMoi } from '../../lib/session.js';
import { isGestionnaire } from '../../../domain/compte.js';
import { useDemande, useHistorique } from './api.js';
import { useTelechargement } from '../../lib/telechargement.js';
import { telechargerDocumentsZip } from './apiEffacement.js';
import { takeCleFromHash, useNumerosEnregistres } from '../../lib/clesDAcces.js';
import { OublierCetAppareil, SeSouvenirDeCetAppareil } from './CetAppareil.js';
import { ChecklistDocuments, CorrectionDemandeur, CorrectionGestion } from './Corrections.js';
import { CycleDeVie } from './CycleDeVie.js';
import { UploadBlocks } from './Documents.js';
import { Instruction } from './Instruction.js';
import { Messages } from './Messages.js';
import { ModificationDemande } from './ModificationDemande.js';
import { EffacementGestionnaire } from './EffacementGestionnaire.js';
import { RenvoiLien } from './RenvoiLien.js';
import { RetraitDemande, RetraitFait } from './RetraitDemande.js';
import { ProgressBar } from './ProgressBar.js';

const FETCH_ERROR_MESSAGE = 'Erreur : impossible de récupérer les données de la demande.';

export function DemandePage() {
  const raw = useParams().numeroUnique ?? '';
  const numero = normaliseNumeroUnique(raw);
  usePageTitle(`Demande n° ${numero}`);
  const valid = isValidNumeroUnique(numero);

  return (
    <Stack maw={960} gap="lg">
      <Anchor component={Link} to={paths.logement} w="fit-content">
        ← Logement social
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
  const surCetAppareil = useNumerosEnregistres();
  const cleIci = surCetAppareil.includes(numero);
  const { data, error, isPending, refetch, isFetching } = useDemande(numero);
  // A status changed by the town hall shows here without reloading.
  useStatutEnDirect(numero);
  // Withdrawn by its requester or erased by a manager, on this page: said instead of the request.
  const [fin, setFin] = useState<'retiree' | 'effacee' | null>(null);
  const { data: moi } = useMoi();
  const gestionnaire = moi ? isGestionnaire(moi.userType) : false;
  // The reason given with the current status (a refusal's), shown with it: the last step that led to it.
  const { data: historique } = useHistorique(numero);

  if (fin) {
    return fin === 'retiree' ? (
      <RetraitFait titre="Votre demande a été retirée">
        <Text>
          Ses informations et vos documents ont été effacés, et son lien privé a été oublié par cet appareil. Un e-mail de confirmation vous a été
          envoyé. Vous pouvez déposer une nouvelle demande à tout moment, avec le même numéro unique.
        </Text>
      </RetraitFait>
    ) : (
      <RetraitFait titre="La demande a été effacée">
        <Text>Ses informations et ses documents ont été supprimés ; l’historique garde l’effacement, à votre nom. La personne en est informée par e-mail.</Text>
      </RetraitFait>
    );
  }

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
            {MESSAGES.demandeIntrouvable}
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
    // A reload that failed (a weak signal) while the page shows the request: said above it, the page kept as it is —
    // a form being filled, files chosen, a message half-written stay.
    if (!data) {
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
  }

  return (
    <Stack gap="lg">
      {error && (
        <Alert color="orange" role="status" title="La demande n’a pas pu être mise à jour">
          <Group gap="sm">
            <Text size="sm">{error.message} Ce qui est affiché date du dernier chargement.</Text>
            <Button size="compact-sm" variant="default" onClick={() => void refetch()} loading={isFetching}>
              Réessayer
            </Button>
          </Group>
        </Alert>
      )}
      <Text>Enregistrée le {formatJour(data.dateDEnregistrement)}.</Text>
      {surCetAppareil.length > 0 && <CetAppareil numero={numero} cleIci={cleIci} />}
      {/* What the town hall waits for comes first: the applicant's one action on this page. */}
      {data.acces === 'complet' && (!gestionnaire || cleIci) && <CorrectionDemandeur demande={data} />}
      <Card withBorder padding="lg">
        <ProgressBar statut={data.statutDeLaDemande} motif={historique?.findLast((e) => e.vers === data.statutDeLaDemande)?.motif} />
      </Card>
      <Historique numero={numero} />
      {data.acces === 'complet' ? (
        <>
          {/* Managers come to act: their handling first, before the request's details. */}
          {gestionnaire && <CorrectionGestion demande={data} />}
          <Messages numero={numero} cote={gestionnaire && !cleIci ? 'mairie' : 'demandeur'} />
          {gestionnaire && <Instruction numero={numero} />}
          <CycleDeVie numero={numero} />
          <VosInformations demande={data} demandeur={!gestionnaire || cleIci} />
          <Divider />
          {/* A closed request waits for no document: no « Manquant » to fill. */}
          {recoitDesDocuments(data.statutDeLaDemande) && <ChecklistDocuments demande={data} />}
          {Object.values(data.documents).some((list) => list.length > 0) && <ToutTelecharger numero={numero} />}
          <UploadBlocks demande={data} supprimable={!gestionnaire || cleIci} revue={gestionnaire} />
          {(!gestionnaire || cleIci) && <RetraitDemande numero={numero} onRetiree={() => setFin('retiree')} />}
          {gestionnaire && <EffacementGestionnaire numero={numero} onEffacee={() => setFin('effacee')} />}
        </>
      ) : (
        <>
          <Alert role="note" color="blue" variant="light" title="Accès au détail de la demande">
            {cleIci ? (
              <Text>
                Le lien privé enregistré sur cet appareil ne correspond pas à cette demande. Ouvrez le lien privé reçu par e-mail lors de
                l’enregistrement pour voir le détail et envoyer vos documents.
              </Text>
            ) : (
              <Text>
                Seul le statut de la demande est visible ici. Pour voir son détail et envoyer vos documents, ouvrez le lien privé reçu lors de
                l’enregistrement (il vous a aussi été envoyé par e-mail), ou connectez-vous au compte avec lequel la demande a été déposée.
              </Text>
            )}
          </Alert>
          <RenvoiLien numero={numero} />
        </>
      )}
    </Stack>
  );
}

/** What this browser keeps: this request's key (remembered or not), and « Oublier cet appareil ». */
function CetAppareil({ numero, cleIci }: { numero: string; cleIci: boolean }) {
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="cet-appareil-titre">
      <Title order={2} size="h5" id="cet-appareil-titre" mb="xs">
        Votre lien privé sur cet appareil
      </Title>
      <Group justify="space-between" align="flex-end" gap="md">
        {cleIci ? (
          <div style={{ flex: '1 1 20rem' }}>
            <SeSouvenirDeCetAppareil numeroUnique={numero} />
          </div>
        ) : (
          <Text style={{ flex: '1 1 20rem' }}>Ce navigateur garde le lien privé d’autres demandes.</Text>
        )}
        <OublierCetAppareil />
      </Group>
    </Card>
  );
}

/**
 * The request's fields; for its applicant, while the request may still be changed (peutEtreModifiee),
 * « Modifier ma demande » opens the form in their place. The form stays open whatever arrives live
 * meanwhile: what was typed is never dropped (a refusal is said on saving).
 */
function VosInformations({ demande, demandeur }: { demande: DemandeComplete; demandeur: boolean }) {
  const [enCours, setEnCours] = useState(false);
  const [enregistre, setEnregistre] = useState(false);
  const boutonRef = useRef<HTMLButtonElement>(null);
  const annonceRef = useRef<HTMLDivElement>(null);
  const modifiable = demandeur && peutEtreModifiee(demande.statutDeLaDemande, demande.correction?.etat);
  // Once the form has closed, focus goes back where the person was: the saved notice, or the button that opened it.
  const focusApres = useRef<'annonce' | 'bouton' | null>(null);
  useEffect(() => {
    if (enCours || !focusApres.current) return;
    (focusApres.current === 'annonce' ? annonceRef : boutonRef).current?.focus();
    focusApres.current = null;
  }, [enCours]);
  const fermer = (ok: boolean) => {
    focusApres.current = ok ? 'annonce' : 'bouton';
    setEnCours(false);
    setEnregistre(ok);
  };
  if (enCours) return <ModificationDemande demande={demande} onFermer={fermer} />;
  return (
    <Stack gap="md">
      {enregistre && (
        <Alert ref={annonceRef} tabIndex={-1} role="status" color="teal" variant="light" title="Vos modifications sont enregistrées">
          La mairie annexe les voit dès maintenant.
        </Alert>
      )}
      {modifiable && (
        <Group justify="space-between" gap="sm">
          <Text style={{ flex: '1 1 18rem' }}>
            {demande.correction?.etat === 'demandee'
              ? 'Une information de votre demande est à corriger ? Vous pouvez la modifier jusqu’à ce que vous indiquiez avoir fait les corrections.'
              : 'Vous pouvez modifier votre demande tant que la mairie annexe n’a pas commencé à la traiter.'}
          </Text>
          <Button
            ref={boutonRef}
            variant="outline"
            onClick={() => {
              setEnregistre(false);
              setEnCours(true);
            }}
          >
            Modifier ma demande
          </Button>
        </Group>
      )}
      <Details demande={demande} />
    </Stack>
  );
}

/** The request's fields, section by section, as the field table of the domain reads them. */
export function Details({ demande }: { demande: DemandeComplete }) {
  return (
    <Stack gap="lg">
      {SECTIONS_DEMANDE.map((section) => (
        <section key={section.titre}>
          <Title order={2} size="h4" mb="xs">
            {section.titre}
          </Title>
          <SimpleGrid component="dl" cols={{ base: 1, sm: 2 }} spacing="sm" verticalSpacing="sm" m={0}>
            {section.champs.map((champ) => (
              <div key={champ}>
                <Text component="dt" size="sm" c="gray.7">
                  {CHAMPS_DEMANDE[champ].label}
                </Text>
                <Text component="dd" m={0} fw={500} style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
                  {valeurLue(champ, demande) || 'Non renseigné'}
                </Text>
              </div>
            ))}
          </SimpleGrid>
        </section>
      ))}
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
      {/* A list of the changes, in order (RGAA 9.3), drawn as Mantine's timeline (its bullets and line are decoration). */}
      <Timeline component="ol" active={data.length - 1} bulletSize={14} lineWidth={2} m={0} style={{ listStyle: 'none' }}>
        {data.map((e, i) => (
          <Timeline.Item component="li" key={`${e.date}-${i}`} title={e.de ? e.vers : `Demande enregistrée : ${e.vers}`}>
            <Text size="sm" c="dimmed">
              {formatHorodatage(e.date)}
              {e.par ? ` — ${e.par}` : ''}
            </Text>
            {e.motif && (
              <Text size="sm" mt={4} style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-line' }}>
                Motif : {e.motif}
              </Text>
            )}
          </Timeline.Item>
        ))}
      </Timeline>
    </section>
  );
}

/** « Tout télécharger (zip) »: fetched with the request's key, which a plain link could not send. */
function ToutTelecharger({ numero }: { numero: string }) {
  const telechargement = useTelechargement();
  return (
    <Stack gap="xs">
      <Button variant="outline" w="fit-content" loading={telechargement.pending} onClick={() => void telechargement.lancer(() => telechargerDocumentsZip(numero))}>
        Tout télécharger (zip)
      </Button>
      {telechargement.error && (
        <Alert color="red" role="alert">
          {telechargement.error}
        </Alert>
      )}
    </Stack>
  );
}
