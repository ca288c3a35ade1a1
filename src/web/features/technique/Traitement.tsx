import { Alert, Box, Button, Card, Group, NativeSelect, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import { pluriel } from '../../../domain/pluriel.js';
import {
  CIBLE_MODERATION_LIBELLES,
  ETAT_SIGNALEMENT_LIBELLES,
  ETATS_SIGNALEMENT,
  estOuvert,
  MISE_A_JOUR_MAX,
  MOTIF_MODERATION_MAX,
  NOTE_SIGNALEMENT_MAX,
  type CibleModeration,
  type EntreeModeration,
  type EtatSignalement,
  type SignalementGestion,
} from '../../../domain/signalements.js';
import { Annonce } from '../../components/Annonce.js';
import { Dialog } from '../../components/Dialog.js';
import { errorMessage } from '../../lib/api.js';
import { useMiseAJourGestion, useModeration, useNoteGestion, useSignalementGestion } from './apiGestion.js';

/**
 * « Traitement » (managers and admins, on the report's page): a public update that may change the state (« doublon »
 * names the original), private notes, and moderation of the title, the description, a photo or an update, logged.
 */
export function Traitement({ numero }: { numero: string }) {
  const { data, error, isPending } = useSignalementGestion(numero);
  return (
    <Card withBorder padding="md" component="section" aria-labelledby="traitement-titre">
      <Stack gap="lg">
        <Title order={2} size="h3" id="traitement-titre">
          Traitement
        </Title>
        {isPending ? (
          <Text>Chargement du traitement…</Text>
        ) : error ? (
          <Alert color="red" role="alert">
            {errorMessage(error, 'Le traitement de ce signalement n’a pas pu être chargé.')}
          </Alert>
        ) : (
          <>
            <Text size="sm">
              Signalé par {data.nom || 'une personne sans nom'}
              {data.nomMasque ? ' (nom non affiché publiquement)' : ''} — {data.email}
              {data.doublons.length > 0 ? ` — doublons rattachés : ${data.doublons.map((n) => `n° ${n}`).join(', ')}` : ''}
              {data.viaOpen311 ? ` — reçu par l’API Open311 (clé « ${data.viaOpen311} »)` : ''}
            </Text>
            <MiseAJour s={data} />
            <Notes s={data} />
            <Moderer s={data} />
          </>
        )}
      </Stack>
    </Card>
  );
}

/** A success said once (role="status") and focused, or an error (role="alert"). */
function Retour({ succes, erreur, refSucces }: { succes: string | null; erreur: string | null; refSucces: React.RefObject<HTMLParagraphElement | null> }) {
  return (
    <>
      <Annonce ref={refSucces} size="sm">
        {succes}
      </Annonce>
      {erreur && (
        <Alert color="red" role="alert">
          {erreur}
        </Alert>
      )}
    </>
  );
}

function Sous({ id, titre, children }: { id: string; titre: string; children: ReactNode }) {
  return (
    <Stack gap="sm" component="section" aria-labelledby={id}>
      <Title order={3} size="h4" id={id}>
        {titre}
      </Title>
      {children}
    </Stack>
  );
}

function MiseAJour({ s }: { s: SignalementGestion }) {
  const mutation = useMiseAJourGestion(s.numero);
  const [etat, setEtat] = useState<EtatSignalement | ''>('');
  const [texte, setTexte] = useState('');
  const [doublonDe, setDoublonDe] = useState('');
  const [succes, setSucces] = useState<string | null>(null);
  const [erreur, setErreur] = useState<string | null>(null);
  const [aConfirmer, setAConfirmer] = useState(false);
  const refSucces = useRef<HTMLParagraphElement>(null);
  const envoyer = (e: FormEvent) => {
    e.preventDefault();
    setSucces(null);
    setErreur(null);
    if (etat === '' && !texte.trim()) {
      setErreur('Indiquez un nouvel état, un message public, ou les deux.');
      return;
    }
    // A state that closes the report (résolu, fermé, doublon…) is e-mailed to everyone who follows it: asked first.
    if (etat !== '' && !estOuvert(etat)) setAConfirmer(true);
    else publier();
  };
  const publier = () => {
    setAConfirmer(false);
    mutation.mutate(
      { ...(etat ? { etat } : {}), ...(texte.trim() ? { texte: texte.trim() } : {}), ...(etat === 'doublon' ? { doublonDe: doublonDe.trim() } : {}) },
      {
        onSuccess: (vue) => {
          setSucces(etat ? `État passé à « ${ETAT_SIGNALEMENT_LIBELLES[vue.etat]} » ; la mise à jour est publiée.` : 'La mise à jour est publiée.');
          setEtat('');
          setTexte('');
          setDoublonDe('');
          refSucces.current?.focus();
        },
        onError: (err) => setErreur(errorMessage(err, 'La mise à jour n’a pas été publiée.')),
      },
    );
  };
  return (
    <Sous id="traitement-etat" titre="Changer l’état, publier une mise à jour">
      <form onSubmit={envoyer} noValidate>
        <Stack gap="sm">
          <NativeSelect
            label="Nouvel état"
            description={`État actuel : ${ETAT_SIGNALEMENT_LIBELLES[s.etat]}.`}
            value={etat}
            onChange={(e) => setEtat(e.currentTarget.value as EtatSignalement | '')}
            data={[
              { value: '', label: 'Ne pas changer l’état' },
              ...ETATS_SIGNALEMENT.filter((x) => x !== s.etat).map((x) => ({ value: x, label: ETAT_SIGNALEMENT_LIBELLES[x] })),
            ]}
          />
          {etat === 'doublon' && (
            <TextInput
              label="Doublon de (numéro du signalement d’origine)"
              description="Par exemple 2026-00042. Les personnes qui suivent ce signalement suivront l’original."
              value={doublonDe}
              onChange={(e) => setDoublonDe(e.currentTarget.value)}
              required
            />
          )}
          <Textarea
            label="Message public"
            description={`Visible de tous et envoyé par e-mail aux personnes qui suivent le signalement. ${texte.length} / ${MISE_A_JOUR_MAX} caractères.`}
            value={texte}
            onChange={(e) => setTexte(e.currentTarget.value)}
            maxLength={MISE_A_JOUR_MAX}
            autosize
            minRows={3}
          />
          <Group>
            <Button type="submit" loading={mutation.isPending}>
              Publier la mise à jour
            </Button>
          </Group>
          <Retour succes={succes} erreur={erreur} refSucces={refSucces} />
        </Stack>
      </form>
      {etat !== '' && (
        <Dialog opened={aConfirmer} onClose={() => setAConfirmer(false)} title={`Passer le signalement à « ${ETAT_SIGNALEMENT_LIBELLES[etat]} » ?`} size="md">
          <Stack gap="md">
            <Text>
              Le signalement n° {s.numero} ne sera plus compté parmi les problèmes en cours.{' '}
              {s.suiveurs > 0
                ? `${pluriel(s.suiveurs, 'personne le suit', 'personnes le suivent')} : chacune recevra un e-mail${texte.trim() ? ' avec votre message' : ''}.`
                : 'Personne ne le suit : aucun e-mail ne sera envoyé.'}
            </Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => setAConfirmer(false)}>
                Ne pas changer
              </Button>
              <Button onClick={publier} data-autofocus>
                Passer à « {ETAT_SIGNALEMENT_LIBELLES[etat]} »
              </Button>
            </Group>
          </Stack>
        </Dialog>
      )}
    </Sous>
  );
}

function Notes({ s }: { s: SignalementGestion }) {
  const mutation = useNoteGestion(s.numero);
  const [texte, setTexte] = useState('');
  const [succes, setSucces] = useState<string | null>(null);
  const [erreur, setErreur] = useState<string | null>(null);
  const refSucces = useRef<HTMLParagraphElement>(null);
  const envoyer = (e: FormEvent) => {
    e.preventDefault();
    setSucces(null);
    setErreur(null);
    if (!texte.trim()) {
      setErreur('La note est vide.');
      return;
    }
    mutation.mutate(texte.trim(), {
      onSuccess: () => {
        setSucces('La note est ajoutée.');
        setTexte('');
        refSucces.current?.focus();
      },
      onError: (err) => setErreur(errorMessage(err, 'La note n’a pas été ajoutée.')),
    });
  };
  return (
    <Sous id="traitement-notes" titre="Notes privées">
      {s.notes.length === 0 ? (
        <Text size="sm">Aucune note pour le moment.</Text>
      ) : (
        <Box component="ul" m={0} pl="lg" aria-label="Notes privées">
          {s.notes.map((n) => (
            <li key={n.id}>
              <Text size="sm" fw={600}>
                {n.auteur}, {formatHorodatage(n.le)}
              </Text>
              <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {n.texte}
              </Text>
            </li>
          ))}
        </Box>
      )}
      <form onSubmit={envoyer} noValidate>
        <Stack gap="sm">
          <Textarea
            label="Nouvelle note privée"
            description={`Vue des seuls gestionnaires, jamais publiée ni envoyée. ${texte.length} / ${NOTE_SIGNALEMENT_MAX} caractères.`}
            value={texte}
            onChange={(e) => setTexte(e.currentTarget.value)}
            maxLength={NOTE_SIGNALEMENT_MAX}
            autosize
            minRows={2}
          />
          <Group>
            <Button type="submit" variant="default" loading={mutation.isPending}>
              Ajouter la note
            </Button>
          </Group>
          <Retour succes={succes} erreur={erreur} refSucces={refSucces} />
        </Stack>
      </form>
    </Sous>
  );
}

/** One thing moderation may hide or show again. */
interface Element {
  cle: string;
  cible: CibleModeration;
  id?: string;
  libelle: string;
  masque: boolean;
}

function elements(s: SignalementGestion): Element[] {
  return [
    { cle: 'titre', cible: 'titre', libelle: 'Le titre', masque: s.titreMasque },
    { cle: 'description', cible: 'description', libelle: 'La description', masque: s.descriptionMasquee },
    ...s.photos.map((p, i) => ({ cle: `photo-${p.id}`, cible: 'photo' as const, id: p.id, libelle: `La photo ${i + 1}`, masque: p.masquee })),
    ...s.miseAJours
      .filter((m) => m.texte)
      .map((m) => ({ cle: `maj-${m.id}`, cible: 'mise-a-jour' as const, id: m.id, libelle: `La mise à jour du ${formatHorodatage(m.le)}`, masque: m.masquee })),
  ];
}

function Moderer({ s }: { s: SignalementGestion }) {
  const mutation = useModeration(s.numero);
  const liste = elements(s);
  const [cle, setCle] = useState('titre');
  const [motif, setMotif] = useState('');
  const [succes, setSucces] = useState<string | null>(null);
  const [erreur, setErreur] = useState<string | null>(null);
  const refSucces = useRef<HTMLParagraphElement>(null);
  const choisi = liste.find((e) => e.cle === cle) ?? liste[0]!;
  const envoyer = (e: FormEvent) => {
    e.preventDefault();
    setSucces(null);
    setErreur(null);
    const masquer = !choisi.masque;
    mutation.mutate(
      { cible: choisi.cible, ...(choisi.id ? { id: choisi.id } : {}), masquer, ...(motif.trim() ? { motif: motif.trim() } : {}) },
      {
        onSuccess: () => {
          setSucces(`${masquer ? 'Masqué au public' : 'De nouveau visible du public'} : ${choisi.libelle.charAt(0).toLowerCase()}${choisi.libelle.slice(1)}.`);
          setMotif('');
          refSucces.current?.focus();
        },
        onError: (err) => setErreur(errorMessage(err, 'La modération n’a pas été enregistrée.')),
      },
    );
  };
  return (
    <Sous id="traitement-moderation" titre="Modération">
      <form onSubmit={envoyer} noValidate>
        <Stack gap="sm">
          <NativeSelect
            label="Élément"
            value={choisi.cle}
            onChange={(e) => setCle(e.currentTarget.value)}
            data={liste.map((x) => ({ value: x.cle, label: `${x.libelle} (${x.masque ? 'masqué' : 'visible'})` }))}
          />
          <TextInput
            label="Motif"
            description={`Gardé dans le journal de modération, vu des seuls gestionnaires (${MOTIF_MODERATION_MAX} caractères au plus).`}
            value={motif}
            onChange={(e) => setMotif(e.currentTarget.value)}
            maxLength={MOTIF_MODERATION_MAX}
          />
          <Group>
            <Button type="submit" variant="default" color={choisi.masque ? undefined : 'red.8'} loading={mutation.isPending}>
              {choisi.masque ? 'Afficher de nouveau' : 'Masquer au public'}
            </Button>
          </Group>
          <Retour succes={succes} erreur={erreur} refSucces={refSucces} />
        </Stack>
      </form>
      <PhotosMasquees s={s} />
      <Title order={4} size="h5" id="journal-moderation">
        Journal de modération
      </Title>
      {s.moderation.length === 0 ? (
        <Text size="sm">Rien n’a été masqué ni affiché de nouveau.</Text>
      ) : (
        <Box component="ul" m={0} pl="lg" aria-labelledby="journal-moderation">
          {s.moderation.map((m) => (
            <li key={m.id}>
              <Text size="sm">{ligneJournal(m)}</Text>
            </li>
          ))}
        </Box>
      )}
    </Sous>
  );
}

function ligneJournal(m: EntreeModeration): string {
  const quoi = CIBLE_MODERATION_LIBELLES[m.cible];
  return `${formatHorodatage(m.le)} — ${m.par} a ${m.action === 'masquer' ? 'masqué' : 'affiché de nouveau'} ${quoi}${m.motif ? ` : « ${m.motif} »` : ''}.`;
}

/** The photos hidden from the public, still shown to managers (from their own route) so they can judge them again. */
function PhotosMasquees({ s }: { s: SignalementGestion }) {
  const masquees = s.photos.map((p, i) => ({ ...p, rang: i + 1 })).filter((p) => p.masquee);
  if (masquees.length === 0) return null;
  return (
    <>
      <Title order={4} size="h5" id="photos-masquees">
        Photos masquées au public
      </Title>
      <Box component="ul" m={0} p={0} style={{ listStyle: 'none', display: 'flex', flexWrap: 'wrap', gap: 'var(--mantine-spacing-sm)' }} aria-labelledby="photos-masquees">
        {masquees.map((p) => (
          <li key={p.id} style={{ width: 'min(100%, 12rem)' }}>
            <a href={p.url} target="_blank" rel="noreferrer" title={`Photo ${p.rang} en grand (nouvel onglet)`}>
              <img
                src={p.url}
                alt={`Vue ${p.rang} du problème, masquée au public`}
                width={p.largeur}
                height={p.hauteur}
                loading="lazy"
                style={{ width: '100%', height: 'auto', borderRadius: 'var(--mantine-radius-sm)', display: 'block', opacity: 0.85 }}
              />
            </a>
          </li>
        ))}
      </Box>
    </>
  );
}
