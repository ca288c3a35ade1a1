import { Alert, Button, Card, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { IconPaperclip } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import { MESSAGE_MAX, PIECES_PAR_MESSAGE_MAX, type Message } from '../../../domain/messages.js';
import { errorMessage } from '../../lib/api.js';
import { useEnvoiMessage, useMarquerLus, useMessages } from './apiMessages.js';
import { formatTaille } from '../../../domain/documents.js';
import { DocumentPreview } from './Documents.js';
import { FormulaireTexte } from './FormulaireTexte.js';

/**
 * The request's thread between the town hall and the applicant (docs/produit.md « Messages »). `cote`: who reads
 * — the applicant sees « Vous » and « La mairie annexe », managers the colleague's name and « Le demandeur ».
 */
export function Messages({ numero, cote }: { numero: string; cote: 'mairie' | 'demandeur' }) {
  const { data, error, isPending } = useMessages(numero);
  const envoi = useEnvoiMessage(numero);
  const { mutate: marquerLus } = useMarquerLus(numero);
  // Shown: the other side's unread messages become read (once per new one; a failure waits for the next fetch).
  const dernierNonLu = data?.findLast((m) => m.de !== cote && !m.lu)?.id;
  useEffect(() => {
    if (dernierNonLu) marquerLus();
  }, [dernierNonLu, marquerLus]);
  const [apercu, setApercu] = useState<Message['pieces'][number] | null>(null);
  const qui = (m: Message) => (m.de === cote ? (cote === 'mairie' ? (m.auteur ?? 'La mairie annexe') : 'Vous') : m.de === 'mairie' ? (m.auteur ?? 'La mairie annexe') : 'Le demandeur');
  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="messages-titre">
      <Stack gap="sm">
        <Title order={2} size="h3" id="messages-titre">
          Messages
        </Title>
        <Text size="sm" c="gray.7">
          {cote === 'demandeur'
            ? 'Écrivez à la mairie annexe au sujet de cette demande ; sa réponse s’affiche ici et vous est envoyée par e-mail.'
            : 'Échange avec le demandeur : il reçoit chaque message par e-mail et répond depuis sa demande.'}
        </Text>
        {isPending && <Loader size="sm" role="progressbar" aria-label="Chargement des messages" />}
        {error && <Alert color="red">{errorMessage(error, 'Les messages n’ont pas pu être chargés.')}</Alert>}
        {data && data.length === 0 && <Text c="dimmed">Aucun message pour le moment.</Text>}
        {data && data.length > 0 && (
          <Stack gap="xs" component="ol" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
            {data.map((m) => (
              <li key={m.id}>
                <Card padding="sm" radius="md" bg={m.de === cote ? 'blue.0' : 'gray.0'} ml={m.de === cote ? 'xl' : 0} mr={m.de === cote ? 0 : 'xl'}>
                  <Text size="sm" c="gray.8" fw={600}>
                    {qui(m)}, le {formatHorodatage(m.le)}
                    {m.de === cote && m.lu ? ' · lu' : ''}
                  </Text>
                  <Text style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>{m.texte}</Text>
                  {m.pieces.length > 0 && (
                    <Group gap="xs" mt={4}>
                      {m.pieces.map((p) => (
                        <Button
                          key={p.id}
                          size="compact-sm"
                          variant="default"
                          leftSection={<IconPaperclip size={14} aria-hidden="true" />}
                          onClick={() => setApercu(p)}
                          // A long name is cut with « … » at 375 px: the whole name shows on hover and is the button's name.
                          title={p.name}
                          style={{ maxWidth: '100%' }}
                        >
                          <span style={{ overflow: 'hidden', textOverflow: 'ellipsis', minWidth: 0 }}>
                            {p.name} ({formatTaille(p.size)})
                          </span>
                        </Button>
                      ))}
                    </Group>
                  )}
                </Card>
              </li>
            ))}
          </Stack>
        )}
        <FormulaireTexte
          envoi={envoi}
          label="Votre message"
          max={MESSAGE_MAX}
          bouton="Envoyer le message"
          echec="Le message n’a pas pu être envoyé."
          piecesMax={PIECES_PAR_MESSAGE_MAX}
        />
        <DocumentPreview numeroUnique={numero} document={apercu} onClose={() => setApercu(null)} />
      </Stack>
    </Card>
  );
}
