import { zodResolver } from '@hookform/resolvers/zod';
import { Alert, Button, Card, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from '../../../domain/zod.js';
import { errorMessage } from '../../lib/api.js';
import { useRenvoiLien } from './apiEffacement.js';

const renvoiSchema = z.object({
  email: z
    .string()
    .trim()
    .min(1, { error: "Saisissez l’adresse e-mail donnée lors du dépôt de la demande." })
    .max(254, { error: "L’adresse e-mail est trop longue." })
    .pipe(z.email({ error: "L’adresse e-mail n’est pas valide." })),
});
type Renvoi = z.input<typeof renvoiSchema>;

/**
 * « Vous avez perdu votre lien privé ? »: a new link goes to the request's address (never shown). The answer
 * is the same whether or not the address is the request's.
 */
export function RenvoiLien({ numero }: { numero: string }) {
  const renvoi = useRenvoiLien(numero);
  const [message, setMessage] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<Renvoi, unknown, z.output<typeof renvoiSchema>>({ resolver: zodResolver(renvoiSchema), defaultValues: { email: '' } });

  const envoyer = handleSubmit(async ({ email }) => {
    setMessage(null);
    try {
      setMessage(await renvoi.mutateAsync(email));
    } catch {
      /* shown below from renvoi.error */
    }
  });

  return (
    <Card withBorder padding="lg" component="section" aria-labelledby="renvoi-lien-titre">
      <Title order={2} size="h4" id="renvoi-lien-titre" mb="xs">
        Vous avez perdu votre lien privé ?
      </Title>
      <form onSubmit={envoyer} noValidate>
        <Stack gap="sm">
          <Text size="sm">
            Saisissez l’adresse e-mail donnée lors du dépôt de la demande. Si c’est bien elle, un nouveau lien privé y sera envoyé ; l’ancien ne
            fonctionnera plus.
          </Text>
          <TextInput
            {...register('email', { onChange: () => setMessage(null) })}
            label="Adresse e-mail de la demande"
            type="email"
            autoComplete="email"
            inputMode="email"
            error={errors.email?.message}
            required
          />
          {renvoi.error && (
            <Alert color="red" role="alert">
              {errorMessage(renvoi.error)}
            </Alert>
          )}
          {/* A success is a status message: the region is there before it, and the Alert inside has no alert role. */}
          <div role="status" aria-live="polite">
            {message && (
              <Alert role="none" color="teal">
                {message}
              </Alert>
            )}
          </div>
          <Button type="submit" loading={renvoi.isPending} w="fit-content">
            Recevoir un nouveau lien
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
