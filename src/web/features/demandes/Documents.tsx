import { Alert, Anchor, Badge, Button, Card, CloseButton, FileButton, Group, List, Loader, Progress, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import type { DemandeComplete } from '../../../domain/demande.js';
import { peutSupprimerDocument } from '../../../domain/effacement.js';
import { MOTIF_AVIS_MAX } from '../../../domain/corrections.js';
import {
  AVIS,
  CATEGORIES,
  EXTENSIONS_ACCEPTEES,
  MAX_FICHIERS_PAR_ENVOI,
  TYPES_ACCEPTES,
  typeFromExtension,
  UPLOAD_MAX_MO_DEFAUT,
  type Categorie,
  type DocumentInfo,
} from '../../../domain/documents.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { Dialog } from '../../components/Dialog.js';
import { errorMessage } from '../../lib/api.js';
import { useParametres } from '../../lib/parametres.js';
import { fetchDocumentBlob, useEnvoiDocuments } from './api.js';
import { useAvisDocument } from './apiCorrections.js';
import { ORANGE_A_FAIRE, PiedDeDialogue } from './Corrections.js';
import { useSuppressionDocument } from './apiEffacement.js';

const ACCEPT = [...EXTENSIONS_ACCEPTEES, ...Object.keys(TYPES_ACCEPTES)].join(',');
const DEFAULT_MAX_BYTES = UPLOAD_MAX_MO_DEFAUT * 1024 * 1024;

const fmt = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${fmt.format(Math.max(1, bytes / 1024))} Ko`;
  return `${fmt.format(bytes / (1024 * 1024))} Mo`;
}

type Pending = Record<Categorie, File[]>;
const emptyPending = (): Pending => ({ livret: [], identity: [], tax: [], salary: [], other: [] });

/** Why a chosen file cannot be sent, checked before sending (the server checks again). */
function fileProblem(file: File, maxBytes: number): string | null {
  const byName = typeFromExtension(file.name);
  if (!byName || (file.type !== '' && file.type !== byName)) {
    return `« ${file.name} » n'est pas accepté : seuls les fichiers PDF, JPEG et PNG le sont.`;
  }
  if (file.size === 0) return `« ${file.name} » est vide.`;
  if (file.size > maxBytes) return `« ${file.name} » dépasse la taille maximale de ${formatSize(maxBytes)}.`;
  return null;
}

/**
 * `supprimable`: the viewer is the requester (key or owner), who may delete documents not yet sent onward (and
 * those to replace). `revue`: the viewer is a manager, who marks each document accepted or to replace.
 */
export function UploadBlocks({ demande, supprimable = false, revue = false }: { demande: DemandeComplete; supprimable?: boolean; revue?: boolean }) {
  const { data: parametres } = useParametres();
  const maxBytes = parametres?.uploadMaxBytes ?? DEFAULT_MAX_BYTES;
  const maxFiles = parametres?.maxFichiersParEnvoi ?? MAX_FICHIERS_PAR_ENVOI;
  const [pending, setPending] = useState<Pending>(emptyPending);
  const [blockErrors, setBlockErrors] = useState<Partial<Record<Categorie, string>>>({});
  const [progress, setProgress] = useState<number | null>(null);
  const [sendError, setSendError] = useState<string | null>(null);
  const [sent, setSent] = useState(false);
  const envoi = useEnvoiDocuments(demande.numeroUnique, setProgress);
  const total = Object.values(pending).reduce((n, files) => n + files.length, 0);

  function add(categorie: Categorie, files: File[]) {
    const accepted: File[] = [];
    const problems: string[] = [];
    for (const file of files) {
      const problem = fileProblem(file, maxBytes);
      if (problem) problems.push(problem);
      else accepted.push(file);
    }
    setSent(false);
    setPending((p) => ({ ...p, [categorie]: [...p[categorie], ...accepted] }));
    setBlockErrors((e) => ({ ...e, [categorie]: problems.length > 0 ? problems.join(' ') : undefined }));
  }

  function remove(categorie: Categorie, index: number) {
    setPending((p) => ({ ...p, [categorie]: p[categorie].filter((_, i) => i !== index) }));
  }

  async function send() {
    setSendError(null);
    if (total > maxFiles) {
      setSendError(`Vous pouvez envoyer au plus ${maxFiles} fichiers à la fois : retirez-en ${total - maxFiles}.`);
      return;
    }
    const files = CATEGORIES.flatMap((c) => pending[c.value].map((file) => ({ categorie: c.value, file })));
    setProgress(0);
    try {
      await envoi.mutateAsync(files);
      setPending(emptyPending());
      setBlockErrors({});
      setSent(true);
    } catch (error) {
      setSendError(errorMessage(error, "L'envoi a échoué. Réessayez dans un instant."));
    } finally {
      setProgress(null);
    }
  }

  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        Vos documents
      </Title>
      <Text>
        Formats acceptés : PDF, JPEG et PNG, {formatSize(maxBytes)} au plus par fichier. Une photo nette prise avec votre téléphone convient.
      </Text>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {CATEGORIES.map(({ value: categorie, label }) => (
          <Card key={categorie} withBorder padding="md" component="section" aria-labelledby={`bloc-${categorie}`}>
            <Title order={3} size="h4" id={`bloc-${categorie}`} mb="xs" tabIndex={-1}>
              {label}
            </Title>
            <DocumentList
              numeroUnique={demande.numeroUnique}
              categorie={categorie}
              documents={demande.documents[categorie]}
              peutSupprimer={(doc) => supprimable && peutSupprimerDocument(demande.statutDeLaDemande, doc.avis)}
              revue={revue}
            />
            {pending[categorie].length > 0 && (
              <>
                <Text size="sm" fw={600} mt="sm">
                  À envoyer :
                </Text>
                <List spacing={4} size="sm" listStyleType="none" ml={0} pl={0}>
                  {pending[categorie].map((file, i) => (
                    <List.Item key={`${file.name}-${i}`}>
                      <Group gap="xs" wrap="nowrap">
                        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                          {file.name} ({formatSize(file.size)})
                        </Text>
                        <CloseButton size="sm" aria-label={`Retirer ${file.name}`} onClick={() => remove(categorie, i)} disabled={progress !== null} />
                      </Group>
                    </List.Item>
                  ))}
                </List>
              </>
            )}
            {blockErrors[categorie] && (
              <Text c="red.8" size="sm" mt="xs" role="alert">
                {blockErrors[categorie]}
              </Text>
            )}
            <FileButton onChange={(files) => add(categorie, files)} accept={ACCEPT} multiple>
              {(props) => (
                <Button {...props} variant="light" mt="sm" w="fit-content" disabled={progress !== null} aria-describedby={`bloc-${categorie}`}>
                  Ajouter des fichiers
                </Button>
              )}
            </FileButton>
          </Card>
        ))}
      </SimpleGrid>

      {sendError && (
        <Alert color="red" title="Les documents n'ont pas été envoyés" role="alert">
          {sendError}
        </Alert>
      )}
      <div role="status" aria-live="polite">
        {sent && (
          <Alert color="green" variant="light">
            {MESSAGES.televerse}
          </Alert>
        )}
      </div>
      {progress !== null && (
        <div>
          <Text size="sm" mb={4}>
            Envoi en cours : {Math.round(progress * 100)} %
          </Text>
          <Progress value={progress * 100} aria-label="Progression de l'envoi" animated />
        </div>
      )}
      <Button onClick={send} disabled={total === 0} loading={progress !== null} size="md" w="fit-content">
        {total <= 1 ? 'Envoyer le fichier' : `Envoyer les ${total} fichiers`}
      </Button>
    </Stack>
  );
}

function DocumentList({
  numeroUnique,
  categorie,
  documents,
  peutSupprimer,
  revue,
}: {
  numeroUnique: string;
  categorie: Categorie;
  documents: DocumentInfo[];
  peutSupprimer: (doc: DocumentInfo) => boolean;
  revue: boolean;
}) {
  const [preview, setPreview] = useState<DocumentInfo | null>(null);
  const [aSupprimer, setASupprimer] = useState<DocumentInfo | null>(null);
  const [aRemplacer, setARemplacer] = useState<DocumentInfo | null>(null);
  const avis = useAvisDocument(numeroUnique);
  const [supprime, setSupprime] = useState<string | null>(null);
  const annonce = (
    <div role="status" aria-live="polite">
      {supprime && (
        <Text size="sm" c="teal.9">
          « {supprime} » a été supprimé.
        </Text>
      )}
    </div>
  );
  const onSupprime = (doc: DocumentInfo) => {
    setASupprimer(null);
    setSupprime(doc.name);
    // The focus goes to the block's title (the button it was on is gone), once the dialog has handed it back.
    window.setTimeout(() => document.getElementById(`bloc-${categorie}`)?.focus(), 50);
  };
  if (documents.length === 0) {
    return (
      <>
        {annonce}
        <Text size="sm" c="gray.7">
          Aucun document envoyé.
        </Text>
      </>
    );
  }
  return (
    <>
      {annonce}
      <List spacing={6} size="sm" listStyleType="none" ml={0} pl={0} aria-label="Documents envoyés">
        {documents.map((doc) => (
          <List.Item key={doc.id}>
            <Group gap="xs" justify="space-between" wrap="nowrap">
              <div style={{ minWidth: 0 }}>
                <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                  {doc.name}
                </Text>
                <Text size="xs" c="gray.7">
                  {doc.type === 'application/pdf' ? 'PDF' : 'Image'} · {formatSize(doc.size)} · envoyé le {formatHorodatage(doc.uploadedAt)}
                </Text>
                {doc.avis && (
                  <Badge color={doc.avis === 'accepte' ? 'teal.9' : ORANGE_A_FAIRE} variant="filled" size="sm" mt={4}>
                    {AVIS[doc.avis]}
                  </Badge>
                )}
                {doc.avis === 'a-remplacer' && doc.motifAvis && (
                  <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                    Motif : {doc.motifAvis}
                  </Text>
                )}
                {revue && (
                  <Group gap={4} mt={4}>
                    {doc.avis !== 'accepte' && (
                      <Button
                        size="compact-sm"
                        variant="light"
                        color="teal.9"
                        loading={avis.isPending && avis.variables?.documentId === doc.id}
                        onClick={() => avis.mutate({ documentId: doc.id, avis: { avis: 'accepte' } })}
                        aria-label={`Accepter ${doc.name}`}
                      >
                        Accepter
                      </Button>
                    )}
                    {doc.avis !== 'a-remplacer' && (
                      <Button size="compact-sm" variant="light" color={ORANGE_A_FAIRE} onClick={() => setARemplacer(doc)} aria-label={`Marquer ${doc.name} à remplacer`}>
                        À remplacer
                      </Button>
                    )}
                  </Group>
                )}
              </div>
              <Group gap={4} wrap="nowrap">
                <Button size="compact-sm" variant="subtle" onClick={() => setPreview(doc)} aria-label={`Voir ${doc.name}`}>
                  Voir
                </Button>
                {peutSupprimer(doc) && (
                  <Button size="compact-sm" variant="subtle" color="red" onClick={() => setASupprimer(doc)} aria-label={`Supprimer ${doc.name}`}>
                    Supprimer
                  </Button>
                )}
              </Group>
            </Group>
          </List.Item>
        ))}
      </List>
      <DocumentPreview numeroUnique={numeroUnique} document={preview} onClose={() => setPreview(null)} />
      <SuppressionDocument numeroUnique={numeroUnique} document={aSupprimer} onClose={() => setASupprimer(null)} onSupprime={onSupprime} />
      {revue && <AvisARemplacer numeroUnique={numeroUnique} document={aRemplacer} onClose={() => setARemplacer(null)} />}
      {avis.error && (
        <Text c="red.8" size="sm" role="alert">
          {errorMessage(avis.error, 'L’avis n’a pas pu être enregistré.')}
        </Text>
      )}
    </>
  );
}

/** A manager marks a document to replace, with the reason the applicant will read. */
function AvisARemplacer({ numeroUnique, document: doc, onClose }: { numeroUnique: string; document: DocumentInfo | null; onClose: () => void }) {
  const avis = useAvisDocument(numeroUnique);
  const [motif, setMotif] = useState('');
  const [tente, setTente] = useState(false);
  const fermer = () => {
    if (avis.isPending) return;
    avis.reset();
    setMotif('');
    setTente(false);
    onClose();
  };
  return (
    <Dialog opened={doc !== null} onClose={fermer} title="Document à remplacer" size="md">
      {doc && (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            setTente(true);
            if (motif.trim() === '') return;
            avis.mutate({ documentId: doc.id, avis: { avis: 'a-remplacer', motif } }, { onSuccess: fermer });
          }}
        >
          <Stack gap="sm">
            <TextInput
              label={`Pourquoi remplacer « ${doc.name} » ?`}
              description="La personne lit ce motif sur sa demande."
              required
              value={motif}
              maxLength={MOTIF_AVIS_MAX}
              onChange={(e) => setMotif(e.currentTarget.value)}
              error={tente && motif.trim() === '' ? 'Indiquez pourquoi ce document est à remplacer.' : undefined}
              data-autofocus
            />
            <PiedDeDialogue
              erreur={avis.error && errorMessage(avis.error, 'L’avis n’a pas pu être enregistré.')}
              enCours={avis.isPending}
              onAnnuler={fermer}
              envoyer="Marquer à remplacer"
              color={ORANGE_A_FAIRE}
            />
          </Stack>
        </form>
      )}
    </Dialog>
  );
}

/** Confirms the deletion of one document (its file is erased from the server). */
function SuppressionDocument({
  numeroUnique,
  document: doc,
  onClose,
  onSupprime,
}: {
  numeroUnique: string;
  document: DocumentInfo | null;
  onClose: () => void;
  onSupprime: (doc: DocumentInfo) => void;
}) {
  const suppression = useSuppressionDocument(numeroUnique);
  const fermer = () => {
    if (suppression.isPending) return;
    suppression.reset();
    onClose();
  };
  return (
    <Dialog opened={doc !== null} onClose={fermer} title="Supprimer ce document ?" size="md">
      {doc && (
        <Stack gap="sm">
          <Text style={{ overflowWrap: 'anywhere' }}>« {doc.name} » sera supprimé définitivement. Vous pourrez en envoyer un autre à sa place.</Text>
          {suppression.error && (
            <Alert color="red" role="alert">
              {errorMessage(suppression.error)}
            </Alert>
          )}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={fermer} disabled={suppression.isPending}>
              Garder
            </Button>
            <Button color="red" loading={suppression.isPending} onClick={() => suppression.mutate(doc.id, { onSuccess: () => onSupprime(doc) })}>
              Supprimer
            </Button>
          </Group>
        </Stack>
      )}
    </Dialog>
  );
}

/** Shows a PDF or an image fetched with the request's key; offers the download everywhere. */
function DocumentPreview({ numeroUnique, document: doc, onClose }: { numeroUnique: string; document: DocumentInfo | null; onClose: () => void }) {
  return (
    <Dialog opened={doc !== null} onClose={onClose} title={doc?.name ?? ''} size="xl">
      {doc && <Apercu key={doc.id} numeroUnique={numeroUnique} document={doc} />}
    </Dialog>
  );
}

/** One document's preview: its bytes become a local address for as long as it shows. */
function Apercu({ numeroUnique, document: doc }: { numeroUnique: string; document: DocumentInfo }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let objectUrl: string | null = null;
    let cancelled = false;
    fetchDocumentBlob(numeroUnique, doc.fileUrl)
      .then((blob) => {
        if (cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch((e: unknown) => !cancelled && setError(errorMessage(e, "Le document n'a pas pu être chargé.")));
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [doc.fileUrl, numeroUnique]);

  if (error) {
    return (
      <Alert color="red" role="alert">
        {error}
      </Alert>
    );
  }
  if (!url) return <Loader role="progressbar" aria-label="Chargement du document" />;
  return (
    <Stack>
      {doc.type === 'application/pdf' ? (
        <object data={url} type="application/pdf" width="100%" height="600" aria-label={doc.name}>
          <Text>L'aperçu des PDF n'est pas disponible sur cet appareil : téléchargez le document pour le lire.</Text>
        </object>
      ) : (
        <img src={url} alt={doc.name} style={{ maxWidth: '100%', height: 'auto' }} />
      )}
      <Anchor href={url} download={doc.name}>
        Télécharger « {doc.name} »
      </Anchor>
    </Stack>
  );
}
