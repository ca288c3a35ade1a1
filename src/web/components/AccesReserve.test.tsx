// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { usePageTitle } from '../lib/usePageTitle.js';
import { renderWithProviders } from '../test-utils.js';
import { AccesReserve } from './AccesReserve.js';

/** A page that sets its own title, then refuses the person (as ListeDemandesPage, UtilisateursPage, EtiquettesPage do). */
function PageRefusee({ chargee = true }: { chargee?: boolean }) {
  usePageTitle('Toutes les demandes');
  const [refusee, setRefusee] = useState(chargee);
  if (!refusee) return <button onClick={() => setRefusee(true)}>Fin du chargement</button>;
  return <AccesReserve>La liste des demandes est réservée aux gestionnaires de la mairie annexe.</AccesReserve>;
}

beforeEach(() => {
  document.title = '';
});

describe('« Accès réservé »', () => {
  it('says who may see the page as a note, not an alert, and where to go instead', () => {
    renderWithProviders(<PageRefusee />);
    expect(screen.getByRole('heading', { level: 1, name: 'Accès réservé' })).toBeInTheDocument();
    expect(screen.getByRole('note')).toHaveTextContent('La liste des demandes est réservée aux gestionnaires de la mairie annexe.');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Mes demandes de logement' })).toHaveAttribute('href', '/logement');
    expect(screen.getByRole('link', { name: 'Retour à l’accueil' })).toHaveAttribute('href', '/');
  });

  it('has its own title, also when it shows at once with the page that sets another', async () => {
    renderWithProviders(<PageRefusee />);
    await waitFor(() => expect(document.title).toBe('Accès réservé — Quartier Vivant'));
  });

  it('has its own title when it replaces the page’s loading', async () => {
    renderWithProviders(<PageRefusee chargee={false} />);
    await waitFor(() => expect(document.title).toBe('Toutes les demandes — Quartier Vivant'));
    fireEvent.click(screen.getByRole('button', { name: 'Fin du chargement' }));
    await waitFor(() => expect(document.title).toBe('Accès réservé — Quartier Vivant'));
  });
});
