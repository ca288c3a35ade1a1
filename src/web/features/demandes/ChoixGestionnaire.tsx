import { Alert, NativeSelect } from '@mantine/core';
import type { Gestionnaire } from '../../../domain/instruction.js';
import { errorMessage } from '../../lib/api.js';
import { useMoi } from '../../lib/session.js';

/**
 * « Gestionnaire »: the colleague a request (or a lot) is given to, among `parmi` (the managers and admins of
 * GET /gestionnaires, by name), oneself marked « (vous) »; said when the list could not be loaded. Focused when
 * its dialog opens.
 */
export function ChoixGestionnaire({
  gestionnaires,
  parmi = gestionnaires.data ?? [],
  value,
  onChange,
  erreur,
}: {
  gestionnaires: { data?: Gestionnaire[] | undefined; error: Error | null };
  parmi?: Gestionnaire[];
  value: string;
  onChange: (id: string) => void;
  erreur: string | undefined;
}) {
  const { data: moi } = useMoi();
  return (
    <>
      {gestionnaires.error && (
        <Alert color="red" role="alert">
          {errorMessage(gestionnaires.error, 'La liste des gestionnaires n’a pas pu être chargée.')}
        </Alert>
      )}
      <NativeSelect
        label="Gestionnaire"
        required
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        data={[{ value: '', label: gestionnaires.data ? 'Choisir…' : 'Chargement…' }, ...parmi.map((g) => ({ value: g.id, label: g.id === moi?.uid ? `${g.nom} (vous)` : g.nom }))]}
        error={erreur}
        data-autofocus
      />
    </>
  );
}
