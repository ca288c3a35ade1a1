import { Select } from '@mantine/core';
import type { Ref } from 'react';
import type { LigneDemande } from '../../../domain/demande.js';
import { STATUT_COULEUR_TEXTE, STATUT_COULEURS, STATUTS, type Statut } from '../../../domain/statut.js';
import { focusAnnuler } from './AnnulationStatut.js';

/**
 * A request's status on the managers' list, in its colour, changed only by an explicit choice (RGAA 7.4): a
 * list box (combobox) whose arrows move through the options and open nothing, until a click or Enter chooses
 * one. A native select would not do: on Windows, the arrows on a closed one fire `change` for every option
 * they cross, each a status change (and its e-mail) or a confirmation dialog.
 * Named « Statut de la demande n° … » in the table and on a card alike; `label` shows a visible one (a card's).
 */
export function StatutDeLigne({
  ligne,
  label,
  onChoisir,
  inputRef,
  miw,
}: {
  ligne: LigneDemande;
  label?: string;
  onChoisir: (statut: Statut) => void;
  inputRef: Ref<HTMLInputElement>;
  miw?: string;
}) {
  const { numeroUnique, statutDeLaDemande } = ligne;
  return (
    <Select
      ref={inputRef}
      label={label}
      miw={miw}
      aria-label={`Statut de la demande n° ${numeroUnique}`}
      data={STATUTS}
      value={statutDeLaDemande}
      onChange={(statut) => {
        if (statut && statut !== statutDeLaDemande) onChoisir(statut as Statut);
      }}
      // Choosing the current status again keeps it (Mantine would clear the field).
      allowDeselect={false}
      // Every status shows at once, none behind a scroll.
      withScrollArea={false}
      onKeyDown={(e) => {
        // Tab goes to the « Annuler » of this request's change while it can be undone.
        if (e.key === 'Tab' && !e.shiftKey && focusAnnuler(numeroUnique)) e.preventDefault();
      }}
      chevronColor={STATUT_COULEUR_TEXTE}
      styles={{ input: { background: STATUT_COULEURS[statutDeLaDemande], color: STATUT_COULEUR_TEXTE, fontWeight: 600 } }}
      data-statut={statutDeLaDemande}
    />
  );
}
