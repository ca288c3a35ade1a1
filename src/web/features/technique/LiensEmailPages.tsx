import { Alert, Anchor, Button, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { Desabonnement } from '../../../domain/signalements.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { paths } from '../../lib/paths.js';
import { usePageTitle } from '../../lib/usePageTitle.js';
import { confirmerAlerte, desabonner } from './api.js';

/**
 * The pages the e-mailed links open (src/server/features/signalements/mails.ts): `…#jeton=…`. The token rides in
 * the fragment, which no server log or Referer sees; the page reads it, takes it out of the address bar, and
 * posts it once.
 */
const jetonDeLAdresse = () => /(?:^#|&)jeton=([A-Za-z0-9_-]+)/u.exec(window.location.hash)?.[1] ?? null;

const LIEN_INCOMPLET = 'Le lien est incomplet : ouvrez-le de nouveau depuis l’e-mail reçu, en entier.';

/** `reessayer`: the token is kept here (the address no longer holds it) to post it again after a failure of the network or the server. */
type Etat<T> = { quoi: 'en-cours' } | { quoi: 'fait'; resultat: T } | { quoi: 'echec'; message: string; reessayer?: () => void };

/** A failure that trying again may mend: no answer (network), a limit, the server's own trouble. */
const passagere = (error: unknown) => error instanceof ApiError && (error.status === 0 || error.status === 429 || error.status >= 500);

/** Posts the link's token once (also under React's development double render), again only when the person asks. */
function useLien<T>(action: (jeton: string) => Promise<T>): Etat<T> {
  const [jeton] = useState(jetonDeLAdresse);
  const [etat, setEtat] = useState<Etat<T>>(jeton ? { quoi: 'en-cours' } : { quoi: 'echec', message: LIEN_INCOMPLET });
  const lance = useRef(false);
  useEffect(() => {
    if (!jeton || lance.current) return;
    lance.current = true;
    window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
    const poster = () => {
      setEtat({ quoi: 'en-cours' });
      action(jeton).then(
        (resultat) => setEtat({ quoi: 'fait', resultat }),
        (error: unknown) => setEtat({ quoi: 'echec', message: errorMessage(error), ...(passagere(error) ? { reessayer: poster } : {}) }),
      );
    };
    poster();
  }, [action, jeton]);
  return etat;
}

/** « Réessayer », under a failure that may pass. */
function Reessayer({ etat }: { etat: { reessayer?: () => void } }) {
  if (!etat.reessayer) return null;
  return (
    <Group mt="sm">
      <Button variant="outline" color="red" onClick={etat.reessayer}>
        Réessayer
      </Button>
    </Group>
  );
}

function EnCours({ texte }: { texte: string }) {
  return (
    <Group gap="xs" role="status">
      <Loader size="sm" aria-hidden="true" />
      <Text>{texte}</Text>
    </Group>
  );
}

function Retour() {
  return (
    <Group>
      <Button component={Link} to={paths.technique} variant="outline">
        Voir les signalements du quartier
      </Button>
    </Group>
  );
}

export function DesabonnementPage() {
  usePageTitle('Désabonnement — Signalements techniques');
  const etat = useLien<Desabonnement>(desabonner);
  return (
    <Stack maw={720} gap="lg">
      <Title order={1}>Ne plus recevoir d’e-mails</Title>
      {etat.quoi === 'en-cours' && <EnCours texte="Désabonnement en cours…" />}
      {etat.quoi === 'fait' && (
        <Alert color="teal" variant="light" role="status" title="C’est fait">
          {etat.resultat.quoi === 'alerte' ? (
            'Vous ne recevrez plus d’alerte pour les nouveaux signalements du quartier.'
          ) : (
            <>
              Vous ne recevrez plus d’e-mail sur le signalement
              {etat.resultat.numero ? (
                <>
                  {' '}
                  <Anchor component={Link} to={paths.signalement(etat.resultat.numero)}>
                    n° {etat.resultat.numero}
                  </Anchor>
                </>
              ) : null}
              . Vous pouvez toujours le consulter en ligne.
            </>
          )}
        </Alert>
      )}
      {etat.quoi === 'echec' && (
        <Alert color="red" role="alert" title="Le désabonnement n’a pas pu se faire">
          {etat.message}
          <Reessayer etat={etat} />
        </Alert>
      )}
      <Retour />
    </Stack>
  );
}

export function ConfirmationAlertePage() {
  usePageTitle('Confirmation de l’alerte — Signalements techniques');
  const etat = useLien<void>(confirmerAlerte);
  return (
    <Stack maw={720} gap="lg">
      <Title order={1}>Alerte des nouveaux signalements</Title>
      {etat.quoi === 'en-cours' && <EnCours texte="Confirmation en cours…" />}
      {etat.quoi === 'fait' && (
        <Alert color="teal" variant="light" role="status" title="Votre alerte est confirmée">
          Vous recevrez un e-mail à chaque nouveau signalement au Jas de Bouffan. Chacun contient un lien pour ne plus en recevoir.
        </Alert>
      )}
      {etat.quoi === 'echec' && (
        <Alert color="red" role="alert" title="L’alerte n’a pas pu être confirmée">
          {etat.message} Vous pouvez aussi en demander une nouvelle depuis la page des signalements.
          <Reessayer etat={etat} />
        </Alert>
      )}
      <Retour />
    </Stack>
  );
}
