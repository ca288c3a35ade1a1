import { Button, Stack, Textarea } from '@mantine/core';
import type { UseMutationResult } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { errorMessage } from '../../lib/api.js';

/**
 * A text to write and send (a note, a message): its count of characters, the server's refusal under it, and once
 * sent an empty field that keeps the focus for the next one.
 */
export function FormulaireTexte<T>({
  envoi,
  label,
  aide,
  max,
  bouton,
  echec,
}: {
  envoi: UseMutationResult<T, Error, string>;
  label: string;
  /** Said before the count of characters. */
  aide?: string;
  max: number;
  bouton: string;
  /** What the field says when the server gives no reason. */
  echec: string;
}) {
  const [texte, setTexte] = useState('');
  const champ = useRef<HTMLTextAreaElement>(null);
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        envoi.mutate(texte, {
          onSuccess: () => {
            setTexte('');
            champ.current?.focus();
          },
        });
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
        <Button type="submit" loading={envoi.isPending} disabled={texte.trim() === ''}>
          {bouton}
        </Button>
      </Stack>
    </form>
  );
}
