import { Alert, Anchor, Badge, Button, Card, CloseButton, FileButton, Group, Loader, Progress, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { formatHorodatage } from '../../../domain/dates.js';
import { documentsFermes, recoitDesDocuments, type DemandeComplete } from '../../../domain/demande.js';
import { peutSupprimerDocument } from '../../../domain/effacement.js';
import { MOTIF_AVIS_MAX } from '../../../domain/corrections.js';
import {
  AVIS,
  CATEGORIES,
  EXTENSIONS_ACCEPTEES,
  isTypeAccepte,
  formatTaille,
  MAX_FICHIERS_PAR_ENVOI,
  REFUS_FICHIER,
  TYPES_ACCEPTES,
  typeFromExtension,
  UPLOAD_MAX_MO_DEFAUT,
  type Categorie,
  type DocumentInfo,
} from '../../../domain/documents.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { Dialog } from '../../components/Dialog.js';
import { FormulaireDeDialogue } from '../../components/FormulaireDeDialogue.js';
import { errorMessage } from '../../lib/api.js';
import { useParametres } from '../../lib/parametres.js';
import { fetchDocumentBlob, useEnvoiDocuments } from './api.js';
import { useAvisDocument } from './apiCorrections.js';
import { ORANGE_A_FAIRE, VERT_ACCEPTE } from './Corrections.js';
import { useSuppressionDocument } from './apiEffacement.js';
import { ajoutDuTitre } from './titrePdf.js';

export const ACCEPT = [...EXTENSIONS_ACCEPTEES, ...Object.keys(TYPES_ACCEPTES)].join(',');
export const DEFAULT_MAX_BYTES = UPLOAD_MAX_MO_DEFAUT * 1024 * 1024;


type Pending = Record<Categorie, File[]>;
/** The send's bar while files wait: held at the bottom of the screen over the blocks. */
const BARRE_D_ENVOI = {
  position: 'sticky',
  bottom: 0,
  zIndex: 2,
  background: 'var(--mantine-color-body)',
  borderTop: '1px solid var(--mantine-color-gray-3)',
  paddingBlock: 'var(--mantine-spacing-sm)',
} as const;

const emptyPending = (): Pending => ({ livret: [], identity: [], tax: [], salary: [], other: [] });


/** Why a chosen file cannot be sent, checked before sending (the server checks again). */
function fileProblem(file: File, maxBytes: number): string | null {
  const byName = typeFromExtension(file.name);
  if (!byName || (file.type !== '' && !isTypeAccepte(file.type))) return REFUS_FICHIER.type(file.name);
  // The browser's type says another accepted format than the name's extension: the server would say so too.
  if (file.type !== '' && file.type !== byName) return REFUS_FICHIER.contenu(file.name);
  if (file.size === 0) return REFUS_FICHIER.vide(file.name);
  if (file.size > maxBytes) return REFUS_FICHIER.taille(file.name, maxBytes);
  return null;
}

/** Chosen files split into those that may be sent and why the others may not. */
export function trierFichiers(files: readonly File[], maxBytes: number): { acceptes: File[]; probleme: string | null } {
  const acceptes: File[] = [];
  const problemes: string[] = [];
  for (const file of files) {
    const problem = fileProblem(file, maxBytes);
    if (problem) problemes.push(problem);
    else acceptes.push(file);
  }
  return { acceptes, probleme: problemes.length > 0 ? problemes.join(' ') : null };
}

/**
 * « Ajouter des fichiers »: Mantine's light blue keeps blue.9 on blue.1 at rest (4.9:1), but its hover, blue.9
 * on blue.2, falls to 4.0:1. On hover it fills instead: white on blue.8, 5.0:1 (the primary shade's filled button).
 */
const AJOUTER_VARS = () => ({ root: { '--button-hover': 'var(--mantine-color-blue-8)', '--button-hover-color': 'var(--mantine-color-white)' } });

/** The key of a chosen file's « Retirer » button: its block and its place in the block's list. */
const cleRetirer = (categorie: Categorie, index: number) => `${categorie}-${index}`;

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
  // Counts the sends that ended (sent, refused or failed): each one moves the focus to what it says.
  const [envoisFinis, setEnvoisFinis] = useState(0);
  const envoi = useEnvoiDocuments(demande.numeroUnique, setProgress);
  const total = Object.values(pending).reduce((n, files) => n + files.length, 0);
  // A closed request takes no more documents: those sent stay listed, nothing more is asked.
  const ouverte = recoitDesDocuments(demande.statutDeLaDemande);

  // Where the focus goes once the page shows the result of an action (the element it was on may be gone).
  const retirerRefs = useRef(new Map<string, HTMLButtonElement>());
  const ajouterRefs = useRef(new Map<Categorie, HTMLButtonElement>());
  const titreRefs = useRef(new Map<Categorie, HTMLHeadingElement>());
  const apresRetrait = useRef<{ categorie: Categorie; index: number } | null>(null);
  const succesRef = useRef<HTMLDivElement>(null);
  const erreurRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const retrait = apresRetrait.current;
    if (!retrait) return;
    apresRetrait.current = null;
    // The file that took the removed one's place, else the block's « Ajouter des fichiers ».
    (retirerRefs.current.get(cleRetirer(retrait.categorie, retrait.index)) ?? ajouterRefs.current.get(retrait.categorie))?.focus();
  }, [pending]);

  useEffect(() => {
    if (envoisFinis > 0) (erreurRef.current ?? succesRef.current)?.focus();
  }, [envoisFinis]);

  function add(categorie: Categorie, files: File[]) {
    const { acceptes, probleme } = trierFichiers(files, maxBytes);
    setSent(false);
    setPending((p) => ({ ...p, [categorie]: [...p[categorie], ...acceptes] }));
    setBlockErrors((e) => ({ ...e, [categorie]: probleme ?? undefined }));
  }

  function remove(categorie: Categorie, index: number) {
    apresRetrait.current = { categorie, index };
    setPending((p) => ({ ...p, [categorie]: p[categorie].filter((_, i) => i !== index) }));
  }

  async function send() {
    setSendError(null);
    setSent(false);
    const files = CATEGORIES.flatMap((c) => pending[c.value].map((file) => ({ categorie: c.value, file })));
    // The count per send, then the request's quota, checked before megabytes go over a slow link (the server checks
    // again, with what it holds).
    const quota = parametres?.quotaDocuments;
    const deja = Object.values(demande.documents).flat();
    const octets = deja.reduce((n, d) => n + d.size, 0);
    const refus =
      total > maxFiles
        ? `${REFUS_FICHIER.nombre(maxFiles)} Retirez-en ${total - maxFiles}.`
        : quota && deja.length + total > quota.fichiers
          ? REFUS_FICHIER.quotaFichiers(quota.fichiers, deja.length)
          : quota && octets + files.reduce((n, f) => n + f.file.size, 0) > quota.octets
            ? REFUS_FICHIER.quotaOctets(quota.octets, octets)
            : null;
    if (refus) {
      setSendError(refus);
      setEnvoisFinis((n) => n + 1);
      return;
    }
    setProgress(0);
    try {
      await envoi.mutateAsync(files);
      setPending(emptyPending());
      setBlockErrors({});
      setSent(true);
    } catch (error) {
      setSendError(errorMessage(error, 'L’envoi a échoué. Réessayez dans un instant.'));
    } finally {
      setProgress(null);
      setEnvoisFinis((n) => n + 1);
    }
  }

  return (
    <Stack gap="md">
      <Title order={2} size="h3">
        Vos documents
      </Title>
      {ouverte ? (
        <Text>
          Formats acceptés : PDF, JPEG et PNG, {formatTaille(maxBytes)} au plus par fichier
          {parametres?.quotaDocuments ? ` (${parametres.quotaDocuments.fichiers} documents et ${formatTaille(parametres.quotaDocuments.octets)} au plus par demande)` : ''}.
          Une photo nette prise avec votre téléphone convient.
        </Text>
      ) : (
        <Alert role="note" color="gray" variant="light">
          {documentsFermes(demande.statutDeLaDemande)}
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        {CATEGORIES.map(({ value: categorie, label }) => (
          <Card key={categorie} withBorder padding="md" component="section" aria-labelledby={`bloc-${categorie}`}>
            <Title
              order={3}
              size="h4"
              id={`bloc-${categorie}`}
              mb="xs"
              tabIndex={-1}
              ref={(el) => {
                titreRefs.current.set(categorie, el!);
                return () => void titreRefs.current.delete(categorie);
              }}
            >
              {label}
            </Title>
            <DocumentList
              numeroUnique={demande.numeroUnique}
              documents={demande.documents[categorie]}
              peutSupprimer={(doc) => supprimable && peutSupprimerDocument(demande.statutDeLaDemande, doc.avis)}
              revue={revue}
              aRemplacerPossible={ouverte}
              focusTitre={() => titreRefs.current.get(categorie)?.focus()}
            />
            {pending[categorie].length > 0 && (
              <>
                <Text size="sm" fw={600} mt="sm" id={`a-envoyer-${categorie}`}>
                  À envoyer :
                </Text>
                <Stack component="ul" gap={4} aria-labelledby={`a-envoyer-${categorie}`} style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                  {pending[categorie].map((file, i) => (
                    <Group component="li" key={`${file.name}-${i}`} gap="xs" wrap="nowrap" justify="space-between" align="center">
                      <Text size="sm" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                        {file.name} ({formatTaille(file.size)})
                      </Text>
                      <CloseButton
                        ref={(el) => {
                          const cle = cleRetirer(categorie, i);
                          retirerRefs.current.set(cle, el!);
                          return () => {
                            if (retirerRefs.current.get(cle) === el) retirerRefs.current.delete(cle);
                          };
                        }}
                        size="md"
                        aria-label={`Retirer ${file.name}`}
                        onClick={() => remove(categorie, i)}
                        disabled={progress !== null}
                      />
                    </Group>
                  ))}
                </Stack>
              </>
            )}
            {blockErrors[categorie] && (
              <Text c="red.8" size="sm" mt="xs" role="alert" style={{ overflowWrap: 'anywhere' }}>
                {blockErrors[categorie]}
              </Text>
            )}
            {ouverte && (
              <FileButton onChange={(files) => add(categorie, files)} accept={ACCEPT} multiple>
                {(props) => (
                  <Button
                    {...props}
                    ref={(el) => {
                      ajouterRefs.current.set(categorie, el!);
                      return () => void ajouterRefs.current.delete(categorie);
                    }}
                    variant="light"
                    vars={AJOUTER_VARS}
                    mt="sm"
                    w="fit-content"
                    disabled={progress !== null}
                    aria-describedby={`bloc-${categorie}`}
                  >
                    Ajouter des fichiers
                  </Button>
                )}
              </FileButton>
            )}
          </Card>
        ))}
      </SimpleGrid>

      {sendError && (
        <Alert ref={erreurRef} tabIndex={-1} color="red" title="Les documents n’ont pas été envoyés" role="alert" style={{ overflowWrap: 'anywhere' }}>
          {sendError}
        </Alert>
      )}
      {/* The result of a send, focused once it shows so that a screen reader says it. */}
      {sent && (
        <Alert ref={succesRef} tabIndex={-1} role="status" color="green" variant="light">
          {MESSAGES.televerse}
        </Alert>
      )}
      {/* Files chosen in any block: the send stays in sight at the bottom of the screen (on a phone the button below the
          five blocks is a few screens away, and a person who chose a file took it for sent). */}
      {ouverte && (
        <Stack gap="xs" data-envoi={total > 0 ? 'en-attente' : undefined} style={total > 0 ? BARRE_D_ENVOI : undefined}>
          {progress !== null && (
            <div>
              <Text size="sm" mb={4}>
                Envoi en cours : {Math.round(progress * 100)} %
              </Text>
              <Progress value={progress * 100} aria-label="Progression de l’envoi" animated />
            </div>
          )}
          <Button onClick={send} disabled={total === 0} loading={progress !== null} size="md" w="fit-content">
            {total <= 1 ? 'Envoyer le fichier' : `Envoyer les ${total} fichiers`}
          </Button>
        </Stack>
      )}
    </Stack>
  );
}

/**
 * What the block says of the last action on its documents: a document deleted, a review withdrawn (a new object
 * each time, so that the same sentence is said again).
 */
interface AnnonceDeBloc {
  texte: string;
}

function DocumentList({
  numeroUnique,
  documents,
  peutSupprimer,
  revue,
  aRemplacerPossible,
  focusTitre,
}: {
  numeroUnique: string;
  documents: DocumentInfo[];
  peutSupprimer: (doc: DocumentInfo) => boolean;
  revue: boolean;
  /** Whether a document may be marked to replace: not on a closed request, which takes no more documents. */
  aRemplacerPossible: boolean;
  /** Focuses the block's title (where the focus goes when no document is left after a deletion). */
  focusTitre: () => void;
}) {
  const [preview, setPreview] = useState<DocumentInfo | null>(null);
  const [aSupprimer, setASupprimer] = useState<DocumentInfo | null>(null);
  const [aRemplacer, setARemplacer] = useState<DocumentInfo | null>(null);
  const avis = useAvisDocument(numeroUnique);
  const [annonce, setAnnonce] = useState<AnnonceDeBloc | null>(null);
  const voirRefs = useRef(new Map<string, HTMLButtonElement>());
  // The deletion whose focus is still to move: the id of the document after the deleted one, or null.
  const apresSuppression = useRef<{ suivant: string | null } | null>(null);

  // The deleted document's buttons are gone: the focus goes to the next document's « Voir », else to the block's
  // title. This runs as the dialog closes, before Mantine would hand the focus back to the button that opened it.
  useEffect(() => {
    const suppression = apresSuppression.current;
    if (!suppression) return;
    apresSuppression.current = null;
    const suivant = suppression.suivant ? voirRefs.current.get(suppression.suivant) : undefined;
    if (suivant) suivant.focus();
    else focusTitre();
  }, [annonce, focusTitre]);

  const onSupprime = (doc: DocumentInfo) => {
    const index = documents.findIndex((d) => d.id === doc.id);
    apresSuppression.current = { suivant: documents[index + 1]?.id ?? null };
    setASupprimer(null);
    setAnnonce({ texte: `« ${doc.name} » a été supprimé.` });
  };

  /**
   * A manager withdraws a document's review (accepted or to replace): it is to check again. Once the page shows
   * it without its review, the block says so and the focus, whose button is gone, goes to the document's « Voir ».
   */
  const retirerAvis = (doc: DocumentInfo) => {
    setAnnonce(null);
    avis.mutate(
      { documentId: doc.id, avis: { avis: null } },
      {
        onSuccess: () => {
          setAnnonce({ texte: `L’avis sur « ${doc.name} » a été retiré : le document est à vérifier.` });
          voirRefs.current.get(doc.id)?.focus();
        },
      },
    );
  };

  return (
    <>
      <div role="status" aria-live="polite">
        {annonce && (
          <Text size="sm" c="teal.9" style={{ overflowWrap: 'anywhere' }}>
            {annonce.texte}
          </Text>
        )}
      </div>
      {documents.length === 0 ? (
        <Text size="sm" c="gray.7">
          Aucun document envoyé.
        </Text>
      ) : (
        // One document a row: its name and details, then its buttons below, which wrap rather than shrink (375 px, 320 px).
        <Stack component="ul" gap="sm" aria-label="Documents envoyés" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {documents.map((doc) => (
            <Stack component="li" key={doc.id} gap={4}>
              <div>
                <Text size="sm" fw={500} style={{ overflowWrap: 'anywhere' }}>
                  {doc.name}
                </Text>
                <Text size="xs" c="gray.7">
                  {doc.type === 'application/pdf' ? 'PDF' : 'Image'} · {formatTaille(doc.size)} · envoyé le {formatHorodatage(doc.uploadedAt)}
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
              </div>
              <Group gap={4} wrap="wrap">
                <Button
                  ref={(el) => {
                    voirRefs.current.set(doc.id, el!);
                    return () => void voirRefs.current.delete(doc.id);
                  }}
                  size="compact-sm"
                  variant="subtle"
                  onClick={() => setPreview(doc)}
                  aria-label={`Voir ${doc.name}`}
                  style={{ flexShrink: 0 }}
                >
                  Voir
                </Button>
                {revue && doc.avis !== 'accepte' && (
                  <Button
                    size="compact-sm"
                    variant="light"
                    color={VERT_ACCEPTE}
                    loading={avis.isPending && avis.variables?.documentId === doc.id && avis.variables.avis.avis === 'accepte'}
                    onClick={() => avis.mutate({ documentId: doc.id, avis: { avis: 'accepte' } })}
                    aria-label={`Accepter ${doc.name}`}
                    style={{ flexShrink: 0 }}
                  >
                    Accepter
                  </Button>
                )}
                {revue && aRemplacerPossible && doc.avis !== 'a-remplacer' && (
                  <Button
                    size="compact-sm"
                    variant="light"
                    color={ORANGE_A_FAIRE}
                    onClick={() => setARemplacer(doc)}
                    aria-label={`Marquer ${doc.name} à remplacer`}
                    style={{ flexShrink: 0 }}
                  >
                    À remplacer
                  </Button>
                )}
                {revue && doc.avis !== null && (
                  <Button
                    size="compact-sm"
                    variant="default"
                    loading={avis.isPending && avis.variables?.documentId === doc.id && avis.variables.avis.avis === null}
                    onClick={() => retirerAvis(doc)}
                    aria-label={`Retirer l’avis sur ${doc.name}`}
                    style={{ flexShrink: 0 }}
                  >
                    Retirer l’avis
                  </Button>
                )}
                {peutSupprimer(doc) && (
                  <Button
                    size="compact-sm"
                    variant="subtle"
                    color="red"
                    onClick={() => setASupprimer(doc)}
                    aria-label={`Supprimer ${doc.name}`}
                    style={{ flexShrink: 0 }}
                  >
                    Supprimer
                  </Button>
                )}
              </Group>
            </Stack>
          ))}
        </Stack>
      )}
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
        <FormulaireDeDialogue
          onSubmit={() => {
            setTente(true);
            if (motif.trim() === '') return;
            avis.mutate({ documentId: doc.id, avis: { avis: 'a-remplacer', motif } }, { onSuccess: fermer });
          }}
          erreur={avis.error && errorMessage(avis.error, 'L’avis n’a pas pu être enregistré.')}
          enCours={avis.isPending}
          onAnnuler={fermer}
          envoyer="Marquer à remplacer"
          color={ORANGE_A_FAIRE}
        >
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
        </FormulaireDeDialogue>
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

/** What a preview needs of a document or of a message's attachment. */
type Apercevable = Pick<DocumentInfo, 'id' | 'fileUrl' | 'name' | 'type'>;

/** Shows a PDF or an image fetched with the request's key; offers the download everywhere. */
export function DocumentPreview({ numeroUnique, document: doc, onClose }: { numeroUnique: string; document: Apercevable | null; onClose: () => void }) {
  return (
    <Dialog opened={doc !== null} onClose={onClose} title={doc?.name ?? ''} size="xl">
      {doc && <Apercu key={doc.id} numeroUnique={numeroUnique} document={doc} />}
    </Dialog>
  );
}

/**
 * One document's preview: its bytes become local addresses for as long as it shows, the file as sent for the
 * download, and for a PDF's preview a copy titled with the file's name (titrePdf.ts): Chrome's viewer names a
 * PDF without a title by its address, a blob: address's random id.
 */
function Apercu({ numeroUnique, document: doc }: { numeroUnique: string; document: Apercevable }) {
  const [urls, setUrls] = useState<{ apercu: string; fichier: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const creees: string[] = [];
    let cancelled = false;
    fetchDocumentBlob(numeroUnique, doc.fileUrl)
      .then(async (blob) => {
        const titre = doc.type === 'application/pdf' ? await ajoutDuTitre(blob, doc.name).catch(() => null) : null;
        if (cancelled) return;
        const type = blob.type || doc.type;
        // Files, not bare Blobs: a browser that names what it shows or saves from a local address by its file
        // (rather than by the address's random id) gives the document's name.
        const fichier = URL.createObjectURL(new File([blob], doc.name, { type }));
        creees.push(fichier);
        const apercu = titre ? URL.createObjectURL(new File([blob, titre], doc.name, { type })) : fichier;
        if (titre) creees.push(apercu);
        setUrls({ apercu, fichier });
      })
      .catch((e: unknown) => !cancelled && setError(errorMessage(e, 'Le document n’a pas pu être chargé.')));
    return () => {
      cancelled = true;
      for (const url of creees) URL.revokeObjectURL(url);
    };
  }, [doc.fileUrl, doc.name, doc.type, numeroUnique]);

  if (error) {
    return (
      <Alert color="red" role="alert">
        {error}
      </Alert>
    );
  }
  if (!urls) return <Loader role="progressbar" aria-label="Chargement du document" />;
  return (
    <Stack>
      {doc.type === 'application/pdf' ? (
        // Named by the document's name (title and aria-label), never by its local address (blob:…).
        <object data={urls.apercu} type="application/pdf" width="100%" height="600" title={doc.name} aria-label={doc.name}>
          <Text>L’aperçu des PDF n’est pas disponible sur cet appareil : téléchargez le document pour le lire.</Text>
        </object>
      ) : (
        <img src={urls.apercu} alt={doc.name} style={{ maxWidth: '100%', height: 'auto' }} />
      )}
      <Anchor href={urls.fichier} download={doc.name} style={{ overflowWrap: 'anywhere' }}>
        Télécharger « {doc.name} »
      </Anchor>
    </Stack>
  );
}
