// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Gestionnaire, SuiviVue } from '../../../domain/instruction.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { Instruction } from './Instruction.js';

const { answers, calls } = recordFetch();

const GESTIONNAIRES: Gestionnaire[] = [
  { id: 'g1', nom: 'Alex Dupont' },
  { id: 'g2', nom: 'Camille Martin' },
  { id: 'g3', nom: 'Samir Haddad' },
];

/** The request's « Suivie par », as the server holds it: « Confier à… » changes it. */
let suivi: SuiviVue;

beforeEach(() => {
  suivi = { suiviePar: { id: 'g3', nom: 'Samir Haddad' }, moi: false };
  answers['GET /app/api/logement/013confie01/suivi'] = () => ({ status: 200, body: { data: suivi } });
  answers['GET /app/api/logement/013confie01/notes'] = { status: 200, body: { data: [] } };
  answers['GET /app/api/logement/013confie01/journal'] = { status: 200, body: { data: [] } };
  answers['GET /app/api/logement/013confie01/etiquettes'] = { status: 200, body: { data: [] } };
  answers['GET /app/api/etiquettes'] = { status: 200, body: { data: [] } };
  answers['GET /app/api/gestionnaires'] = { status: 200, body: { data: GESTIONNAIRES } };
  answers['GET /app/api/user/me'] = { status: 200, body: { data: { uid: 'g1', prenom: 'Alex', nom: 'Dupont', userType: 'manager' } } };
  answers['POST /app/api/logement/013confie01/confier'] = (call) => {
    const choisi = GESTIONNAIRES.find((g) => g.id === (call.body as { gestionnaireId: string }).gestionnaireId)!;
    suivi = { suiviePar: choisi, moi: choisi.id === 'g1' };
    return { status: 200, body: { data: suivi } };
  };
});

const suiviePar = () => screen.getByText('Suivie par :', { selector: 'strong' }).parentElement!;

async function ouvrir() {
  renderWithProviders(<Instruction numero="013confie01" />);
  const user = userEvent.setup();
  await waitFor(() => expect(suiviePar()).toHaveTextContent('Suivie par : Samir Haddad'));
  const bouton = screen.getByRole('button', { name: 'Confier à…' });
  await user.click(bouton);
  const dialog = await screen.findByRole('dialog', { name: 'Confier la demande à un collègue' });
  return { user, bouton, dialog };
}

describe('« Confier à… » on the request’s page', () => {
  it('gives the request to the colleague chosen: « Suivie par » names them, said in words, the focus back on the button', async () => {
    const { user, bouton, dialog } = await ouvrir();
    const choix = within(dialog).getByRole('combobox', { name: 'Gestionnaire' });
    await waitFor(() => expect(choix).toHaveFocus());
    // The managers by name, the one who follows it left out, oneself said.
    await waitFor(() => expect(within(choix).getAllByRole('option').map((o) => o.textContent)).toEqual(['Choisir…', 'Alex Dupont (vous)', 'Camille Martin']));
    await user.selectOptions(choix, 'Camille Martin');
    const journalsAvant = calls.filter((c) => c.url.endsWith('/journal')).length;
    await user.click(within(dialog).getByRole('button', { name: 'Confier' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')).toEqual({ url: '/app/api/logement/013confie01/confier', method: 'POST', body: { gestionnaireId: 'g2' } });
    expect(suiviePar()).toHaveTextContent('Suivie par : Camille Martin');
    expect(screen.getByText('Demande confiée à Camille Martin ; un e-mail l’en informe.').closest('[role="status"]')).not.toBeNull();
    // The journal is read again (its new line), and the focus is back where it was.
    await waitFor(() => expect(calls.filter((c) => c.url.endsWith('/journal')).length).toBeGreaterThan(journalsAvant));
    await waitFor(() => expect(bouton).toHaveFocus());
  });

  it('asks for a colleague before sending anything', async () => {
    const { user, dialog } = await ouvrir();
    await user.click(within(dialog).getByRole('button', { name: 'Confier' }));
    expect(within(dialog).getByRole('combobox', { name: 'Gestionnaire' })).toHaveAccessibleDescription('Choisissez le gestionnaire à qui confier la demande.');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('says the server’s refusal in the dialog, and changes nothing', async () => {
    const message = 'Ce compte n’est pas (ou plus) celui d’un gestionnaire : choisissez un collègue dans la liste.';
    answers['POST /app/api/logement/013confie01/confier'] = { status: 400, body: { error: { code: 'GESTIONNAIRE_INCONNU', message } } };
    const { user, dialog } = await ouvrir();
    const choix = within(dialog).getByRole('combobox', { name: 'Gestionnaire' });
    await waitFor(() => expect(within(choix).getAllByRole('option')).toHaveLength(3));
    await user.selectOptions(choix, 'Camille Martin');
    await user.click(within(dialog).getByRole('button', { name: 'Confier' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
    expect(suiviePar()).toHaveTextContent('Suivie par : Samir Haddad');
  });
});
