// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CleOpen311 } from '../../../domain/open311.js';
import { recordFetch, renderWithProviders, largeurDeFenetre } from '../../test-utils.js';
import { ClesOpen311Page } from './ClesOpen311Page.js';

const { calls, answers } = recordFetch();
const ADMIN = { uid: 'a1', nom: 'Mairie', prenom: 'Alex', userType: 'admin' };
const CLES = '/app/api/open311/cles';
const VOIRIE = '11111111-1111-4111-8111-111111111111';
const METROPOLE = '22222222-2222-4222-8222-222222222222';
const CLE = 'qv311_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbC';
let cles: CleOpen311[];

beforeEach(() => {
  cles = [
    { id: VOIRIE, libelle: 'Logiciel de la voirie', creePar: 'Alex Mairie', creeLe: '2026-03-02T09:15:00.000Z', revoqueeLe: null, utiliseeLe: '2026-03-04T16:40:00.000Z' },
    {
      id: METROPOLE,
      libelle: 'Application de la Métropole',
      creePar: null,
      creeLe: '2026-01-10T08:00:00.000Z',
      revoqueeLe: '2026-02-01T10:00:00.000Z',
      utiliseeLe: null,
    },
  ];
  answers['GET /app/api/user/me'] = { status: 200, body: { data: ADMIN } };
  answers[`GET ${CLES}`] = () => ({ status: 200, body: { data: cles } });
});

const page = () => renderWithProviders(<ClesOpen311Page />, { url: '/admin/open311' });
const envois = () => calls.filter((c) => c.method === 'POST');


describe('/admin/open311', () => {
  it('is reserved to admins', async () => {
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { ...ADMIN, userType: 'manager' } } };
    page();
    expect(await screen.findByRole('heading', { level: 1, name: 'Accès réservé' })).toBeInTheDocument();
    expect(screen.getByRole('note')).toHaveTextContent('Les clés d’API Open311 sont délivrées par les administrateurs.');
    expect(calls.some((c) => c.url.startsWith(CLES))).toBe(false);
  });

  it('explains Open311 and lists the keys in a table: name, dates, author, last use, state, and a named revoke button for active keys', async () => {
    page();
    expect(await screen.findByRole('heading', { level: 1, name: 'Clés d’API Open311' })).toBeInTheDocument();
    expect(document.title).toBe('Clés d’API Open311 — Quartier Vivant');
    expect(screen.getByRole('link', { name: 'document de découverte Open311' })).toHaveAttribute('href', '/open311/v2/discovery.json');
    expect(screen.getByText(/n’est affichée qu’une fois/u)).toHaveTextContent(/n’en garde qu’une empreinte/u);
    expect(screen.getByText(/n’est affichée qu’une fois/u)).toHaveTextContent(/révoquée est refusée aussitôt/u);

    const table = await screen.findByRole('table', { name: 'Clés d’API Open311, les plus récentes d’abord' });
    expect(within(table).getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Nom', 'Créée le', 'Par', 'Dernière utilisation', 'État', 'Action']);
    const [, voirie, metropole] = within(table).getAllByRole('row');
    const cellules = (ligne: HTMLElement) => within(ligne).getAllByRole('cell').map((td) => td.textContent);
    expect(cellules(voirie!)).toEqual(['Logiciel de la voirie', expect.stringMatching(/^02\/03\/2026/u), 'Alex Mairie', expect.stringMatching(/^04\/03\/2026/u), 'Active', 'Révoquer']);
    expect(cellules(metropole!)).toEqual([
      'Application de la Métropole',
      expect.stringMatching(/^10\/01\/2026/u),
      'un compte supprimé',
      'jamais',
      expect.stringMatching(/^Révoquée le 01\/02\/2026/u),
      '—',
    ]);
    expect(within(voirie!).getByRole('button', { name: 'Révoquer la clé « Logiciel de la voirie »' })).toBeInTheDocument();
    expect(within(metropole!).queryByRole('button')).not.toBeInTheDocument();
  });

  it('shows the keys as cards on a narrow screen, nothing in a table', async () => {
    largeurDeFenetre(375);
    page();
    const liste = await screen.findByRole('list', { name: 'Clés d’API Open311, les plus récentes d’abord' });
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
    const [voirie, metropole] = within(liste).getAllByRole('listitem');
    expect(voirie).toHaveTextContent('Logiciel de la voirie');
    expect(voirie).toHaveTextContent('Dernière utilisation : 04/03/2026');
    expect(within(voirie!).getByRole('button', { name: 'Révoquer la clé « Logiciel de la voirie »' })).toBeInTheDocument();
    expect(metropole).toHaveTextContent('par un compte supprimé');
    expect(metropole).toHaveTextContent('Dernière utilisation : jamais');
    expect(metropole).toHaveTextContent(/Révoquée le 01\/02\/2026/u);
    expect(within(metropole!).queryByRole('button')).not.toBeInTheDocument();
  });

  it('creates a key: shows it once, to copy, and the list is read again with it', async () => {
    const NOUVELLE = '33333333-3333-4333-8333-333333333333';
    answers[`POST ${CLES}`] = ({ body }) => {
      const cle: CleOpen311 = { id: NOUVELLE, libelle: (body as { libelle: string }).libelle.trim(), creePar: 'Alex Mairie', creeLe: '2026-03-05T10:00:00.000Z', revoqueeLe: null, utiliseeLe: null };
      cles = [cle, ...cles];
      return { status: 201, body: { data: { cle, apiKey: CLE } } };
    };
    page();
    await screen.findByRole('table');
    const lectures = calls.filter((c) => c.method === 'GET' && c.url === CLES).length;
    const formulaire = screen.getByRole('form', { name: 'Nouvelle clé' });
    const user = userEvent.setup();
    await user.type(within(formulaire).getByRole('textbox', { name: /^Qui utilisera la clé \?/u }), 'Outil de la propreté');
    await user.click(within(formulaire).getByRole('button', { name: 'Créer la clé' }));

    const titre = await screen.findByRole('heading', { name: 'Clé créée pour « Outil de la propreté »' });
    expect(titre).toHaveFocus();
    const encadre = titre.closest('section')!;
    expect(encadre).toHaveTextContent('Copiez-la maintenant : elle ne sera plus affichée.');
    const champ = within(encadre).getByRole('textbox', { name: 'Clé d’API' });
    expect(champ).toHaveValue(CLE);
    expect(champ).toHaveAttribute('readonly');
    expect(within(encadre).getByRole('button', { name: 'Copier la clé' })).toBeInTheDocument();
    expect(envois()).toEqual([{ url: CLES, method: 'POST', body: { libelle: 'Outil de la propreté' } }]);
    // The form is empty again, and the list holds the new key (read again from the server).
    expect(within(formulaire).getByRole('textbox', { name: /^Qui utilisera la clé \?/u })).toHaveValue('');
    expect(await screen.findByRole('cell', { name: 'Outil de la propreté' })).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'GET' && c.url === CLES).length).toBe(lectures + 1);
    // Shown in the box only: never in the list.
    expect(screen.getByRole('table')).not.toHaveTextContent('qv311_');

    await user.click(within(encadre).getByRole('button', { name: 'J’ai copié la clé' }));
    expect(screen.queryByRole('heading', { name: /^Clé créée/u })).not.toBeInTheDocument();
    expect(screen.queryByDisplayValue(CLE)).not.toBeInTheDocument();
  });

  it('refuses an empty name with the French message and sends nothing; shows the server’s refusal as an alert', async () => {
    page();
    await screen.findByRole('table');
    const formulaire = screen.getByRole('form', { name: 'Nouvelle clé' });
    const champ = within(formulaire).getByRole('textbox', { name: /^Qui utilisera la clé \?/u });
    const user = userEvent.setup();
    await user.type(champ, '   ');
    await user.click(within(formulaire).getByRole('button', { name: 'Créer la clé' }));
    expect(champ).toHaveAccessibleDescription(expect.stringContaining('Dites qui utilisera la clé (par exemple « Logiciel de la voirie »).'));
    expect(champ).toHaveAttribute('aria-invalid', 'true');
    expect(champ).toHaveFocus();
    expect(envois()).toEqual([]);

    answers[`POST ${CLES}`] = { status: 403, body: { error: { code: 'FORBIDDEN', message: 'Cette action est réservée aux administrateurs.' } } };
    await user.type(champ, 'Logiciel');
    await user.click(within(formulaire).getByRole('button', { name: 'Créer la clé' }));
    expect(await within(formulaire).findByRole('alert')).toHaveTextContent('Cette action est réservée aux administrateurs.');
    expect(envois()).toHaveLength(1);
    expect(screen.queryByRole('heading', { name: /^Clé créée/u })).not.toBeInTheDocument();
  });

  it('revokes a key only once confirmed, then says so and shows it revoked', async () => {
    answers[`POST ${CLES}/${VOIRIE}/revoquer`] = () => {
      cles = cles.map((c) => (c.id === VOIRIE ? { ...c, revoqueeLe: '2026-03-05T11:30:00.000Z' } : c));
      return { status: 200, body: { data: cles[0] } };
    };
    page();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Révoquer la clé « Logiciel de la voirie »' }));
    const dialogue = await screen.findByRole('dialog', { name: 'Révoquer la clé « Logiciel de la voirie » ?' });
    expect(dialogue).toHaveTextContent(/refusés aussitôt/u);
    expect(dialogue).toHaveTextContent(/ne peut pas être annulé/u);
    // « Annuler » sends nothing.
    await user.click(within(dialogue).getByRole('button', { name: 'Annuler' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(envois()).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Révoquer la clé « Logiciel de la voirie »' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Révoquer la clé' }));
    expect(await screen.findByText('La clé « Logiciel de la voirie » est révoquée : les outils qui l’utilisent sont refusés.')).toHaveFocus();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(envois().map((c) => c.url)).toEqual([`${CLES}/${VOIRIE}/revoquer`]);
    const ligne = screen.getByRole('cell', { name: 'Logiciel de la voirie' }).closest('tr')!;
    expect(ligne).toHaveTextContent(/Révoquée le 05\/03\/2026/u);
    expect(within(ligne).queryByRole('button')).not.toBeInTheDocument();
  });

  it('keeps the dialog open with the server’s message when the revocation fails', async () => {
    answers[`POST ${CLES}/${VOIRIE}/revoquer`] = { status: 404, body: { error: { code: 'NOT_FOUND', message: 'Cette clé d’API n’existe pas.' } } };
    page();
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Révoquer la clé « Logiciel de la voirie »' }));
    const dialogue = await screen.findByRole('dialog');
    await user.click(within(dialogue).getByRole('button', { name: 'Révoquer la clé' }));
    expect(await within(dialogue).findByRole('alert')).toHaveTextContent('Cette clé d’API n’existe pas.');
    expect(screen.getByRole('cell', { name: 'Active' })).toBeInTheDocument();
  });
});
