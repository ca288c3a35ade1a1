import { Alert, Button, Card, Loader, Stack, Text, Title } from '@mantine/core';
import { formatHorodatage } from '../../../domain/dates.js';
import { NOTE_MAX } from '../../../domain/instruction.js';
import { errorMessage } from '../../lib/api.js';
import { EtiquettesDemande } from './Etiquettes.js';
import { FormulaireTexte } from './FormulaireTexte.js';
import { useAjoutNote, useChangementSuivi, useJournal, useNotes, useSuivi } from './apiInstruction.js';

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
  if (error) return <Alert color="red">{error.message}</Alert>;
  if (!data) return <Loader size="sm" role="progressbar" aria-label="Chargement du suivi" />;
  return (
    <Stack gap="xs" align="flex-start">
      <Text>
        <strong>Suivie par : </strong>
        {data.suiviePar ? (data.moi ? `vous (${data.suiviePar.nom})` : data.suiviePar.nom) : 'personne pour le moment'}
      </Text>
      <Button variant={data.moi ? 'default' : 'filled'} loading={changement.isPending} onClick={() => changement.mutate(!data.moi)}>
        {data.moi ? 'Ne plus suivre' : data.suiviePar ? 'Suivre à sa place' : 'Suivre cette demande'}
      </Button>
      <div role="status">{changement.error && <Alert color="red">{errorMessage(changement.error, 'Le suivi n’a pas pu être changé.')}</Alert>}</div>
    </Stack>
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
                {e.detail ? ` : ${e.detail}` : ''}
              </Text>
            </li>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
