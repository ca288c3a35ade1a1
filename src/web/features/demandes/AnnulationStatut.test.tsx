// @vitest-environment jsdom
import { Notifications, notifications } from '@mantine/notifications';
import { act, screen } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { renderWithProviders } from '../../test-utils.js';
import { notifierChangement } from './AnnulationStatut.js';

const NUMERO = '013annul0001';

afterEach(() => act(() => notifications.clean()));

/** A change to Refusé whose undo window, as the server measures it, lasts `ms`. */
function changement(id: string, ms: number) {
  renderWithProviders(<Notifications />);
  const updatedAt = '2026-03-01T10:00:00.000Z';
  act(() =>
    notifierChangement(
      'En attente des documents',
      { numeroUnique: NUMERO, statutDeLaDemande: 'Refusé', updatedAt, annulation: { id, jusqua: new Date(Date.parse(updatedAt) + ms).toISOString() } },
      () => undefined,
    ),
  );
}

/** What a screen reader reads of the notice: its text, less what is hidden from it (the ticking seconds). */
async function annonce(): Promise<string> {
  const avis = await screen.findByText((_, element) => element?.tagName === 'P' && /^Statut changé en Refusé/u.test(element.textContent ?? ''));
  const copie = avis.cloneNode(true) as HTMLElement;
  for (const cache of copie.querySelectorAll('[aria-hidden="true"]')) cache.remove();
  return copie.textContent ?? '';
}

describe('the notice of a status change', () => {
  it('says the undo window the server gives, in words', async () => {
    changement('a30', 30_000);
    expect(await annonce()).toBe(`Statut changé en Refusé (demande n° ${NUMERO}). L’e-mail part dans 30 secondes.`);
    // The eyes see the seconds count down.
    expect(screen.getByText((_, element) => element?.tagName === 'SPAN' && element.textContent === '30\u00a0s')).toHaveAttribute('aria-hidden', 'true');
  });

  it('in the singular for one second', async () => {
    changement('a1', 1000);
    expect(await annonce()).toBe(`Statut changé en Refusé (demande n° ${NUMERO}). L’e-mail part dans 1 seconde.`);
  });

  it('the default 10 seconds when the server’s answer makes no sense', async () => {
    changement('a0', -5000);
    expect(await annonce()).toBe(`Statut changé en Refusé (demande n° ${NUMERO}). L’e-mail part dans 10 secondes.`);
  });
});

describe('the notice of a status change, from the keyboard', () => {
  it('Tab out of the notice goes on from the row’s select; Shift+Tab from « Annuler » goes back to it', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <input aria-label="Statut de la demande" />
        <input type="checkbox" aria-label="Choisir la demande suivante" />
        <Notifications />
      </>,
    );
    const select = screen.getByRole('textbox', { name: 'Statut de la demande' });
    const updatedAt = '2026-03-01T10:00:00.000Z';
    act(() =>
      notifierChangement(
        'En attente des documents',
        { numeroUnique: NUMERO, statutDeLaDemande: 'Refusé', updatedAt, annulation: { id: 'a-clavier', jusqua: new Date(Date.parse(updatedAt) + 10_000).toISOString() } },
        () => select,
      ),
    );
    const annuler = await screen.findByRole('button', { name: /^Annuler/u });
    annuler.focus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'Fermer la notification' })).toHaveFocus();
    await user.tab();
    expect(screen.getByRole('checkbox', { name: 'Choisir la demande suivante' })).toHaveFocus();

    annuler.focus();
    await user.tab({ shift: true });
    expect(select).toHaveFocus();
  });
});

