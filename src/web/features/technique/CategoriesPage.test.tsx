// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CategorieGestion } from '../../../domain/signalements.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { CategoriesPage } from './CategoriesPage.js';

const { calls, answers } = recordFetch();
const ADMIN = { uid: 'a1', nom: 'Mairie', prenom: 'Alex', userType: 'admin' };
let categories: CategorieGestion[];

beforeEach(() => {
  categories = [
    { code: 'voirie', libelle: 'Voirie', description: 'Trous, trottoirs', active: true, emailService: 'voirie@mairie.example', rang: 0, signalements: 3 },
    { code: 'autre', libelle: 'Autre', description: '', active: true, emailService: null, rang: 1, signalements: 0 },
  ];
  answers['GET /app/api/user/me'] = { status: 200, body: { data: ADMIN } };
  answers['GET /app/api/technique/categories/admin'] = () => ({ status: 200, body: { data: categories } });
});

const page = () => renderWithProviders(<CategoriesPage />, { url: '/admin/categories' });

describe('/admin/categories', () => {
  it('is reserved to admins', async () => {
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { ...ADMIN, userType: 'manager' } } };
    page();
    expect(await screen.findByRole('heading', { level: 1, name: 'Accès réservé' })).toBeInTheDocument();
    expect(calls.some((c) => c.url.includes('/categories/admin'))).toBe(false);
  });

  it('adds a category with its service’s e-mail, and says so', async () => {
    answers['POST /app/api/technique/categories/admin'] = ({ body }) => {
      categories = [...categories, { ...(body as CategorieGestion), code: 'bruit', rang: 2, signalements: 0 }];
      return { status: 201, body: { data: categories.at(-1) } };
    };
    page();
    const nouvelle = await screen.findByRole('form', { name: 'Nouvelle catégorie' });
    const user = userEvent.setup();
    await user.type(within(nouvelle).getByRole('textbox', { name: /^Nom/u }), 'Bruit');
    await user.type(within(nouvelle).getByRole('textbox', { name: /^E-mail du service/u }), 'bruit@mairie.example');
    await user.click(within(nouvelle).getByRole('button', { name: 'Ajouter la catégorie' }));
    expect(await screen.findByText('La catégorie « Bruit » est ajoutée.')).toHaveFocus();
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ libelle: 'Bruit', description: '', emailService: 'bruit@mairie.example', active: true });
    expect(await screen.findByRole('form', { name: 'Bruit' })).toBeInTheDocument();
  });

  it('stops offering a used category (no delete), deletes an unused one, and shows a refusal as an alert', async () => {
    answers['PUT /app/api/technique/categories/admin/voirie'] = { status: 400, body: { error: { code: 'VALIDATION', message: 'L’adresse e-mail du service n’est pas valable.' } } };
    answers['DELETE /app/api/technique/categories/admin/autre'] = () => new Response(null, { status: 204 });
    page();
    const voirie = await screen.findByRole('form', { name: 'Voirie' });
    expect(voirie).toHaveTextContent('3 signalements');
    expect(within(voirie).queryByRole('button', { name: /Supprimer/u })).not.toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(within(voirie).getByRole('checkbox', { name: 'Proposée aux habitants' }));
    await user.click(within(voirie).getByRole('button', { name: 'Enregistrer' }));
    expect(await within(voirie).findByRole('alert')).toHaveTextContent('L’adresse e-mail du service n’est pas valable.');
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ libelle: 'Voirie', description: 'Trous, trottoirs', emailService: 'voirie@mairie.example', active: false });

    categories = categories.slice(0, 1);
    await user.click(screen.getByRole('button', { name: 'Supprimer la catégorie « Autre »' }));
    expect(await screen.findByText('La catégorie « Autre » est supprimée.')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'DELETE' && c.url === '/app/api/technique/categories/admin/autre')).toBe(true);
  });
});
