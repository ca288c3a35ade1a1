import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { AVERTIR_AVANT_FIN_ABSOLUE_MS, AVERTIR_AVANT_INACTIVITE_MS } from '../../../domain/compte.js';
import { ApiError, errorMessage } from '../../lib/api.js';
import { abonnerHorloge, lireHorloge, type HorlogeSession } from '../../lib/apiActivite.js';
import { paths } from '../../lib/paths.js';
import { connexionPour, prolongerSession } from '../../lib/session.js';

/**
 * The end of a manager's or an admin's session, said before it comes (RGAA 13.1, docs/produit.md « Comptes »):
 * the server ends it 30 minutes after their last request, and 12 hours after the sign-in whatever happens.
 * - AVERTIR_AVANT_INACTIVITE_MS before the idle end: « Rester connecté » (GET /user/session, a request
 *   that counts as activity) or « Se déconnecter »;
 * - AVERTIR_AVANT_FIN_ABSOLUE_MS before the absolute end, which nothing moves: said so, with time to send or
 *   copy what is being written;
 * - once it has ended (by the clock, or a 401 from the server): said so, with « Se reconnecter », which comes
 *   back to this page (`?retour=`).
 * The clock is lib/apiActivite.ts, moved by every API call; mounted by App.tsx, for managers and admins only.
 * A dialog (focus moved into it, and back where it was once closed): the person may be typing in a field.
 */


type Etat =
  | { phase: 'inconnue' | 'active'; prochaine: number | null }
  | { phase: 'inactivite' | 'absolue'; fin: number; prochaine: number | null }
  | { phase: 'terminee'; cause: 'inactivite' | 'absolue' | 'autre'; prochaine: null };

/** Where the session stands at `maintenant`, and the next time that may change (null: only a request changes it). */
export function etatDeSession(h: HorlogeSession | null, maintenant: number): Etat {
  if (!h) return { phase: 'inconnue', prochaine: null };
  // The idle end, reckoned from the earliest the server's activity may be (the warning) and from the latest (the end).
  const finInactiviteAuPlusTot = h.activiteAuPlusTot + h.inactiviteMs;
  const finInactiviteAuPlusTard = h.activiteAuPlusTard + h.inactiviteMs;
  if (maintenant >= h.finAbsolue) return { phase: 'terminee', cause: 'absolue', prochaine: null };
  if (maintenant >= finInactiviteAuPlusTard) return { phase: 'terminee', cause: 'inactivite', prochaine: null };
  if (h.terminee) return { phase: 'terminee', cause: maintenant >= finInactiviteAuPlusTot ? 'inactivite' : 'autre', prochaine: null };
  const seuils = [h.finAbsolue - AVERTIR_AVANT_FIN_ABSOLUE_MS, h.finAbsolue, finInactiviteAuPlusTot - AVERTIR_AVANT_INACTIVITE_MS, finInactiviteAuPlusTard];
  const prochaine = Math.min(...seuils.filter((t) => t > maintenant));
  // The absolute end comes first: activity cannot move it, only it is said.
  if (h.finAbsolue <= finInactiviteAuPlusTot) {
    return maintenant >= h.finAbsolue - AVERTIR_AVANT_FIN_ABSOLUE_MS ? { phase: 'absolue', fin: h.finAbsolue, prochaine } : { phase: 'active', prochaine };
  }
  if (maintenant >= finInactiviteAuPlusTot - AVERTIR_AVANT_INACTIVITE_MS) return { phase: 'inactivite', fin: finInactiviteAuPlusTot, prochaine };
  return { phase: 'active', prochaine };
}

const heure = new Intl.DateTimeFormat('fr-FR', { hour: 'numeric', minute: '2-digit', timeZone: 'Europe/Paris' });

/** « 14 h 32 », as French writes a time of day. */
export function enHeure(ms: number): string {
  const parts = heure.formatToParts(ms);
  const partie = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${partie('hour')}\u00a0h\u00a0${partie('minute')}`;
}

function enMinutes(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return `${minutes}\u00a0minute${minutes > 1 ? 's' : ''}`;
}

/** The address of this page, to come back to once signed in again. */
function ici(): string {
  return `${window.location.pathname}${window.location.search}${window.location.hash}`;
}

/** The longest a timer waits (setTimeout's limit: a longer delay would fire at once). */
const ATTENTE_MAX_MS = 2 ** 31 - 1;

export default function FinDeSession() {
  const horloge = useSyncExternalStore(abonnerHorloge, lireHorloge, () => null);
  const [maintenant, setMaintenant] = useState(() => Date.now());
  /** The dialog closed by the person (its end, so that another session's is said again). */
  const [ecarte, setEcarte] = useState<string | null>(null);
  // A network failure is tried again (a 4xx would not change): without the clock, nothing would be said.
  const prolongation = useMutation({ mutationFn: prolongerSession, retry: (n, error) => !(error instanceof ApiError && error.status > 0) && n < 2 });
  const { mutate: prolonger, reset } = prolongation;

  // The clock is set once mounted: the page was just opened, a request that is activity anyway.
  useEffect(() => {
    prolonger();
  }, [prolonger]);

  const etat = etatDeSession(horloge, maintenant);

  // Looks again at the next time the state may change; and when the page comes back to the fore (timers of a
  // hidden page or a sleeping device run late).
  useEffect(() => {
    if (etat.prochaine === null) return;
    const minuteur = setTimeout(() => setMaintenant(Date.now()), Math.min(Math.max(0, etat.prochaine - Date.now()), ATTENTE_MAX_MS));
    return () => clearTimeout(minuteur);
  }, [etat.prochaine, maintenant]);
  useEffect(() => {
    const revoir = () => {
      if (document.visibilityState === 'visible') setMaintenant(Date.now());
    };
    document.addEventListener('visibilitychange', revoir);
    return () => document.removeEventListener('visibilitychange', revoir);
  }, []);

  const cle = etat.phase === 'absolue' ? `absolue:${etat.fin}` : etat.phase === 'terminee' ? `terminee:${horloge?.finAbsolue ?? ''}` : null;
  const ouvert = etat.phase === 'inactivite' || ((etat.phase === 'absolue' || etat.phase === 'terminee') && cle !== ecarte);
  const fermer = () => {
    reset();
    setEcarte(cle);
  };
  const resterConnecte = () => prolonger(undefined, { onSuccess: () => setMaintenant(Date.now()) });

  let titre = '';
  let contenu = null;
  if (etat.phase === 'inactivite' && horloge) {
    titre = 'Votre session va bientôt prendre fin';
    contenu = (
      <>
        <Text>
          Par sécurité, une session de gestion prend fin après {enMinutes(horloge.inactiviteMs)} sans échange avec le serveur : écrire dans un champ ne
          compte pas, envoyer ou changer de page, si. Sans action de votre part, votre session prendra fin à {enHeure(etat.fin)}.
        </Text>
        {prolongation.isError && (
          <Alert color="red" role="alert">
            {errorMessage(prolongation.error)}
          </Alert>
        )}
        <Group>
          <Button onClick={resterConnecte} loading={prolongation.isPending} data-autofocus>
            Rester connecté
          </Button>
          <Button component="a" href={paths.deconnexion} variant="default">
            Se déconnecter
          </Button>
        </Group>
      </>
    );
  } else if (etat.phase === 'absolue') {
    titre = 'Votre session va prendre fin';
    contenu = (
      <>
        <Text>
          Votre session a atteint sa durée maximale : elle prendra fin à {enHeure(etat.fin)} et ne peut pas être prolongée. Envoyez ou copiez d’ici là ce
          que vous êtes en train d’écrire, puis reconnectez-vous.
        </Text>
        <Group>
          <Button onClick={fermer} data-autofocus>
            J’ai compris
          </Button>
          <Button component="a" href={paths.deconnexion} variant="default">
            Se déconnecter
          </Button>
        </Group>
      </>
    );
  } else if (etat.phase === 'terminee' && horloge) {
    titre = 'Votre session a pris fin';
    const cause =
      etat.cause === 'inactivite'
        ? `Votre session a pris fin après ${enMinutes(horloge.inactiviteMs)} sans échange avec le serveur.`
        : etat.cause === 'absolue'
          ? 'Votre session a atteint sa durée maximale.'
          : 'Vous n’êtes plus connecté à votre compte.';
    contenu = (
      <>
        <Text>
          {cause} Ce que vous n’avez pas encore envoyé n’est pas enregistré : copiez-le si besoin avant de vous reconnecter. Une fois reconnecté, vous
          reviendrez sur cette page.
        </Text>
        <Group>
          <Button component="a" href={connexionPour(ici())} data-autofocus>
            Se reconnecter
          </Button>
          <Button onClick={fermer} variant="default">
            Fermer
          </Button>
        </Group>
      </>
    );
  }

  return (
    <Modal.Root
      opened={ouvert}
      // Escape: before the idle end, the person is there, which is « Rester connecté »; otherwise the dialog closes.
      onClose={etat.phase === 'inactivite' ? resterConnecte : fermer}
      closeOnClickOutside={false}
      size="md"
    >
      <Modal.Overlay />
      <Modal.Content>
        {/* A plain <div>: Mantine's default <header> would be a second "banner" landmark (as in Dialog.tsx). */}
        <Modal.Header component="div">
          <Modal.Title>{titre}</Modal.Title>
        </Modal.Header>
        <Modal.Body>
          <Stack>{contenu}</Stack>
        </Modal.Body>
      </Modal.Content>
    </Modal.Root>
  );
}
