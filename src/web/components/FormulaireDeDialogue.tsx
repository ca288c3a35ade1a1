import { Alert, Button, Group, Stack, type MantineSpacing } from '@mantine/core';
import type { ReactNode } from 'react';

interface Pied {
  /** What went wrong, said above the buttons (null: nothing). */
  erreur: string | null;
  enCours: boolean;
  onAnnuler: () => void;
  /** The submit button's words. */
  envoyer: string;
  color?: string;
}

/**
 * The form of a dialog: its fields, then what went wrong, « Annuler » and the submit button. Submitting (the button or
 * Enter) never reloads the page; the fields are checked by the caller (`noValidate`: the browser's own bubbles are
 * not French everywhere and say less than ours).
 */
export function FormulaireDeDialogue({ onSubmit, gap = 'sm', children, ...pied }: Pied & { onSubmit: () => void; gap?: MantineSpacing; children: ReactNode }) {
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    >
      <Stack gap={gap}>
        {children}
        {pied.erreur && (
          <Alert color="red" role="alert">
            {pied.erreur}
          </Alert>
        )}
        <Group justify="flex-end" gap="sm">
          <Button variant="default" onClick={pied.onAnnuler} disabled={pied.enCours}>
            Annuler
          </Button>
          <Button type="submit" loading={pied.enCours} {...(pied.color ? { color: pied.color } : {})}>
            {pied.envoyer}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
