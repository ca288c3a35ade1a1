import { Button, Group, Text, VisuallyHidden } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { StatutChange } from '../../../domain/demande.js';
import { pluriel } from '../../../domain/pluriel.js';
import type { Statut } from '../../../domain/statut.js';
import { errorMessage } from '../../lib/api.js';
import { useAnnulationStatut } from './api.js';

/** The undo window the server gives when its answer does not say (docs/api.md: 10 s). */
const DELAI_PAR_DEFAUT_MS = 10_000;
/** How long the notification stays once the change is undone. */
const APRES_ANNULATION_MS = 6_000;

/**
 * The « Annuler » button of each request's pending change, by numéro: Tab on the row's status select goes
 * straight to it (the notification sits at the end of the page, after every row).
 */
const boutonsAnnuler = new Map<string, HTMLButtonElement>();

/** Moves the focus to the pending « Annuler » of this request; false when there is none. */
export function focusAnnuler(numeroUnique: string): boolean {
  const bouton = boutonsAnnuler.get(numeroUnique);
  if (!bouton?.isConnected) return false;
  bouton.focus();
  return true;
}

const TABULABLES = 'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]';

/** The elements Tab goes through inside `racine`, in their order. */
function tabulables(racine: HTMLElement): HTMLElement[] {
  return [...racine.querySelectorAll<HTMLElement>(TABULABLES)].filter((el) => el.tabIndex >= 0);
}

/**
 * The keyboard's way out of the notice, which sits after every row at the end of the page (Tab from the row's select
 * leads into it): Tab from its last button goes on from the select, to what follows it in the list; Shift+Tab from
 * its first goes back to the select. Before, the next Tab fell on the page's end and started again from its top.
 */
function sortieAuClavier(event: KeyboardEvent<HTMLDivElement>, select: () => HTMLElement | undefined): void {
  if (event.key !== 'Tab') return;
  const avis = event.currentTarget;
  const dedans = tabulables(avis);
  const ligne = select();
  if (!ligne?.isConnected || dedans.length === 0) return;
  if (!event.shiftKey && document.activeElement === dedans.at(-1)) {
    const suivant = tabulables(document.body).find((el) => !avis.contains(el) && ligne.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING);
    if (!suivant) return;
    event.preventDefault();
    suivant.focus();
  } else if (event.shiftKey && document.activeElement === dedans[0]) {
    event.preventDefault();
    ligne.focus();
  }
}

/**
 * After a status change: « Statut changé en Refusé. L’e-mail part dans 10 s. [Annuler] », counting down
 * until the e-mail leaves (a Mantine notification, announced politely to screen readers with the server's delay,
 * « dans 30 secondes »).
 * `select`: the row's status select, which gets the focus back when the button it was on goes away.
 */
export function notifierChangement(ancien: Statut, retour: StatutChange, select: () => HTMLElement | undefined): void {
  const focusSelect = () => select()?.focus();
  const { annulation, numeroUnique, statutDeLaDemande } = retour;
  if (!annulation) {
    notifications.show({
      message: `La demande n° ${numeroUnique} avait déjà le statut « ${statutDeLaDemande} ».`,
      role: 'status',
      'aria-live': 'polite',
      autoClose: 5000,
      closeButtonProps: { 'aria-label': 'Fermer la notification' },
    });
    return;
  }
  // Measured on the server's own clock (change time → jusqua), then counted on ours: no clock skew.
  const mesure = Date.parse(annulation.jusqua) - Date.parse(retour.updatedAt);
  const delai = mesure > 0 && mesure <= 60_000 ? mesure : DELAI_PAR_DEFAUT_MS;
  const fin = Date.now() + delai;
  const id = `statut-${annulation.id}`;
  notifications.show({
    id,
    message: (
      <ChangementEnAttente
        notificationId={id}
        numeroUnique={numeroUnique}
        ancien={ancien}
        nouveau={statutDeLaDemande}
        annulationId={annulation.id}
        fin={fin}
        delai={delai}
        focusSelect={focusSelect}
      />
    ),
    role: 'status',
    'aria-live': 'polite',
    autoClose: false,
    color: 'blue',
    onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => sortieAuClavier(event, select),
    closeButtonProps: { 'aria-label': 'Fermer la notification' },
  });
}

function secondesRestantes(fin: number): number {
  return Math.max(0, Math.ceil((fin - Date.now()) / 1000));
}

function ChangementEnAttente({
  notificationId,
  numeroUnique,
  ancien,
  nouveau,
  annulationId,
  fin,
  delai,
  focusSelect,
}: {
  notificationId: string;
  numeroUnique: string;
  ancien: Statut;
  nouveau: Statut;
  annulationId: string;
  fin: number;
  /** The undo window, in ms: said once, in words, to screen readers. */
  delai: number;
  focusSelect: () => void;
}) {
  const [secondes, setSecondes] = useState(() => secondesRestantes(fin));
  const [etat, setEtat] = useState<'attente' | 'annule' | 'erreur'>('attente');
  const [erreur, setErreur] = useState('');
  const annulation = useAnnulationStatut();
  const boutonRef = useRef<HTMLButtonElement>(null);

  // Tab from the row's select reaches this button while the change can be undone.
  useEffect(() => {
    const bouton = boutonRef.current;
    if (etat !== 'attente' || !bouton) return;
    boutonsAnnuler.set(numeroUnique, bouton);
    return () => {
      if (boutonsAnnuler.get(numeroUnique) === bouton) boutonsAnnuler.delete(numeroUnique);
    };
  }, [etat, numeroUnique]);

  // The countdown; at 0 the e-mail leaves and the notification goes (the focus back on the select).
  useEffect(() => {
    if (etat !== 'attente') return;
    const timer = window.setInterval(() => {
      const restant = secondesRestantes(fin);
      setSecondes(restant);
      if (restant === 0 && !annulation.isPending) {
        window.clearInterval(timer);
        if (boutonRef.current && boutonRef.current === document.activeElement) focusSelect();
        notifications.hide(notificationId);
      }
    }, 250);
    return () => window.clearInterval(timer);
  }, [etat, fin, notificationId, focusSelect, annulation.isPending]);

  useEffect(() => {
    if (etat !== 'annule') return;
    const timer = window.setTimeout(() => notifications.hide(notificationId), APRES_ANNULATION_MS);
    return () => window.clearTimeout(timer);
  }, [etat, notificationId]);

  function annuler() {
    const avaitLeFocus = boutonRef.current === document.activeElement;
    annulation.mutate(annulationId, {
      onSuccess: () => setEtat('annule'),
      onError: (e) => {
        setErreur(errorMessage(e, "Le changement n’a pas pu être annulé."));
        setEtat('erreur');
      },
      // The button goes: the focus returns to the row's select.
      onSettled: () => {
        if (avaitLeFocus) focusSelect();
      },
    });
  }

  if (etat === 'annule') {
    return (
      <Text size="sm">
        Changement annulé : la demande n° {numeroUnique} est de nouveau « {ancien} ». Aucun e-mail n’est envoyé.
      </Text>
    );
  }
  if (etat === 'erreur') {
    return (
      <Text size="sm" c="red.8" fw={500}>
        Demande n° {numeroUnique} : le changement en « {nouveau} » n’est pas annulé. {erreur}
      </Text>
    );
  }
  return (
    <Group justify="space-between" align="center" gap="sm" wrap="nowrap">
      <Text size="sm">
        Statut changé en <strong>{nouveau}</strong> (demande n° {numeroUnique}). L’e-mail part dans{' '}
        {/* The live region reads the sentence once; the ticking seconds are for the eyes only. */}
        <span aria-hidden="true" style={{ whiteSpace: 'nowrap' }}>
          {secondes}&nbsp;s
        </span>
        <VisuallyHidden>{pluriel(Math.ceil(delai / 1000), 'seconde', 'secondes')}</VisuallyHidden>.
      </Text>
      <Button
        ref={boutonRef}
        size="xs"
        variant="filled"
        style={{ flexShrink: 0 }}
        onClick={annuler}
        loading={annulation.isPending}
        aria-label={`Annuler le changement de statut de la demande n° ${numeroUnique}`}
        onKeyDown={(e) => {
          // Shift+Tab goes back to the row it came from.
          if (e.key === 'Tab' && e.shiftKey) {
            e.preventDefault();
            focusSelect();
          }
        }}
      >
        Annuler
      </Button>
    </Group>
  );
}
