import { Autocomplete } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState, type ReactNode } from 'react';
import { ADRESSE_MIN, type Suggestion } from '../../domain/adresses.js';
import { useAdresses } from '../lib/adresses.js';

export interface AdresseFieldProps {
  value: string;
  onChange: (value: string) => void;
  /** A suggestion was picked (its label is then the field's value). */
  onPick: (suggestion: Suggestion) => void;
  label: string;
  description?: ReactNode;
  error?: string | undefined;
  name: string;
  inputRef?: React.Ref<HTMLInputElement>;
  /** The browser's autofill hint: `street-address` for one's own address, `off` for a place to report. */
  autoComplete?: string;
}

/**
 * Address with suggestions from /app/api/adresses (national base, else the district's streets), for every form
 * that asks for one (housing request, technical report). Still a free text field: nothing forces picking a
 * suggestion.
 */
export function AdresseField({ value, onChange, onPick, label, description, error, name, inputRef, autoComplete = 'street-address' }: AdresseFieldProps) {
  const [debounced] = useDebouncedValue(value.trim(), 300);
  const [picked, setPicked] = useState<string | null>(null);
  const enabled = debounced.length >= ADRESSE_MIN && debounced !== picked;
  const { data } = useAdresses(debounced, enabled);
  const suggestions = enabled ? (data ?? []) : [];

  return (
    <Autocomplete
      ref={inputRef}
      name={name}
      label={label}
      description={description}
      autoComplete={autoComplete}
      value={value}
      onChange={(next) => {
        // Picking a suggestion sets the field to its label: the caller fills its fields from it instead.
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
