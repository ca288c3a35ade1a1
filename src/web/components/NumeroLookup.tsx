import { Button, Group, TextInput } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { normaliseNumeroUnique } from '../../domain/normalise.js';

interface Props {
  label: string;
  description?: string;
  submitLabel: string;
  /** Extra check on the normalised number; returns an error message or null. */
  validate?: (numero: string) => string | null;
  onFound: (numero: string) => void;
}

/** "Follow my request" form: a non-empty number is required; it is normalised before use. */
export function NumeroLookup({ label, description, submitLabel, validate, onFound }: Props) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);

  function submit(event: FormEvent) {
    event.preventDefault();
    const numero = normaliseNumeroUnique(value);
    const problem = numero === '' ? 'Saisissez votre numéro unique.' : (validate?.(numero) ?? null);
    setError(problem);
    if (!problem) onFound(numero);
  }

  return (
    <form onSubmit={submit} noValidate>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput
          label={label}
          description={description}
          placeholder="013…"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          error={error}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          required
          style={{ flex: '1 1 16rem' }}
        />
        <Button type="submit" mt={{ base: 0, xs: description ? 47 : 25 }}>
          {submitLabel}
        </Button>
      </Group>
    </form>
  );
}
