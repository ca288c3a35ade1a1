// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { listeQuerySchema } from '../../../domain/demande.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { ExportDemandes } from './ExportDemandes.js';

const { answers, calls } = recordFetch();
afterEach(() => localStorage.clear());

async function ouvrir() {
  renderWithProviders(<ExportDemandes params={listeQuerySchema.parse({})} />);
  const user = userEvent.setup();
  await user.click(screen.getByRole('button', { name: 'Exporter…' }));
  return { user, dialog: await screen.findByRole('dialog', { name: 'Exporter la liste' }) };
}

describe('« Exporter… »', () => {
  it('counts the chosen columns with the French plural, 0 and 1 in the singular', async () => {
    answers['GET /app/api/exports/journal'] = { status: 200, body: { data: [] } };
    localStorage.setItem('qv-export-colonnes', JSON.stringify(['numeroUnique', 'statutDeLaDemande']));
    const { user, dialog } = await ouvrir();
    expect(within(dialog).getByRole('link', { name: 'Télécharger (2 colonnes)' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Statut' }));
    expect(within(dialog).getByRole('link', { name: 'Télécharger (1 colonne)' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Numéro unique' }));
    expect(within(dialog).getByRole('link', { name: 'Télécharger (0 colonne)' })).toBeInTheDocument();
  });

  it('offers the desk’s own columns in « Instruction », sends them in `colonnes=` and keeps them on the device', async () => {
    answers['GET /app/api/exports/journal'] = { status: 200, body: { data: [] } };
    localStorage.setItem('qv-export-colonnes', JSON.stringify(['numeroUnique']));
    const { user, dialog } = await ouvrir();
    const groupe = within(dialog).getByRole('group', { name: 'Instruction' });
    expect(within(groupe).getAllByRole('checkbox').map((c) => c.closest('.mantine-Checkbox-root')?.textContent)).toEqual([
      'Valide jusqu’au',
      'Corrections',
      'Étiquettes',
      'Suivie par',
    ]);
    // Checked in any order, sent in the export's own order.
    for (const nom of ['Suivie par', 'Étiquettes', 'Corrections', 'Valide jusqu’au']) await user.click(within(groupe).getByRole('checkbox', { name: nom }));
    const lien = within(dialog).getByRole('link', { name: 'Télécharger (5 colonnes)' });
    expect(lien.getAttribute('href')).toMatch(/^\/app\/api\/logement\/export\.xlsx\?.*colonnes=numeroUnique,valideJusqua,correction,etiquettes,suiviePar$/u);
    expect(JSON.parse(localStorage.getItem('qv-export-colonnes')!)).toEqual(['numeroUnique', 'valideJusqua', 'correction', 'etiquettes', 'suiviePar']);
  });

  it('restores kept desk columns on the next opening', async () => {
    answers['GET /app/api/exports/journal'] = { status: 200, body: { data: [] } };
    localStorage.setItem('qv-export-colonnes', JSON.stringify(['nom', 'suiviePar']));
    const { dialog } = await ouvrir();
    expect(within(dialog).getByRole('checkbox', { name: 'Suivie par' })).toBeChecked();
    expect(within(dialog).getByRole('checkbox', { name: 'Étiquettes' })).not.toBeChecked();
    expect(within(dialog).getByRole('link', { name: 'Télécharger (2 colonnes)' }).getAttribute('href')).toMatch(/colonnes=nom,suiviePar$/u);
  });

  it('shows « Derniers exports »: when, who, the format and the columns, the five latest', async () => {
    const ligne = (i: number, format: 'csv' | 'xlsx' | null, colonnes: number | null) => ({ par: `Agent ${i}`, le: `2025-05-12T08:0${i}:00.000Z`, format, colonnes });
    answers['GET /app/api/exports/journal'] = {
      status: 200,
      body: { data: [ligne(6, 'xlsx', 6), ligne(5, 'csv', 1), ligne(4, null, null), ligne(3, 'csv', 15), ligne(2, 'csv', 15), ligne(1, 'xlsx', 2)] },
    };
    const { dialog } = await ouvrir();
    const section = within(dialog).getByRole('region', { name: 'Derniers exports' });
    const items = await within(section).findAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      '12/05/2025 10:06 — Agent 6 — Excel (.xlsx), 6 colonnes',
      '12/05/2025 10:05 — Agent 5 — CSV, 1 colonne',
      '12/05/2025 10:04 — Agent 4',
      '12/05/2025 10:03 — Agent 3 — CSV, 15 colonnes',
      '12/05/2025 10:02 — Agent 2 — CSV, 15 colonnes',
    ]);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toContain('GET /app/api/exports/journal');
  });

  it('says when there is none yet', async () => {
    answers['GET /app/api/exports/journal'] = { status: 200, body: { data: [] } };
    const { dialog } = await ouvrir();
    expect(await within(dialog).findByText('Aucun export pour le moment.')).toBeInTheDocument();
  });

  it('says when the latest exports could not be read, the export itself still offered', async () => {
    answers['GET /app/api/exports/journal'] = { status: 500, body: { error: { code: 'INTERNAL', message: 'Une erreur inattendue est survenue.' } } };
    const { dialog } = await ouvrir();
    expect(await within(dialog).findByText('Les derniers exports n’ont pas pu être chargés.')).toBeInTheDocument();
    expect(within(dialog).getByRole('link', { name: /^Télécharger/u })).toBeInTheDocument();
  });
});
