// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { AVERTIR_AVANT_FIN_ABSOLUE_MS } from '../../../domain/compte.js';
import type { InformationsLegales } from '../../../domain/informations.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { AccessibilitePage } from './AccessibilitePage.js';

const informations: InformationsLegales = {
  editeur: 'Ville de Test — mairie annexe',
  adresse: '1 place de l’Essai, 13000 Testville',
  contact: 'Mairie annexe de test, 2 rue du Contact, 13090 Testville',
  directeurPublication: 'Le maire de Testville',
  hebergeur: 'Serveurs de test',
  dpo: 'DPO de test',
  durees: { sessionHabitantJours: 30, sessionHabitantMaxJours: 90, sessionGestionMinutes: 30, sessionGestionMaxHeures: 10, traceMailJours: 30 },
};

const { answers } = recordFetch();

beforeEach(() => {
  answers['GET /app/api/informations-legales'] = { status: 200, body: { data: informations } };
});

describe('« Déclaration d’accessibilité »', () => {
  it('has its title, then the sections of the RGAA model in order', async () => {
    renderWithProviders(<AccessibilitePage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Déclaration d’accessibilité' })).toBeInTheDocument();
    expect(document.title).toBe('Déclaration d’accessibilité — Quartier Vivant');
    await screen.findByText(/Mairie annexe de test, 2 rue du Contact/u);
    const sections = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(sections).toEqual([
      'État de conformité',
      'Résultats des tests',
      'Contenus non accessibles',
      'Établissement de cette déclaration',
      'Retour d’information et contact',
      'Voies de recours',
    ]);
    // The first heading of the page is the h1; no level is skipped.
    const niveaux = screen.getAllByRole('heading').map((h) => Number(h.tagName.slice(1)));
    expect(niveaux[0]).toBe(1);
    niveaux.slice(1).forEach((n, i) => expect(n - niveaux[i]!).toBeLessThanOrEqual(1));
  });

  it('states « non conforme » with RGAA 4.1 (no audit yet), from an internal evaluation, with no rate and no disproportionate burden', () => {
    renderWithProviders(<AccessibilitePage />);
    const etat = screen.getByRole('heading', { level: 2, name: 'État de conformité' }).closest('section')!;
    expect(etat).toHaveTextContent('Le site Quartier Vivant est non conforme avec le référentiel général d’amélioration de l’accessibilité (RGAA), version 4.1 : aucun audit n’a encore été réalisé');
    expect(etat).toHaveTextContent('évaluation interne, menée le 26 novembre 2026');
    expect(document.body).not.toHaveTextContent(/\d\s?%/u);
    expect(screen.getByText('Aucune dérogation pour charge disproportionnée n’est invoquée.')).toBeInTheDocument();
  });

  it('says under « Non-conformités » that the defects found were corrected, why the state stays « non conforme », and the limits known', () => {
    renderWithProviders(<AccessibilitePage />);
    const nonConformites = screen.getByRole('heading', { level: 3, name: 'Non-conformités' }).parentElement!;
    expect(nonConformites).toHaveTextContent('Les défauts relevés par l’évaluation interne du 26 novembre 2026 ont été corrigés');
    expect(nonConformites).not.toHaveTextContent('en cours de correction');
    expect(nonConformites).toHaveTextContent('Le site reste pourtant « non conforme » : tant qu’aucun audit n’a été réalisé');
    const limites = within(nonConformites)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(limites).toHaveLength(3);
    expect(limites[0]).toMatch(/^l’attestation d’enregistrement d’une demande \(fichier PDF\).*pas encore été contrôlée.*\(norme PDF\/UA\)/u);
    // The warning before the end of the 12 hours is FinDeSession's.
    expect(limites[1]).toContain(
      `la session de connexion prend fin 12 heures après la connexion, même en pleine activité, et ne peut pas être prolongée ; un message les prévient ${AVERTIR_AVANT_FIN_ABSOLUE_MS / 60_000} minutes avant`,
    );
    expect(limites[2]).toBe('la restitution du site par les lecteurs d’écran n’a pas encore été testée.');
  });

  it('gives the town hall’s contact from the server’s settings, and the Défenseur des droits as recourse', async () => {
    renderWithProviders(<AccessibilitePage />);
    const contact = screen.getByRole('heading', { level: 2, name: 'Retour d’information et contact' }).closest('section')!;
    expect(await within(contact).findByText('Contact : Mairie annexe de test, 2 rue du Contact, 13090 Testville')).toBeInTheDocument();
    expect(within(contact).getByText(/Ville de Test — mairie annexe, 1 place de l’Essai/u)).toBeInTheDocument();

    const recours = screen.getByRole('heading', { level: 2, name: 'Voies de recours' }).closest('section')!;
    expect(within(recours).getByRole('link', { name: 'écrire un message au Défenseur des droits (formulaire en ligne)' })).toHaveAttribute(
      'href',
      'https://formulaire.defenseurdesdroits.fr/',
    );
    expect(within(recours).getByRole('link', { name: 'contacter le délégué du Défenseur des droits dans votre région' })).toHaveAttribute(
      'href',
      'https://www.defenseurdesdroits.fr/saisir/delegues',
    );
    expect(recours).toHaveTextContent('Défenseur des droits, Libre réponse 71120, 75342 Paris CEDEX 07');
  });

  it('keeps the statement and the recourse when the contact cannot be loaded', async () => {
    answers['GET /app/api/informations-legales'] = { status: 503, body: { error: { code: 'UNAVAILABLE', message: 'Service indisponible.' } } };
    renderWithProviders(<AccessibilitePage />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Les coordonnées de la mairie annexe n’ont pas pu être chargées.');
    expect(screen.getByRole('heading', { level: 2, name: 'Voies de recours' })).toBeInTheDocument();
    expect(screen.getByText('non conforme')).toBeInTheDocument();
  });

  it('writes the French apostrophe ’, never the straight one', () => {
    const { container } = renderWithProviders(<AccessibilitePage />);
    expect(container.textContent).not.toContain("'");
  });
});
