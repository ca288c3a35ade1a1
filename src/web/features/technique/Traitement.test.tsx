// @vitest-environment jsdom
import { act, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Moi } from '../../../domain/compte.js';
import type { SignalementGestion, SignalementVue } from '../../../domain/signalements.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { PERIMETRE } from './donneesDeTest.js';
import { SignalementPage } from './SignalementPage.js';

const { calls, answers } = recordFetch();

const GESTION = '/app/api/technique/gestion/signalements/2026-00042';
const PHOTO = '5f0c8a4e-0000-4000-8000-000000000001';
const MAJ = '5f0c8a4e-0000-4000-8000-0000000000aa';

const MOI = { uid: 'g1', nom: 'Mairie', prenom: 'Camille', email: 'camille@example.org', userType: 'manager' } as Moi;

const publique: SignalementVue = {
  numero: '2026-00042',
  categorie: { code: 'eclairage', libelle: 'Éclairage public' },
  titre: 'Lampadaire éteint',
  description: 'Depuis lundi, devant le n° 8.',
  titreMasque: false,
  descriptionMasquee: false,
  lat: 43.5262,
  lon: 5.4183,
  adresse: '8 Avenue Marcel Pagnol',
  etat: 'nouveau',
  creeLe: '2026-03-02T08:00:00.000Z',
  misAJourLe: '2026-03-02T08:00:00.000Z',
  auteur: null,
  photos: [],
  miseAJours: [{ le: '2026-03-02T08:00:00.000Z', etat: 'nouveau', texte: null, par: 'signalant' }],
  doublonDe: null,
  suiveurs: 1,
  estSignalant: false,
  peutAjouterPhotos: false,
};

let gestion: SignalementGestion;
/** The live streams the page opened. */
const flux: { url: string; ferme: boolean; ecouteurs: Map<string, (m: { data: string }) => void> }[] = [];
const ouverts = () => flux.filter((f) => !f.ferme).map((f) => f.url);

beforeEach(() => {
  gestion = {
    ...publique,
    contenuMasque: false,
    email: 'habitant@example.org',
    nom: 'Hélène Martin',
    nomMasque: true,
    parUnCompte: false,
    photos: [{ id: PHOTO, url: `${GESTION}/photos/${PHOTO}`, largeur: 800, hauteur: 600, masquee: false }],
    miseAJours: [{ id: MAJ, le: '2026-03-03T08:00:00.000Z', etat: 'confirme', texte: 'Transmis au service.', par: 'mairie', masquee: false, auteur: 'Camille Mairie' }],
    doublons: [],
    notes: [{ id: 'n1', texte: 'Appeler l’entreprise.', auteur: 'Camille Mairie', le: '2026-03-03T09:00:00.000Z' }],
    moderation: [],
    viaOpen311: null,
  };
  flux.length = 0;
  vi.stubGlobal('EventSource', class {
    static readonly CLOSED = 2;
    readyState = 0;
    ecouteurs = new Map<string, (m: { data: string }) => void>();
    ferme = false;
    constructor(readonly url: string) {
      flux.push(this);
    }
    addEventListener(nom: string, f: (m: { data: string }) => void) {
      this.ecouteurs.set(nom, f);
    }
    close() {
      this.ferme = true;
    }
  });
  answers['GET /app/api/technique/perimetre'] = { status: 200, body: { data: PERIMETRE } };
  answers['GET /app/api/user/me'] = { status: 200, body: { data: MOI } };
  answers['GET /app/api/technique/signalements/2026-00042'] = { status: 200, body: { data: publique } };
  answers[`GET ${GESTION}`] = () => ({ status: 200, body: { data: gestion } });
});

const page = () => renderWithProviders(<SignalementPage />, { url: '/technique/2026-00042', path: '/technique/:numero' });
const envois = (fin: string) => calls.filter((c) => c.method === 'POST' && c.url === `${GESTION}/${fin}`).map((c) => c.body);

describe('« Traitement » on a report’s page', () => {
  it('is not there for a resident, who never asks the managers’ view', async () => {
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { ...MOI, userType: 'resident' } } };
    page();
    await screen.findByRole('heading', { level: 1, name: 'Lampadaire éteint' });
    await screen.findByRole('heading', { name: 'Historique' });
    expect(screen.queryByRole('region', { name: 'Traitement' })).not.toBeInTheDocument();
    expect(calls.some((c) => c.url.startsWith('/app/api/technique/gestion'))).toBe(false);
  });

  it('follows the report live on the managers’ stream (another manager’s note shows)', async () => {
    page();
    const traitement = await screen.findByRole('region', { name: 'Traitement' });
    await within(traitement).findByRole('list', { name: 'Notes privées' });
    await waitFor(() => expect(ouverts()).toEqual(['/app/api/technique/gestion/evenements?numero=2026-00042']));
    // Another manager adds a note: the event names the report, the full view is read again.
    gestion = { ...gestion, notes: [...gestion.notes, { id: 'n9', texte: 'Devis reçu.', auteur: 'Sam Mairie', le: '2026-03-05T09:00:00.000Z' }] };
    act(() => flux.find((f) => !f.ferme)!.ecouteurs.get('signalement')!({ data: JSON.stringify({ numero: '2026-00042', etat: 'nouveau', le: '2026-03-05T09:00:00.000Z', quoi: 'note' }) }));
    await waitFor(() => expect(within(traitement).getByRole('list', { name: 'Notes privées' })).toHaveTextContent('Devis reçu.'));
  });

  it('gives a resident the public stream of the report only', async () => {
    answers['GET /app/api/user/me'] = { status: 200, body: { data: { ...MOI, userType: 'resident' } } };
    page();
    await screen.findByRole('heading', { level: 1, name: 'Lampadaire éteint' });
    await waitFor(() => expect(ouverts()).toEqual(['/app/api/technique/evenements?numero=2026-00042']));
  });

  it('changes the state with a public text, and says so in a focused status', async () => {
    answers[`POST ${GESTION}/mises-a-jour`] = () => {
      gestion = { ...gestion, etat: 'planifie' };
      return { status: 200, body: { data: gestion } };
    };
    page();
    const traitement = await screen.findByRole('region', { name: 'Traitement' });
    expect(await within(traitement).findByText(/habitant@example\.org/u)).toBeInTheDocument();
    const user = userEvent.setup();
    const etat = within(traitement).getByRole('combobox', { name: 'Nouvel état' });
    // The current state is not offered (« Nouveau »), the others are, with their French names.
    expect(within(etat).queryByRole('option', { name: 'Nouveau' })).not.toBeInTheDocument();
    await user.selectOptions(etat, 'planifie');
    expect(within(traitement).queryByRole('textbox', { name: /Doublon de/u })).not.toBeInTheDocument();
    await user.type(within(traitement).getByRole('textbox', { name: 'Message public' }), 'Intervention jeudi.');
    await user.click(within(traitement).getByRole('button', { name: 'Publier la mise à jour' }));
    const succes = await within(traitement).findByText('État passé à « Planifié » ; la mise à jour est publiée.');
    expect(succes).toHaveAttribute('role', 'status');
    expect(succes).toHaveFocus();
    expect(envois('mises-a-jour')).toEqual([{ etat: 'planifie', texte: 'Intervention jeudi.' }]);
    expect(within(traitement).getByRole('textbox', { name: 'Message public' })).toHaveValue('');
  });

  it('asks the original’s number for « Doublon », sends it, and shows the server’s refusal as an alert', async () => {
    answers[`POST ${GESTION}/mises-a-jour`] = {
      status: 400,
      body: { error: { code: 'VALIDATION', message: 'Le signalement d’origine n’existe pas.' } },
    };
    page();
    const traitement = await screen.findByRole('region', { name: 'Traitement' });
    const user = userEvent.setup();
    await user.selectOptions(await within(traitement).findByRole('combobox', { name: 'Nouvel état' }), 'doublon');
    await user.type(within(traitement).getByRole('textbox', { name: /^Doublon de/u }), '2026-00007');
    await user.click(within(traitement).getByRole('button', { name: 'Publier la mise à jour' }));
    // « Doublon » closes the report: asked first, with who will be told.
    const dialogue = await screen.findByRole('dialog', { name: 'Passer le signalement à « Doublon » ?' });
    expect(dialogue).toHaveTextContent('1 personne le suit : chacune recevra un e-mail.');
    expect(envois('mises-a-jour')).toEqual([]);
    await user.click(within(dialogue).getByRole('button', { name: 'Passer à « Doublon »' }));
    expect(await within(traitement).findByRole('alert')).toHaveTextContent('Le signalement d’origine n’existe pas.');
    expect(envois('mises-a-jour')).toEqual([{ etat: 'doublon', doublonDe: '2026-00007' }]);
  });

  it('asks before a state that closes the report, and sends nothing when the manager keeps it open', async () => {
    answers[`POST ${GESTION}/mises-a-jour`] = () => {
      gestion = { ...gestion, etat: 'resolu' };
      return { status: 200, body: { data: gestion } };
    };
    page();
    const traitement = await screen.findByRole('region', { name: 'Traitement' });
    const user = userEvent.setup();
    await user.selectOptions(await within(traitement).findByRole('combobox', { name: 'Nouvel état' }), 'resolu');
    await user.type(within(traitement).getByRole('textbox', { name: 'Message public' }), 'Lampe changée.');
    await user.click(within(traitement).getByRole('button', { name: 'Publier la mise à jour' }));
    let dialogue = await screen.findByRole('dialog', { name: 'Passer le signalement à « Résolu » ?' });
    expect(dialogue).toHaveTextContent('1 personne le suit : chacune recevra un e-mail avec votre message.');
    await user.click(within(dialogue).getByRole('button', { name: 'Ne pas changer' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(envois('mises-a-jour')).toEqual([]);
    // What was typed is still there; this time confirmed.
    expect(within(traitement).getByRole('textbox', { name: 'Message public' })).toHaveValue('Lampe changée.');
    await user.click(within(traitement).getByRole('button', { name: 'Publier la mise à jour' }));
    dialogue = await screen.findByRole('dialog', { name: 'Passer le signalement à « Résolu » ?' });
    await user.click(within(dialogue).getByRole('button', { name: 'Passer à « Résolu »' }));
    expect(await within(traitement).findByText('État passé à « Résolu » ; la mise à jour est publiée.')).toHaveFocus();
    expect(envois('mises-a-jour')).toEqual([{ etat: 'resolu', texte: 'Lampe changée.' }]);
  });

  it('lists the private notes and adds one', async () => {
    answers[`POST ${GESTION}/notes`] = () => {
      const note = { id: 'n2', texte: 'Entreprise rappelée.', auteur: 'Camille Mairie', le: '2026-03-04T09:00:00.000Z' };
      gestion = { ...gestion, notes: [...gestion.notes, note] };
      return { status: 201, body: { data: note } };
    };
    page();
    const traitement = await screen.findByRole('region', { name: 'Traitement' });
    const notes = await within(traitement).findByRole('list', { name: 'Notes privées' });
    expect(notes).toHaveTextContent('Appeler l’entreprise.');
    const user = userEvent.setup();
    await user.type(within(traitement).getByRole('textbox', { name: 'Nouvelle note privée' }), 'Entreprise rappelée.');
    await user.click(within(traitement).getByRole('button', { name: 'Ajouter la note' }));
    expect(await within(traitement).findByText('La note est ajoutée.')).toHaveFocus();
    expect(envois('notes')).toEqual([{ texte: 'Entreprise rappelée.' }]);
    await waitFor(() => expect(within(traitement).getByRole('list', { name: 'Notes privées' })).toHaveTextContent('Entreprise rappelée.'));
  });

  it('hides a photo with a reason, then offers to show it again, and lists the moderation log', async () => {
    answers[`POST ${GESTION}/moderation`] = () => {
      gestion = {
        ...gestion,
        contenuMasque: true,
        photos: gestion.photos.map((p) => ({ ...p, masquee: true })),
        moderation: [{ id: 'm1', le: '2026-03-04T10:00:00.000Z', par: 'Camille Mairie', action: 'masquer', cible: 'photo', cibleId: PHOTO, motif: 'Visage reconnaissable' }],
      };
      return { status: 200, body: { data: gestion } };
    };
    page();
    const traitement = await screen.findByRole('region', { name: 'Traitement' });
    expect(await within(traitement).findByText('Rien n’a été masqué ni affiché de nouveau.')).toBeInTheDocument();
    const user = userEvent.setup();
    const element = within(traitement).getByRole('combobox', { name: 'Élément' });
    expect(within(element).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Le titre (visible)',
      'La description (visible)',
      'La photo 1 (visible)',
      expect.stringMatching(/^La mise à jour du .+ \(visible\)$/u),
    ]);
    await user.selectOptions(element, `photo-${PHOTO}`);
    await user.type(within(traitement).getByRole('textbox', { name: 'Motif' }), 'Visage reconnaissable');
    await user.click(within(traitement).getByRole('button', { name: 'Masquer au public' }));
    expect(await within(traitement).findByText('Masqué au public : la photo 1.')).toHaveFocus();
    expect(envois('moderation')).toEqual([{ cible: 'photo', id: PHOTO, masquer: true, motif: 'Visage reconnaissable' }]);
    expect(within(traitement).getByRole('button', { name: 'Afficher de nouveau' })).toBeInTheDocument();
    expect(within(traitement).getByRole('list', { name: 'Journal de modération' })).toHaveTextContent('Camille Mairie a masqué une photo : « Visage reconnaissable ».');
    // The hidden photo stays in sight of the managers, from their own route.
    const masquees = within(traitement).getByRole('list', { name: 'Photos masquées au public' });
    expect(within(masquees).getByRole('img', { name: 'Vue 1 du problème, masquée au public' })).toHaveAttribute('src', `${GESTION}/photos/${PHOTO}`);
  });
});
