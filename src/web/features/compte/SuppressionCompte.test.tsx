// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { brouillonDemande } from '../../lib/brouillon.js';
import { getCle, saveCle } from '../../lib/clesDAcces.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { DonneesDuCompte, SuppressionCompte } from './SuppressionCompte.js';

const { answers } = recordFetch();

beforeEach(() => {
  // Only the numbers are read, to link each request.
  answers['GET /app/api/logement/mine'] = { status: 200, body: { data: [{ numeroUnique: '013041226000000000001' }] } };
});

async function ouvrir() {
  const user = userEvent.setup();
  renderWithProviders(<SuppressionCompte />);
  await user.click(screen.getByRole('button', { name: 'Supprimer mon compte…' }));
  return { user, boite: await screen.findByRole('dialog', { name: 'Supprimer votre compte ?' }) };
}

describe('« Télécharger mes données »', () => {
  it('says in French why the download failed (a session ended), instead of saving the error as a file', async () => {
    answers['GET /app/api/compte/export.zip'] = { status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'Connectez-vous pour continuer.' } } };
    const user = userEvent.setup();
    renderWithProviders(<DonneesDuCompte />);
    await user.click(screen.getByRole('button', { name: 'Télécharger mes données (zip)' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Connectez-vous pour continuer.');
  });
});

describe('« Supprimer mon compte » (RGAA 7.5)', () => {
  it('says that the housing requests stay as a note, not an alert, with a link to each', async () => {
    const { boite } = await ouvrir();
    const note = await within(boite).findByRole('note', { name: 'Vos demandes de logement restent enregistrées' });
    expect(within(note).getByRole('link', { name: 'Demande n° 013041226000000000001' })).toHaveAttribute('href', '/logement/013041226000000000001');
    expect(within(boite).queryByRole('alert')).toBeNull();
  });

  it('forgets, once the account is deleted, the private keys and the draft kept on this device', async () => {
    saveCle('013041226000000000001', 'cle-secrete', true);
    brouillonDemande.ecrire({ prenom: 'Hélène' });
    answers['POST /app/api/user/me/supprimer'] = { status: 200, body: { data: { message: 'Votre compte est supprimé.' } } };
    const { user, boite } = await ouvrir();
    await user.click(within(boite).getByRole('button', { name: 'Supprimer définitivement' }));
    await waitFor(() => expect(getCle('013041226000000000001')).toBeUndefined());
    expect(brouillonDemande.lire()).toBeNull();
  });

  it('keeps the alert for a refusal', async () => {
    answers['POST /app/api/user/me/supprimer'] = { status: 500, body: { error: { code: 'INTERNAL', message: 'Le compte n’a pas pu être supprimé.' } } };
    const { user, boite } = await ouvrir();
    await user.click(within(boite).getByRole('button', { name: 'Supprimer définitivement' }));
    expect(await within(boite).findByRole('alert')).toHaveTextContent('Le compte n’a pas pu être supprimé.');
  });
});
