// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { Link, Route, Routes } from 'react-router';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { recordFetch, renderWithProviders } from '../test-utils.js';
import { Layout } from './Layout.js';

const { answers } = recordFetch();

beforeEach(() => {
  answers['GET /app/api/user/me'] = { status: 401, body: { error: { code: 'UNAUTHENTICATED', message: 'Connectez-vous.' } } };
});

describe('the footer of every page', () => {
  it('holds, outside <main>, a navigation named « Informations sur le site »: the site map and the legal pages', () => {
    renderWithProviders(
      <Routes>
        <Route element={<Layout />}>
          <Route path="/" element={<p>Accueil</p>} />
        </Route>
      </Routes>,
    );
    const pied = screen.getByRole('contentinfo');
    expect(screen.getByRole('main')).not.toContainElement(pied);
    const liens = within(pied).getByRole('navigation', { name: 'Informations sur le site' });
    expect(within(liens).getAllByRole('link').map((a) => `${a.textContent} → ${a.getAttribute('href')}`)).toEqual([
      'Plan du site → /plan-du-site',
      'Données personnelles → /donnees-personnelles',
      'Mentions légales → /mentions-legales',
      'Accessibilité : non conforme → /accessibilite',
    ]);
  });
});

describe('a change of page', () => {
  it('takes the window to the top of the new page and the focus to its content', async () => {
    const scrollTo = vi.fn<(options: ScrollToOptions) => void>();
    window.scrollTo = scrollTo as unknown as typeof window.scrollTo;
    const user = userEvent.setup();
    renderWithProviders(
      <Routes>
        <Route element={<Layout />}>
          <Route path="/" element={<Link to="/suite">Voir la suite</Link>} />
          <Route path="/suite" element={<h1>La suite</h1>} />
        </Route>
      </Routes>,
    );
    expect(scrollTo).not.toHaveBeenCalled();
    await user.click(screen.getByRole('link', { name: 'Voir la suite' }));
    expect(await screen.findByRole('heading', { name: 'La suite' })).toBeInTheDocument();
    expect(document.activeElement).toBe(document.getElementById('contenu'));
    expect(scrollTo).toHaveBeenCalledWith({ top: 0 });
  });
});
