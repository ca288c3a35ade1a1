// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { listeQuerySchema } from '../../../domain/demande.js';
import type { EtatLot } from '../../../domain/lots.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { Instruction } from './Instruction.js';
import { BarreDeLot } from './LotDemandes.js';

const { answers, calls } = recordFetch();
let fin: EtatLot;

/** Follows `numeros` in one bulk work, which the server starts then says is over as `fin`. */
async function suivre(numeros: string[]) {
  answers['POST /app/api/lots'] = { status: 201, body: { data: { ...fin, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: false } } };
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
    fin = { id: 'lot1', total: 5, faits: 2, inchanges: 1, completes: 0, echecs: 2, fini: true };
    await suivre(['a', 'b', 'c', 'd', 'e']);
    expect(await screen.findByText('Traitement terminé : 2 demandes modifiées, 1 déjà dans cet état, 2 non traitées (retirées ou effacées entre-temps, ou une erreur).')).toBeInTheDocument();
  });

  it('says apart the requests a label addition left as they were, full already', async () => {
    fin = { id: 'lot5', total: 6, faits: 2, inchanges: 1, completes: 3, echecs: 0, fini: true };
    await suivre(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(
      await screen.findByText('Traitement terminé : 2 demandes modifiées, 1 déjà dans cet état, 3 laissées telles quelles (elles portent déjà 10 étiquettes, le maximum).'),
    ).toBeInTheDocument();
  });

  it('reads the count of an instance not yet updated, which does not send « completes » (a rolling deployment)', async () => {
    const { completes: _completes, ...ancien } = { id: 'lot6', total: 5, faits: 2, inchanges: 1, completes: 0, echecs: 0, fini: false };
    fin = ancien as EtatLot;
    await suivre(['a', 'b', 'c', 'd', 'e']);
    expect(await screen.findByText('Traitement en cours : 3 sur 5')).toBeInTheDocument();
  });

  it('says an action cut short by a server stop, and what is left to do', async () => {
    fin = { id: 'lot3', total: 5, faits: 2, inchanges: 0, completes: 0, echecs: 0, fini: true, interrompu: true };
    await suivre(['a', 'b', 'c', 'd', 'e']);
    expect(await screen.findByText('Traitement interrompu par un arrêt du serveur : 2 demandes modifiées ; 3 demandes non traitées : relancez le lot pour elles.')).toBeInTheDocument();
  });

  it('and the singular for 0 and 1', async () => {
    fin = { id: 'lot2', total: 1, faits: 0, inchanges: 0, completes: 0, echecs: 1, fini: true };
    await suivre(['a']);
    expect(await screen.findByText('Traitement terminé : 0 demande modifiée, 1 non traitée (retirée ou effacée entre-temps, ou une erreur).')).toBeInTheDocument();
  });

  it('keeps the count until closed; rows still chosen keep the focus in the bar', async () => {
    fin = { id: 'lot4', total: 2, faits: 2, inchanges: 0, completes: 0, echecs: 0, fini: true };
    await suivre(['a', 'b']);
    const barre = screen.getByRole('region', { name: 'Traitement par lot' });
    expect(await within(barre).findByText('Traitement terminé : 2 demandes modifiées.')).toBeInTheDocument();
    // The close button is out of the live region: only the count is read.
    const fermer = within(barre).getByRole('button', { name: 'Fermer le compte rendu du traitement par lot' });
    expect(within(barre).getByRole('status')).not.toContainElement(fermer);
    await userEvent.setup().click(fermer);
    expect(within(barre).queryByText(/Traitement terminé/u)).toBeNull();
    expect(within(barre).getByRole('combobox', { name: 'Nouveau statut' })).toHaveFocus();
  });
});

describe('bulk « Confier à… »', () => {
  const GESTIONNAIRES = [
    { id: 'g1', nom: 'Alex Dupont' },
    { id: 'g2', nom: 'Camille Martin' },
  ];

  /** The bar over two chosen requests, beside the first one's managers' part (as a manager may have both open). */
  async function ouvrir() {
    let suivi = { suiviePar: null as { id: string; nom: string } | null, moi: false };
    answers['GET /app/api/logement/013lotcf0001/suivi'] = () => ({ status: 200, body: { data: suivi } });
    for (const part of ['notes', 'journal', 'etiquettes']) answers[`GET /app/api/logement/013lotcf0001/${part}`] = { status: 200, body: { data: [] } };
    answers['GET /app/api/etiquettes'] = { status: 200, body: { data: [] } };
    answers['GET /app/api/gestionnaires'] = { status: 200, body: { data: GESTIONNAIRES } };
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { uid: 'g1', prenom: 'Alex', nom: 'Dupont', userType: 'manager' } } };
    answers['POST /app/api/lots'] = (call) => {
      const { action } = call.body as { action: { type: string; gestionnaireId: string } };
      suivi = { suiviePar: GESTIONNAIRES.find((g) => g.id === action.gestionnaireId)!, moi: false };
      return { status: 202, body: { data: { id: 'lotcf', total: 2, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: false } } };
    };
    answers['GET /app/api/lots/lotcf'] = { status: 200, body: { data: { id: 'lotcf', total: 2, faits: 2, inchanges: 0, completes: 0, echecs: 0, fini: true } } };
    renderWithProviders(
      <>
        <BarreDeLot choix={{ mode: 'numeros', numeros: ['013lotcf0001', '013lotcf0002'] }} params={listeQuerySchema.parse({})} page={10} total={20} totalExact onToutLeFiltre={() => {}} onLance={() => {}} />
        <Instruction numero="013lotcf0001" />
      </>,
    );
    const user = userEvent.setup();
    expect(await screen.findByText('personne pour le moment')).toBeInTheDocument();
    await user.click(within(screen.getByRole('region', { name: 'Traitement par lot' })).getByRole('button', { name: 'Confier ces demandes à…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confier 2 demandes à un collègue ?' });
    return { user, dialog };
  }

  it('gives the chosen requests to the colleague chosen in the confirmation; the request then shows « Suivie par Camille Martin »', async () => {
    const { user, dialog } = await ouvrir();
    const choix = within(dialog).getByRole('combobox', { name: 'Gestionnaire' });
    await waitFor(() => expect(choix).toHaveFocus());
    await waitFor(() => expect(within(choix).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choisir…', 'Alex Dupont (vous)', 'Camille Martin']));
    await user.selectOptions(choix, 'Camille Martin');
    expect(within(dialog).getByText(/^Camille Martin suivra ces demandes, à la place du collègue qui en suit peut-être certaines ; un seul e-mail/u)).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Confier' }));

    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ selection: { mode: 'numeros', numeros: ['013lotcf0001', '013lotcf0002'] }, action: { type: 'confier', gestionnaireId: 'g2' } });
    expect(await screen.findByText('Traitement terminé : 2 demandes modifiées.')).toBeInTheDocument();
    // The action's end reads the requests' managers' part again.
    await waitFor(() => expect(screen.getByText('Suivie par :', { selector: 'strong' }).parentElement).toHaveTextContent('Suivie par : Camille Martin'));
  });

  it('asks for a colleague before starting anything', async () => {
    const { user, dialog } = await ouvrir();
    await user.click(within(dialog).getByRole('button', { name: 'Confier' }));
    expect(within(dialog).getByRole('combobox', { name: 'Gestionnaire' })).toHaveAccessibleDescription('Choisissez le gestionnaire à qui confier ces demandes.');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });
});

describe('a bulk confirmation closed with « Annuler »', () => {
  it('leaves nothing for the next one: no former refusal, no reason typed', async () => {
    answers['POST /app/api/lots'] = { status: 409, body: { error: { code: 'LOT_EN_COURS', message: 'Un traitement par lot est déjà en cours : attendez qu’il se termine.' } } };
    renderWithProviders(
      <BarreDeLot choix={{ mode: 'numeros', numeros: ['013lotan0001'] }} params={listeQuerySchema.parse({})} page={10} total={20} totalExact onToutLeFiltre={() => {}} onLance={() => {}} />,
    );
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Suivre ces demandes' }));
    let dialog = await screen.findByRole('dialog', { name: 'Suivre 1 demande ?' });
    await user.click(within(dialog).getByRole('button', { name: 'Suivre' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('déjà en cours');
    await user.click(within(dialog).getByRole('button', { name: 'Annuler' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'Suivre ces demandes' }));
    dialog = await screen.findByRole('dialog', { name: 'Suivre 1 demande ?' });
    expect(within(dialog).queryByRole('alert')).toBeNull();
  });
});
