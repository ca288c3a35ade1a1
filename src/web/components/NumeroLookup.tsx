import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Group, TextInput } from '@mantine/core';
import { useMemo } from 'react';
import { useForm } from 'react-hook-form';
import { normaliseNumeroUnique } from '../../domain/normalise.js';
import { z } from '../../domain/zod.js';

interface Props {
  label: string;
  description?: string;
  submitLabel: string;
  /** What a number must be once typed (normalised and checked); by default any number, normalised. */
  schema?: z.ZodType<string, string>;
  onFound: (numero: string) => void;
}

const normalise = z.string().transform(normaliseNumeroUnique);
const lookupSchema = (numero: z.ZodType<string, string>) =>
  z.object({ numero: z.string().trim().min(1, { error: 'Saisissez votre numéro unique.' }).pipe(numero) });

/** "Follow my request" form: a non-empty number is required; it is normalised before use. */
export function NumeroLookup({ label, description, submitLabel, schema = normalise, onFound }: Props) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm({ resolver: useMemo(() => zodResolver(lookupSchema(schema)), [schema]), defaultValues: { numero: '' } });

  return (
    <form onSubmit={handleSubmit(({ numero }) => onFound(numero))} noValidate>
      <Group align="flex-start" gap="sm" wrap="wrap">
        <TextInput
          {...register('numero')}
          label={label}
          description={description}
          placeholder="013…"
          error={errors.numero?.message}
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
