// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { MaDemande } from '../../../domain/demande.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { DemandesAccueilPage } from './DemandesAccueilPage.js';

const { answers } = recordFetch();

const MES_DEMANDES: MaDemande[] = [
  { acces: 'statut', numeroUnique: '013mes000001', statutDeLaDemande: 'En cours de traitement', dateDEnregistrement: '2026-10-02T09:00:00.000Z', correction: 'demandee' },
  { acces: 'statut', numeroUnique: '013mes000002', statutDeLaDemande: 'En attente', dateDEnregistrement: '2026-09-01T09:00:00.000Z', correction: 'faite' },
  { acces: 'statut', numeroUnique: '013mes000003', statutDeLaDemande: 'Passage CAL', dateDEnregistrement: '2026-08-01T09:00:00.000Z', correction: null },
  // Refused while corrections were asked: the request waits for nothing more (its correction stays open for the desk).
  { acces: 'statut', numeroUnique: '013mes000004', statutDeLaDemande: 'Refusé', dateDEnregistrement: '2026-07-01T09:00:00.000Z', correction: 'demandee' },
];

beforeEach(() => {
  answers['GET /app/api/user/me'] = { status: 200, body: { data: { uid: 'u1', userType: 'habitant', prenom: 'Lucas', nom: 'Garcia', email: 'lucas@example.org' } } };
  answers['GET /app/api/logement/mine'] = { status: 200, body: { data: MES_DEMANDES } };
});

describe('« Mes demandes »', () => {
  it('says which of one’s requests the town hall awaits corrections for, and only those', async () => {
    renderWithProviders(<DemandesAccueilPage />);
    const mes = await screen.findByRole('region', { name: 'Mes demandes' });
    const items = await within(mes).findAllByRole('listitem');
    expect(items).toHaveLength(4);
    expect(within(items[0]!).getByText('Corrections demandées')).toBeInTheDocument();
    expect(within(items[1]!).queryByText(/Corrections/u)).toBeNull();
    expect(within(items[2]!).queryByText(/Corrections/u)).toBeNull();
    expect(within(items[3]!).queryByText(/Corrections/u)).toBeNull();
    expect(within(mes).getAllByText('Corrections demandées')).toHaveLength(1);
  });
});
