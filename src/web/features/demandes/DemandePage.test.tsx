// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query';
import { act, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { EvenementStatut } from '../../../domain/demande.js';
import { STATUT_EXPLICATIONS, type Statut } from '../../../domain/statut.js';
import { cles } from '../../lib/queryKeys.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { DemandePage } from './DemandePage.js';

const NUMERO = '013abc12345';
let statut: Statut;
let historique: EvenementStatut[];
const { answers } = recordFetch();

beforeEach(() => {
  answers[`GET /app/api/logement/${NUMERO}`] = () => ({
    status: 200,
    body: { data: { acces: 'statut', numeroUnique: NUMERO, statutDeLaDemande: statut, dateDEnregistrement: '2026-01-05T10:00:00.000Z' } },
  });
  answers[`GET /app/api/logement/${NUMERO}/historique`] = () => ({ status: 200, body: { data: historique } });
  answers['GET /app/api/user/me'] = { status: 401, body: { error: { code: 'UNAUTHORIZED', message: 'Connectez-vous.' } } };
  vi.stubGlobal(
    'EventSource',
    class {
      static readonly CLOSED = 2;
      readyState = 0;
      addEventListener() {}
      close() {}
    },
  );
});

function page() {
  return renderWithProviders(<DemandePage />, { url: `/logement/${NUMERO}`, path: '/logement/:numeroUnique' });
}

describe('the request page', () => {
  it('keeps the page when a reload fails (a weak signal), and says so above it', async () => {
    statut = 'Passage CAL';
    historique = [{ de: null, vers: 'En attente des documents', date: '2026-01-05T10:00:00.000Z' }];
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderWithProviders(<DemandePage />, { url: `/logement/${NUMERO}`, path: '/logement/:numeroUnique', queryClient: client });
    expect(await screen.findByText('Étape 5 sur 6 : Passage CAL')).toBeInTheDocument();
    answers[`GET /app/api/logement/${NUMERO}`] = { status: 503, body: { error: { code: 'INDISPONIBLE', message: 'Le service est momentanément indisponible.' } } };
    await act(() => client.invalidateQueries({ queryKey: cles.demande(NUMERO) }));
    expect(await screen.findByText('La demande n’a pas pu être mise à jour')).toBeInTheDocument();
    expect(screen.getByText('Étape 5 sur 6 : Passage CAL')).toBeInTheDocument();
  });

  it('explains the current status to the applicant, in plain text', async () => {
    statut = 'Passage CAL';
    historique = [
      { de: null, vers: 'En attente des documents', date: '2026-01-05T10:00:00.000Z' },
      { de: 'En attente des documents', vers: 'Passage CAL', date: '2026-02-05T10:00:00.000Z' },
    ];
    page();
    expect(await screen.findByText('Étape 5 sur 6 : Passage CAL')).toBeInTheDocument();
    expect(screen.getByText(STATUT_EXPLICATIONS['Passage CAL'])).toBeInTheDocument();
  });

  it('shows a refusal with its reason, from the history, and no step', async () => {
    statut = 'Refusé';
    historique = [
      { de: null, vers: 'En attente des documents', date: '2026-01-05T10:00:00.000Z' },
      { de: 'En attente des documents', vers: 'Refusé', date: '2026-02-05T10:00:00.000Z', motif: 'Vos ressources dépassent le plafond.' },
    ];
    page();
    expect(await screen.findByText('Statut : Refusé')).toBeInTheDocument();
    // Beside the status, and in the history below.
    expect(await screen.findAllByText('Motif : Vos ressources dépassent le plafond.')).toHaveLength(2);
    expect(screen.queryByText(/étape à venir/u)).toBeNull();
  });

  it('gives the history as an ordered list, one item a change (RGAA 9.3)', async () => {
    statut = 'Passage CAL';
    historique = [
      { de: null, vers: 'En attente des documents', date: '2026-01-05T10:00:00.000Z' },
      { de: 'En attente des documents', vers: 'En cours de traitement', date: '2026-01-20T10:00:00.000Z' },
      { de: 'En cours de traitement', vers: 'Passage CAL', date: '2026-02-05T10:00:00.000Z', motif: 'Dossier complet.' },
    ];
    page();
    const region = await screen.findByRole('region', { name: 'Historique' });
    const liste = await within(region).findByRole('list');
    expect(liste.tagName).toBe('OL');
    const changements = within(liste).getAllByRole('listitem');
    expect(changements).toHaveLength(3);
    for (const [i, titre] of ['Demande enregistrée : En attente des documents', 'En cours de traitement', 'Passage CAL'].entries()) {
      expect(within(changements[i]!).getByText(titre)).toBeInTheDocument();
    }
    expect(within(changements[2]!).getByText('Motif : Dossier complet.')).toBeInTheDocument();
  });
});
