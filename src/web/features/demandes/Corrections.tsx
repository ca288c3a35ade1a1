import { Alert, Badge, Button, Card, Checkbox, Group, List, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { MOTIF_AVIS_MAX, MOTIF_CORRECTION_MAX } from '../../../domain/corrections.js';
import { estCloturee } from '../../../domain/cycleDeVie.js';
import { formatHorodatage } from '../../../domain/dates.js';
import type { DemandeComplete } from '../../../domain/demande.js';
import { CATEGORIES, ETATS_BLOC, etatDuBloc, type DocumentInfo, type EtatBloc } from '../../../domain/documents.js';
import { Dialog } from '../../components/Dialog.js';
import { FormulaireDeDialogue } from '../../components/FormulaireDeDialogue.js';
import { errorMessage } from '../../lib/api.js';
import { useClotureCorrection, useCorrectionsFaites, useDemandeCorrection } from './apiCorrections.js';

/**
 * Requests for corrections and the checklist of documents (docs/produit.md « Corrections et vérification des
 * documents »): what the applicant reads and answers, what managers ask and close.
 */

/** Orange dark enough for white text in a small badge: 6.6:1 (Mantine's darkest orange, #d9480f, reaches 4.3:1). */
export const ORANGE_A_FAIRE = '#a33b00';
/**
 * Green for « Accepter », a colour of its own: a light button given a theme colour with a shade (« teal.9 ») takes that
 * shade as its background and writes its label in the same teal (Mantine 9), which left « Accepter » an empty green
 * block. Given this way, the light button is a 10 % tint with the label in this green, darker than Mantine's darkest
 * teal (#087f5b reaches 4.4:1 on its own tint): 6.0:1.
 */
export const VERT_ACCEPTE = '#066649';

const aRemplacer = (demande: DemandeComplete) =>
  CATEGORIES.flatMap((c) => demande.documents[c.value].filter((d) => d.avis === 'a-remplacer').map((d) => ({ ...d, bloc: c.label })));

/** The applicant's side: the reason and the documents to replace, then « J'ai fait les corrections ». */
export function CorrectionDemandeur({ demande }: { demande: DemandeComplete }) {
  const faites = useCorrectionsFaites(demande.numeroUnique);
  const correction = demande.correction;
  // The button pressed goes away with its card: the focus goes to what replaces it, which a screen reader then reads
  // (a status region inserted with its text is not always announced).
  const annonce = useRef<HTMLDivElement>(null);
  const envoyees = faites.isSuccess && correction?.etat === 'faite';
  useEffect(() => {
    if (envoyees) annonce.current?.focus();
  }, [envoyees]);
  // A closed request (Attribué, Refusé, Radiée) waits for no correction: the server refuses the answer.
  if (!correction || estCloturee(demande.statutDeLaDemande)) return null;
  if (correction.etat === 'faite') {
    return (
      <Alert ref={annonce} tabIndex={-1} color="teal" variant="light" title="Corrections envoyées" role="status">
        Vous avez indiqué le {formatHorodatage(correction.faiteLe!)} avoir fait les corrections demandées. La mairie annexe va les vérifier ; vous
        recevrez un e-mail si autre chose manque.
      </Alert>
    );
  }
  const docs = aRemplacer(demande);
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="correction-titre" style={{ borderColor: ORANGE_A_FAIRE, borderWidth: 2 }}>
      <Stack gap="sm">
        <Group gap="sm">
          <Badge color={ORANGE_A_FAIRE} variant="filled">
            Action attendue
          </Badge>
          <Title order={2} size="h3" id="correction-titre">
            La mairie annexe vous demande des corrections
          </Title>
        </Group>
        <Text size="sm" c="gray.7">
          Demandées le {formatHorodatage(correction.demandeeLe)}.
        </Text>
        <Text style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>{correction.motif}</Text>
        {docs.length > 0 && (
          <>
            <Text fw={600}>Documents à remplacer :</Text>
            <List spacing={4}>
              {docs.map((d) => (
                <List.Item key={d.id}>
                  <Text span style={{ overflowWrap: 'anywhere' }}>
                    {d.bloc} — « {d.name} » : {d.motifAvis}
                  </Text>
                </List.Item>
              ))}
            </List>
          </>
        )}
        <Text>
          Corrigez les informations de votre demande avec « Modifier ma demande », envoyez les nouveaux documents dans « Vos documents » plus bas
          {docs.length > 0 ? ' et supprimez ceux à remplacer' : ''}, puis dites-le à la mairie annexe :
        </Text>
        <Button w="fit-content" loading={faites.isPending} onClick={() => faites.mutate()}>
          J’ai fait les corrections
        </Button>
        {faites.error && (
          <Alert color="red" role="alert">
            {errorMessage(faites.error, 'Votre réponse n’a pas pu être envoyée. Réessayez dans un instant.')}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}

/** The managers' side: ask for corrections, see the answer, close it. */
export function CorrectionGestion({ demande }: { demande: DemandeComplete }) {
  const [ouvert, setOuvert] = useState(false);
  const cloture = useClotureCorrection(demande.numeroUnique);
  const correction = demande.correction;
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="correction-gestion-titre">
      <Stack gap="sm" align="flex-start">
        <Title order={2} size="h3" id="correction-gestion-titre">
          Corrections
        </Title>
        {!correction && <Text>Aucune correction demandée en cours.</Text>}
        {correction && (
          <>
            <Badge color={correction.etat === 'faite' ? 'teal.9' : ORANGE_A_FAIRE} variant="filled">
              {correction.etat === 'faite' ? `Corrections faites le ${formatHorodatage(correction.faiteLe!)}` : 'En attente de la personne'}
            </Badge>
            <Text size="sm" c="gray.7">
              Demandées le {formatHorodatage(correction.demandeeLe)} :
            </Text>
            <Text style={{ whiteSpace: 'pre-line', overflowWrap: 'anywhere' }}>{correction.motif}</Text>
          </>
        )}
        <Group gap="sm">
          {correction?.etat !== 'demandee' && (
            <Button onClick={() => setOuvert(true)}>{correction ? 'Demander d’autres corrections' : 'Demander des corrections'}</Button>
          )}
          {correction && (
            <Button variant="default" loading={cloture.isPending} onClick={() => cloture.mutate()}>
              {correction.etat === 'faite' ? 'Corrections vérifiées : clôturer' : 'Clôturer sans attendre'}
            </Button>
          )}
        </Group>
        {cloture.error && (
          <Alert color="red" role="alert">
            {errorMessage(cloture.error, 'La demande de correction n’a pas pu être clôturée.')}
          </Alert>
        )}
      </Stack>
      <DemandeDeCorrection demande={demande} opened={ouvert} onClose={() => setOuvert(false)} />
    </Card>
  );
}

/** The dialog where a manager writes the reason and picks the documents to replace, each with its reason. */
function DemandeDeCorrection({ demande, opened, onClose }: { demande: DemandeComplete; opened: boolean; onClose: () => void }) {
  const demandeCorrection = useDemandeCorrection(demande.numeroUnique);
  const [motif, setMotif] = useState('');
  const [choisis, setChoisis] = useState<Record<string, string>>({});
  const [tente, setTente] = useState(false);
  const documents = CATEGORIES.flatMap((c) => demande.documents[c.value].map((d) => ({ ...d, bloc: c.label })));
  const fermer = () => {
    if (demandeCorrection.isPending) return;
    demandeCorrection.reset();
    setTente(false);
    onClose();
  };
  const manque = motif.trim() === '' || Object.values(choisis).some((m) => m.trim() === '');
  const envoyer = () => {
    setTente(true);
    if (manque) return;
    demandeCorrection.mutate(
      { motif, documents: Object.entries(choisis).map(([id, m]) => ({ id, motif: m })) },
      {
        onSuccess: () => {
          setMotif('');
          setChoisis({});
          setTente(false);
          onClose();
        },
      },
    );
  };
  return (
    <Dialog opened={opened} onClose={fermer} title="Demander des corrections" size="lg">
      <FormulaireDeDialogue
        onSubmit={envoyer}
        gap="md"
        erreur={demandeCorrection.error && errorMessage(demandeCorrection.error, 'La demande de correction n’a pas pu être envoyée.')}
        enCours={demandeCorrection.isPending}
        onAnnuler={fermer}
        envoyer="Envoyer la demande"
      >
        <Text size="sm">La personne reçoit un e-mail avec ce texte et la liste des documents à remplacer ; elle les voit aussi sur sa demande.</Text>
        <Textarea
          label="Ce qu’il faut corriger"
          required
          value={motif}
          onChange={(e) => setMotif(e.currentTarget.value)}
          maxLength={MOTIF_CORRECTION_MAX}
          autosize
          minRows={3}
          maxRows={10}
          error={tente && motif.trim() === '' ? 'Expliquez ce qu’il faut corriger.' : undefined}
          data-autofocus
        />
        {documents.length > 0 && (
          <Stack gap="xs" component="fieldset" style={{ border: 0, padding: 0, margin: 0 }}>
            <Text component="legend" fw={600} mb="xs">
              Documents à remplacer
            </Text>
            {documents.map((d) => (
              <DocumentARemplacer
                key={d.id}
                document={d}
                bloc={d.bloc}
                motif={choisis[d.id]}
                tente={tente}
                onChange={(m) =>
                  setChoisis((c) => {
                    const suite = { ...c };
                    if (m === undefined) delete suite[d.id];
                    else suite[d.id] = m;
                    return suite;
                  })
                }
              />
            ))}
          </Stack>
        )}
      </FormulaireDeDialogue>
    </Dialog>
  );
}

function DocumentARemplacer({
  document: d,
  bloc,
  motif,
  tente,
  onChange,
}: {
  document: DocumentInfo;
  bloc: string;
  motif: string | undefined;
  tente: boolean;
  onChange: (motif: string | undefined) => void;
}) {
  return (
    <Stack gap={4}>
      <Checkbox
        label={`${bloc} — ${d.name}`}
        checked={motif !== undefined}
        onChange={(e) => onChange(e.currentTarget.checked ? (d.motifAvis ?? '') : undefined)}
        styles={{ label: { overflowWrap: 'anywhere' } }}
      />
      {motif !== undefined && (
        <TextInput
          label={`Pourquoi remplacer « ${d.name} » ?`}
          required
          value={motif}
          maxLength={MOTIF_AVIS_MAX}
          onChange={(e) => onChange(e.currentTarget.value)}
          error={tente && motif.trim() === '' ? 'Indiquez pourquoi ce document est à remplacer.' : undefined}
          ml="xl"
        />
      )}
    </Stack>
  );
}

const COULEURS_ETAT: Record<EtatBloc, string> = {
  manquant: 'red.9',
  facultatif: 'gray.7',
  'a-remplacer': ORANGE_A_FAIRE,
  'a-verifier': 'blue.9',
  accepte: 'teal.9',
};

/** The five blocks of documents and the state of each: what is missing, to replace, to check, accepted. */
export function ChecklistDocuments({ demande }: { demande: DemandeComplete }) {
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="checklist-titre">
      <Title order={2} size="h3" id="checklist-titre" mb="sm">
        Pièces du dossier
      </Title>
      <Stack gap="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {CATEGORIES.map((c) => {
          const etat = etatDuBloc(c.value, demande.documents[c.value]);
          return (
            <Group component="li" key={c.value} justify="space-between" wrap="nowrap" gap="sm" data-bloc={c.value} data-etat={etat}>
              <Text>{c.label}</Text>
              <Badge color={COULEURS_ETAT[etat]} variant={etat === 'facultatif' ? 'outline' : 'filled'} style={{ flexShrink: 0 }}>
                {ETATS_BLOC[etat]}
              </Badge>
            </Group>
          );
        })}
      </Stack>
    </Card>
  );
}
