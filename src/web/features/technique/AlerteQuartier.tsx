import { Alert, Button, Group, Text, TextInput, Title } from '@mantine/core';
import { useRef, useState, type FormEvent } from 'react';
import { suivreSchema } from '../../../domain/signalements.js';
import { errorMessage } from '../../lib/api.js';
import { demanderAlerte } from './api.js';

/**
 * « Prévenez-moi des nouveaux signalements dans le quartier »: an e-mail address, then a confirmation link is
 * e-mailed (double opt-in): nothing is sent before the person opens it, and every alert carries a way to stop.
 */
export function AlerteQuartier({ emailParDefaut = '' }: { emailParDefaut?: string }) {
  const [email, setEmail] = useState(emailParDefaut);
  const [erreur, setErreur] = useState<string | null>(null);
  const [envoiEchoue, setEnvoiEchoue] = useState<string | null>(null);
  const [envoyeA, setEnvoyeA] = useState<string | null>(null);
  const [enCours, setEnCours] = useState(false);
  const champ = useRef<HTMLInputElement>(null);

  const envoyer = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setEnvoiEchoue(null);
    const lu = suivreSchema.safeParse({ email });
    if (!lu.success) {
      setErreur(lu.error.issues[0]?.message ?? 'L’adresse e-mail n’est pas valable.');
      champ.current?.focus();
      return;
    }
    setErreur(null);
    setEnCours(true);
    try {
      await demanderAlerte(lu.data.email);
      setEnvoyeA(lu.data.email);
    } catch (error) {
      setEnvoiEchoue(errorMessage(error));
    } finally {
      setEnCours(false);
    }
  };

  return (
    <section aria-labelledby="alerte-titre">
      <Title order={2} size="h3" id="alerte-titre" mb="xs">
        Prévenez-moi des nouveaux signalements dans le quartier
      </Title>
      <Text size="sm" mb="sm">
        Recevez un e-mail à chaque nouveau signalement au Jas de Bouffan. Nous vous écrivons d’abord pour confirmer : rien n’est envoyé avant
        que vous ayez ouvert le lien de cet e-mail, et chaque alerte contient un lien pour ne plus en recevoir.
      </Text>
      <div role="status">
        {envoyeA && (
          <Alert color="teal" variant="light" title="Confirmez votre adresse" role="none" mb="sm">
            Un e-mail vient d’être envoyé à <strong>{envoyeA}</strong>. Ouvrez le lien qu’il contient pour recevoir les alertes.
          </Alert>
        )}
      </div>
      {envoiEchoue && (
        <Alert color="red" role="alert" mb="sm">
          {envoiEchoue}
        </Alert>
      )}
      <form onSubmit={(e) => void envoyer(e)} noValidate aria-labelledby="alerte-titre">
        <Group align="flex-start" gap="sm" wrap="wrap">
          <TextInput
            ref={champ}
            type="email"
            name="email"
            label="Votre adresse e-mail"
            autoComplete="email"
            inputMode="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
            error={erreur}
            style={{ flex: '1 1 16rem' }}
          />
          <Button type="submit" mt={{ base: 0, xs: 25 }} loading={enCours} loaderProps={{ 'aria-label': 'Envoi en cours' }}>
            M’inscrire aux alertes
          </Button>
        </Group>
      </form>
    </section>
  );
}
