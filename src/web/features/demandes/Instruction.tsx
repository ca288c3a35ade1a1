import { Alert, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import { NOTE_MAX, type Gestionnaire } from '../../../domain/instruction.js';
import { Dialog } from '../../components/Dialog.js';
import { FormulaireDeDialogue } from '../../components/FormulaireDeDialogue.js';
import { errorMessage } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';
import { EtiquettesDemande } from './Etiquettes.js';
import { FormulaireTexte } from './FormulaireTexte.js';
import { ChoixGestionnaire } from './ChoixGestionnaire.js';
import { useAjoutNote, useChangementSuivi, useConfier, useGestionnaires, useJournal, useNotes, useSuivi } from './apiInstruction.js';

/**
 * The managers' handling of a request, on its page (docs/produit.md « Instruction »): who follows it, the
 * private notes, and what managers did. Shown to managers only; the server refuses it to anyone else.
 */
export function Instruction({ numero }: { numero: string }) {
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="instruction-titre">
      <Stack gap="lg">
        <div>
          <Title order={2} id="instruction-titre">
            Instruction
          </Title>
          <Text size="sm" c="dimmed">
            Visible des seuls gestionnaires : l’habitant ne voit ni le suivi, ni les étiquettes, ni les notes, ni le journal.
          </Text>
        </div>
        <Suivi numero={numero} />
        <EtiquettesDemande numero={numero} />
        <Notes numero={numero} />
        <Journal numero={numero} />
      </Stack>
    </Card>
  );
}

function Suivi({ numero }: { numero: string }) {
  const { data, error } = useSuivi(numero);
  const changement = useChangementSuivi(numero);
  const [confierOuvert, setConfierOuvert] = useState(false);
  /** What « Confier à… » did, said once the dialog is closed (the focus back on its button). */
  const [confiee, setConfiee] = useState<string | null>(null);
  if (error) return <Alert color="red">{error.message}</Alert>;
  if (!data) return <Loader size="sm" role="progressbar" aria-label="Chargement du suivi" />;
  return (
    <Stack gap="xs" align="flex-start">
      <Text>
        <strong>Suivie par : </strong>
        {data.suiviePar ? (data.moi ? `vous (${data.suiviePar.nom})` : data.suiviePar.nom) : 'personne pour le moment'}
      </Text>
      <Group gap="sm">
        <Button
          variant={data.moi ? 'default' : 'filled'}
          loading={changement.isPending}
          onClick={() => {
            setConfiee(null);
            changement.mutate(!data.moi);
          }}
        >
          {data.moi ? 'Ne plus suivre' : data.suiviePar ? 'Suivre à sa place' : 'Suivre cette demande'}
        </Button>
        <Button variant="default" onClick={() => setConfierOuvert(true)}>
          Confier à…
        </Button>
      </Group>
      <div role="status">
        {changement.error && <Alert color="red">{errorMessage(changement.error, 'Le suivi n’a pas pu être changé.')}</Alert>}
        {confiee && <Text size="sm">{confiee}</Text>}
      </div>
      <ConfierA
        numero={numero}
        suivieParId={data.suiviePar?.id ?? null}
        opened={confierOuvert}
        onClose={() => setConfierOuvert(false)}
        onConfiee={(collegue, moi) => setConfiee(moi ? 'Vous suivez désormais cette demande.' : `Demande confiée à ${collegue.nom} ; un e-mail l’en informe.`)}
      />
    </Stack>
  );
}

/**
 * « Confier à… »: the choice of a colleague among the managers and admins (the one who follows the request left
 * out), who then follows it and is told by e-mail. The focus goes to the choice, then back to the button.
 */
function ConfierA({
  numero,
  suivieParId,
  opened,
  onClose,
  onConfiee,
}: {
  numero: string;
  suivieParId: string | null;
  opened: boolean;
  onClose: () => void;
  onConfiee: (collegue: Gestionnaire, moi: boolean) => void;
}) {
  const gestionnaires = useGestionnaires(opened);
  const { data: moi } = useMoi();
  const confier = useConfier(numero);
  const [choisi, setChoisi] = useState('');
  const [tente, setTente] = useState(false);
  const fermer = () => {
    if (confier.isPending) return;
    confier.reset();
    setChoisi('');
    setTente(false);
    onClose();
  };
  const collegues = (gestionnaires.data ?? []).filter((g) => g.id !== suivieParId);
  const envoyer = () => {
    setTente(true);
    const collegue = collegues.find((g) => g.id === choisi);
    if (!collegue) return;
    confier.mutate(collegue.id, {
      onSuccess: () => {
        onConfiee(collegue, collegue.id === moi?.uid);
        setChoisi('');
        setTente(false);
        onClose();
      },
    });
  };
  return (
    <Dialog opened={opened} onClose={fermer} title="Confier la demande à un collègue" size="md" fermeAuClicDehors={false}>
      <FormulaireDeDialogue
        onSubmit={envoyer}
        erreur={confier.error && errorMessage(confier.error, 'La demande n’a pas pu être confiée.')}
        enCours={confier.isPending}
        onAnnuler={fermer}
        envoyer="Confier"
      >
        <Text size="sm">Le gestionnaire choisi suivra la demande, à la place de celui qui la suit peut-être, et en sera informé par e-mail.</Text>
        <ChoixGestionnaire
          gestionnaires={gestionnaires}
          parmi={collegues}
          value={choisi}
          onChange={setChoisi}
          erreur={tente && !choisi ? 'Choisissez le gestionnaire à qui confier la demande.' : undefined}
        />
      </FormulaireDeDialogue>
    </Dialog>
  );
}

function Notes({ numero }: { numero: string }) {
  const { data, error } = useNotes(numero);
  const ajout = useAjoutNote(numero);
  return (
    <Stack gap="sm" component="section" aria-labelledby="notes-titre">
      <Title order={3} id="notes-titre">
        Notes internes
      </Title>
      {error && <Alert color="red">{error.message}</Alert>}
      {data && data.length === 0 && <Text c="dimmed">Aucune note pour le moment.</Text>}
      {data && data.length > 0 && (
        <Stack gap="xs" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {data.map((note) => (
            <li key={note.id}>
              <Text size="sm" c="dimmed">
                {note.auteur}, le {formatHorodatage(note.le)}
              </Text>
              <Text style={{ whiteSpace: 'pre-wrap' }}>{note.texte}</Text>
            </li>
          ))}
        </Stack>
      )}
      <FormulaireTexte
        envoi={ajout}
        label="Nouvelle note"
        aide="Pour les gestionnaires seulement."
        max={NOTE_MAX}
        bouton="Ajouter la note"
        echec="La note n’a pas pu être enregistrée."
      />
    </Stack>
  );
}

function Journal({ numero }: { numero: string }) {
  const { data, error } = useJournal(numero);
  return (
    <Stack gap="xs" component="section" aria-labelledby="journal-titre">
      <Title order={3} id="journal-titre">
        Journal des actions
      </Title>
      {error && <Alert color="red">{error.message}</Alert>}
      {data && data.length === 0 && <Text c="dimmed">Aucune action de gestionnaire pour le moment.</Text>}
      {data && data.length > 0 && (
        <Stack gap={4} component="ol" style={{ paddingLeft: '1.25rem', margin: 0 }}>
          {[...data].reverse().map((e, i) => (
            <li key={`${e.le}-${i}`}>
              <Text size="sm">
                {formatHorodatage(e.le)} — {e.par} {e.libelle}
                {/* « a confié la demande à Samir Haddad »: the colleague ends the sentence. */}
                {e.detail ? (e.action === 'confie' ? ` ${e.detail}` : ` : ${e.detail}`) : ''}
              </Text>
            </li>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
