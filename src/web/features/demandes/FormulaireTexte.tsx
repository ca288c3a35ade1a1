import { Alert, Button, CloseButton, FileButton, Group, Stack, Text, Textarea } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { errorMessage } from '../../lib/api.js';
import { useParametres } from '../../lib/parametres.js';
import { formatTaille, REFUS_FICHIER } from '../../../domain/documents.js';
import { ACCEPT, DEFAULT_MAX_BYTES, trierFichiers } from './Documents.js';

/** What the form sends: the text and, where files may be joined, the chosen files. */
export interface TexteEtPieces {
  texte: string;
  fichiers?: File[];
}

/**
 * A text to write and send (a note, a message): its count of characters, the server's refusal under it, and once
 * sent an empty field that keeps the focus for the next one. `piecesMax`: up to that many files may be joined
 * (PDF, JPEG, PNG, checked here before sending and again by the server).
 */
export function FormulaireTexte<T>({
  envoi,
  label,
  aide,
  max,
  bouton,
  echec,
  piecesMax,
}: {
  envoi: UseMutationResult<T, Error, TexteEtPieces>;
  label: string;
  /** Said before the count of characters. */
  aide?: string;
  max: number;
  bouton: string;
  /** What the field says when the server gives no reason. */
  echec: string;
  piecesMax?: number;
}) {
  const [texte, setTexte] = useState('');
  const [fichiers, setFichiers] = useState<File[]>([]);
  const [probleme, setProbleme] = useState<string | null>(null);
  const champ = useRef<HTMLTextAreaElement>(null);
  const joindreRef = useRef<HTMLButtonElement>(null);
  const retirerRefs = useRef(new Map<number, HTMLButtonElement>());
  // Where the focus goes once the form shows what an action did: after « Retirer », the place of the removed file.
  const apresRetrait = useRef<number | null>(null);
  // After a refusal, the field, which the server's reason describes.
  const [echecs, setEchecs] = useState(0);
  const { data: parametres } = useParametres();
  const maxBytes = parametres?.uploadMaxBytes ?? DEFAULT_MAX_BYTES;

  useEffect(() => {
    const index = apresRetrait.current;
    if (index === null) return;
    apresRetrait.current = null;
    // The file that took the removed one's place, else « Joindre des fichiers » (enabled again), never the page.
    (retirerRefs.current.get(index) ?? joindreRef.current)?.focus();
  }, [fichiers]);

  useEffect(() => {
    if (echecs > 0) champ.current?.focus();
  }, [echecs]);

  const joindre = (choisis: File[]) => {
    const { acceptes, probleme: refus } = trierFichiers(choisis, maxBytes);
    const tous = [...fichiers, ...acceptes];
    const trop = piecesMax !== undefined && tous.length > piecesMax;
    setFichiers(trop ? tous.slice(0, piecesMax) : tous);
    setProbleme([refus, trop ? `${REFUS_FICHIER.nombre(piecesMax)} Seuls les ${piecesMax} premiers sont joints.` : null].filter(Boolean).join(' ') || null);
  };
  const retirer = (index: number) => {
    apresRetrait.current = index;
    setFichiers((liste) => liste.filter((_, i) => i !== index));
  };

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        envoi.mutate(
          { texte, fichiers },
          {
            onSuccess: () => {
              setTexte('');
              setFichiers([]);
              setProbleme(null);
              champ.current?.focus();
            },
            onError: () => setEchecs((n) => n + 1),
          },
        );
      }}
    >
      <Stack gap="xs" align="flex-start">
        <Textarea
          ref={champ}
          label={label}
          description={`${aide ? `${aide} ` : ''}${texte.length} / ${max} caractères.`}
          value={texte}
          onChange={(e) => setTexte(e.currentTarget.value)}
          maxLength={max}
          autosize
          minRows={2}
          maxRows={8}
          w="100%"
          error={envoi.error ? errorMessage(envoi.error, echec) : undefined}
        />
        {piecesMax !== undefined && (
          <>
            {fichiers.length > 0 && (
              <Stack component="ul" gap={4} aria-label="Fichiers joints" w="100%" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {fichiers.map((f, i) => (
                  <Group component="li" key={`${f.name}-${i}`} gap={4} wrap="nowrap">
                    <Text size="sm" style={{ overflowWrap: 'anywhere', minWidth: 0 }}>
                      {f.name} ({formatTaille(f.size)})
                    </Text>
                    <CloseButton
                      ref={(el) => {
                        retirerRefs.current.set(i, el!);
                        return () => {
                          if (retirerRefs.current.get(i) === el) retirerRefs.current.delete(i);
                        };
                      }}
                      size="md"
                      aria-label={`Retirer ${f.name}`}
                      onClick={() => retirer(i)}
                    />
                  </Group>
                ))}
              </Stack>
            )}
            {probleme && (
              <Alert color="red" role="alert" p="xs" style={{ overflowWrap: 'anywhere' }}>
                {probleme}
              </Alert>
            )}
          </>
        )}
        <Group gap="sm">
          <Button type="submit" loading={envoi.isPending} disabled={texte.trim() === ''}>
            {bouton}
          </Button>
          {piecesMax !== undefined && (
            <FileButton onChange={joindre} accept={ACCEPT} multiple>
              {(props) => (
                <Button {...props} ref={joindreRef} variant="default" disabled={fichiers.length >= piecesMax}>
                  Joindre des fichiers
                </Button>
              )}
            </FileButton>
          )}
        </Group>
        {piecesMax !== undefined && (
          <Text size="xs" c="gray.7">
            PDF, JPEG ou PNG, {piecesMax} fichiers au plus, {formatTaille(maxBytes)} chacun.
          </Text>
        )}
      </Stack>
    </form>
  );
}
