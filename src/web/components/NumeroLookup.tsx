import { Button, Group, TextInput } from '@mantine/core';
import { useRef, useState, type FormEvent } from 'react';
import { normaliseNumeroUnique } from '../../domain/normalise.js';
import { z } from '../../domain/zod.js';

interface Props {
  label: string;
  description?: string;
  submitLabel: string;
  /** Said when the field is sent empty, in the service's words. */
  requiredMessage?: string;
  /** An example of the number's start; none where its form is not known. */
  placeholder?: string;
  /** What a number must be once typed (normalised and checked); by default any number, normalised. */
  schema?: z.ZodType<string, string>;
  onFound: (numero: string) => void;
}

const normalise = z.string().transform(normaliseNumeroUnique);
const lookupSchema = (numero: z.ZodType<string, string>, requiredMessage: string) =>
  z.object({ numero: z.string().trim().min(1, { error: requiredMessage }).pipe(numero) });

/**
 * "Follow my request" form: a non-empty number is required; it is normalised before use. One field: no form
 * library (the housing page's first load does not carry react-hook-form). As with the request form, the
 * check runs on submit, then again on each change once submitted.
 */
export function NumeroLookup({
  label,
  description,
  submitLabel,
  requiredMessage = 'Saisissez votre numéro unique.',
  placeholder = '013…',
  schema = normalise,
  onFound,
}: Props) {
  const [error, setError] = useState<string | undefined>();
  const [submitted, setSubmitted] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const validate = (value: string) => {
    const result = lookupSchema(schema, requiredMessage).safeParse({ numero: value });
    return result.success ? { numero: result.data.numero } : { error: result.error.issues[0]?.message ?? 'Numéro invalide.' };
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    // Uncontrolled: what was typed in the prerendered page before the script ran is kept.
    const result = validate(inputRef.current?.value ?? '');
    setError(result.error);
    if (result.error !== undefined) inputRef.current?.focus();
    else onFound(result.numero!);
  };

  return (
    <form onSubmit={onSubmit} noValidate>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput
          ref={inputRef}
          name="numero"
          defaultValue=""
          onChange={(e) => {
            if (submitted) setError(validate(e.currentTarget.value).error);
          }}
          label={label}
          description={description}
          placeholder={placeholder || undefined}
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
