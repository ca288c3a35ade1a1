import { Autocomplete } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { ADRESSE_MIN, type Suggestion } from '../../../domain/adresses.js';
import { CHAMPS_DEMANDE } from '../../../domain/demande.js';
import { useAdresses } from './api.js';

interface Props {
  value: string;
  onChange: (value: string) => void;
  /** A suggestion was picked: fill adresse, code postal and ville. */
  onPick: (suggestion: Suggestion) => void;
  error?: string | undefined;
  name: string;
  inputRef?: React.Ref<HTMLInputElement>;
}

/**
 * Address with suggestions from /app/api/adresses (national base, else the district's streets).
 * Still a free text field: nothing forces picking a suggestion.
 */
export function AdresseField({ value, onChange, onPick, error, name, inputRef }: Props) {
  const [debounced] = useDebouncedValue(value.trim(), 300);
  const [picked, setPicked] = useState<string | null>(null);
  const enabled = debounced.length >= ADRESSE_MIN && debounced !== picked;
  const { data } = useAdresses(debounced, enabled);
  const suggestions = enabled ? (data ?? []) : [];

  return (
    <Autocomplete
      ref={inputRef}
      name={name}
      label={CHAMPS_DEMANDE.adresse.label}
      description="Commencez à taper, puis choisissez une suggestion ou continuez à écrire."
      autoComplete="street-address"
      value={value}
      onChange={(next) => {
        // Picking a suggestion sets the field to its label: fill the three fields from it instead.
        const s = suggestions.find((x) => x.label === next);
        if (s) {
          setPicked(s.adresse);
          onPick(s);
        } else {
          onChange(next);
        }
      }}
      data={[...new Set(suggestions.map((s) => s.label))]}
      // The server already matched: show its answers as they are.
      filter={({ options }) => options}
      error={error}
      comboboxProps={{ withinPortal: true }}
    />
  );
}
