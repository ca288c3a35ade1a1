// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { listeQuerySchema } from '../../../domain/demande.js';
import type { EtatLot } from '../../../domain/lots.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { BarreDeLot } from './LotDemandes.js';

const { answers } = recordFetch();
let fin: EtatLot;

/** Follows `numeros` in one bulk work, which the server starts then says is over as `fin`. */
async function suivre(numeros: string[]) {
  answers['POST /app/api/lots'] = { status: 201, body: { data: { ...fin, faits: 0, inchanges: 0, echecs: 0, fini: false } } };
  answers[`GET /app/api/lots/${fin.id}`] = { status: 200, body: { data: fin } };
  renderWithProviders(
    <BarreDeLot choix={{ mode: 'numeros', numeros }} params={listeQuerySchema.parse({})} page={10} total={20} totalExact onToutLeFiltre={() => {}} onLance={() => {}} />,
  );
  const user = userEvent.setup();
  await user.click(screen.getByRole('button', { name: 'Suivre ces demandes' }));
  const dialog = await screen.findByRole('dialog', { name: numeros.length === 1 ? 'Suivre 1 demande ?' : `Suivre ${numeros.length} demandes ?` });
  await user.click(within(dialog).getByRole('button', { name: 'Suivre' }));
}

describe('bulk work', () => {
  it('says what was done with the French plural', async () => {
    fin = { id: 'lot1', total: 5, faits: 2, inchanges: 1, echecs: 2, fini: true };
    await suivre(['a', 'b', 'c', 'd', 'e']);
    expect(await screen.findByText('Traitement terminé : 2 demandes modifiées, 1 déjà dans cet état, 2 introuvables (retirées ou effacées entre-temps).')).toBeInTheDocument();
  });

  it('says an action cut short by a server stop, and what is left to do', async () => {
    fin = { id: 'lot3', total: 5, faits: 2, inchanges: 0, echecs: 0, fini: true, interrompu: true };
    await suivre(['a', 'b', 'c', 'd', 'e']);
    expect(await screen.findByText('Traitement interrompu par un arrêt du serveur : 2 demandes modifiées ; 3 demandes non traitées : relancez le lot pour elles.')).toBeInTheDocument();
  });

  it('and the singular for 0 and 1', async () => {
    fin = { id: 'lot2', total: 1, faits: 0, inchanges: 0, echecs: 1, fini: true };
    await suivre(['a']);
    expect(await screen.findByText('Traitement terminé : 0 demande modifiée, 1 introuvable (retirée ou effacée entre-temps).')).toBeInTheDocument();
  });
});
