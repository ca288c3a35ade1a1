// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { beforeEach, describe, expect, it } from 'vitest';
import type { InformationsLegales } from '../../../domain/informations.js';
import { cles } from '../../lib/queryKeys.js';
import { recordFetch, renderWithProviders } from '../../test-utils.js';
import { SecuritePage } from './SecuritePage.js';

const informations: InformationsLegales = {
  editeur: 'Ville de Test — mairie annexe',
  adresse: '1 place de l’Essai, 13000 Testville',
  contact: 'Mairie annexe de test',
  directeurPublication: 'Le maire de Testville',
  hebergeur: 'Serveurs de test',
  dpo: 'DPO de test',
  durees: { sessionHabitantJours: 30, sessionHabitantMaxJours: 90, sessionGestionMinutes: 30, sessionGestionMaxHeures: 12, traceMailJours: 30 },
};

const { answers, calls } = recordFetch();

beforeEach(() => {
  answers['GET /app/api/informations-legales'] = {
    status: 200,
    body: { data: { ...informations, policeMunicipale: { telephone: '04 42 00 00 00', adresse: '1 place du Poste, 13090 Testville', horaires: 'Du lundi au samedi, de 8 h à 19 h' } } },
  };
});

/** The part of the page under the h2 `titre`. */
function partie(titre: string): HTMLElement {
  return screen.getByRole('heading', { level: 2, name: titre }).closest('section')!;
}

describe('« Sécurité »', () => {
  it('has its title, says first that the site takes no report and to call 17 or 112, then h2s in order, no level skipped', async () => {
    renderWithProviders(<SecuritePage />);
    expect(screen.getByRole('heading', { level: 1, name: 'Sécurité' })).toBeInTheDocument();
    expect(document.title).toBe('Sécurité — Quartier Vivant');
    const avertissement = screen.getByRole('note');
    expect(avertissement).toHaveTextContent('En cas de danger, appelez le 17 ou le 112');
    expect(avertissement).toHaveTextContent('Quartier Vivant ne reçoit pas les signalements d’infractions : rien de ce que vous écrivez sur ce site n’est transmis à la police.');
    await screen.findByRole('heading', { level: 2, name: 'Police municipale' });
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Numéros d’urgence',
      'Police municipale',
      'Signaler ou porter plainte en ligne',
      'Violences : être écouté et aidé',
    ]);
    const niveaux = screen.getAllByRole('heading').map((h) => Number(h.tagName.slice(1)));
    expect(niveaux[0]).toBe(1);
    niveaux.slice(1).forEach((n, i) => expect(n - niveaux[i]!).toBeLessThanOrEqual(1));
    // No form: nothing to type, nothing to send.
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(document.querySelector('form')).toBeNull();
    expect(screen.queryByText(/bientôt/u)).not.toBeInTheDocument();
  });

  it('gives the emergency numbers as a list, each with what it is for and a link a phone dials (the 114 by SMS)', () => {
    renderWithProviders(<SecuritePage />);
    const urgences = partie('Numéros d’urgence');
    const items = within(within(urgences).getByRole('list')).getAllByRole('listitem');
    expect(items.map((li) => within(li).getByRole('heading', { level: 3 }).textContent)).toEqual([
      '17 — Police secours (police ou gendarmerie)',
      '112 — Numéro d’urgence européen',
      '15 — Samu (urgence médicale)',
      '18 — Sapeurs-pompiers',
      '114 — Urgences par SMS, visio ou tchat',
    ]);
    for (const [nom, href] of [
      ['Appeler le 17', 'tel:17'],
      ['Appeler le 112', 'tel:112'],
      ['Appeler le 15', 'tel:15'],
      ['Appeler le 18', 'tel:18'],
      ['Envoyer un SMS au 114', 'sms:114'],
    ] as const) {
      expect(within(urgences).getByRole('link', { name: nom })).toHaveAttribute('href', href);
    }
    expect(items[0]).toHaveTextContent('violences, agression, vol à l’arraché, cambriolage');
    expect(items[1]).toHaveTextContent('dans tous les pays de l’Union européenne');
    expect(items[2]).toHaveTextContent('détresse vitale');
    expect(items[3]).toHaveTextContent('incendie, une fuite de gaz, un accident de la route');
    expect(items[4]).toHaveTextContent('sourdes, malentendantes');
    // The 114 takes no voice call: no tel: link to it, and its video and chat are on urgence114.fr.
    expect(within(items[4]!).queryByRole('link', { name: /Appeler/u })).not.toBeInTheDocument();
    expect(within(items[4]!).getByRole('link', { name: 'Visio, tchat et application : urgence114.fr' })).toHaveAttribute('href', 'https://www.urgence114.fr/');
    // Big enough to tap: Mantine's large buttons.
    expect(within(urgences).getByRole('link', { name: 'Appeler le 17' })).toHaveAttribute('data-size', 'lg');
  });

  it('shows the police municipale’s configured telephone (dialled without its spaces), address and hours', async () => {
    renderWithProviders(<SecuritePage />);
    await screen.findByRole('heading', { level: 2, name: 'Police municipale' });
    const police = partie('Police municipale');
    expect(within(police).getByRole('link', { name: 'Appeler la police municipale au 04 42 00 00 00' })).toHaveAttribute('href', 'tel:0442000000');
    expect(police).toHaveTextContent('Adresse : 1 place du Poste, 13090 Testville');
    expect(police).toHaveTextContent('Horaires : Du lundi au samedi, de 8 h à 19 h');
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /app/api/informations-legales']);
  });

  it('shows only the parts configured (the default: the address alone)', async () => {
    answers['GET /app/api/informations-legales'] = {
      status: 200,
      body: { data: { ...informations, policeMunicipale: { adresse: 'Poste principal de la police municipale, cours des Minimes, Aix-en-Provence' } } },
    };
    renderWithProviders(<SecuritePage />);
    await screen.findByRole('heading', { level: 2, name: 'Police municipale' });
    const police = partie('Police municipale');
    expect(police).toHaveTextContent('Adresse : Poste principal de la police municipale, cours des Minimes, Aix-en-Provence');
    expect(police).not.toHaveTextContent('Horaires');
    expect(within(police).queryByRole('link')).not.toBeInTheDocument();
  });

  it('says nothing of a police municipale the installation has not configured, and keeps the rest', async () => {
    answers['GET /app/api/informations-legales'] = { status: 200, body: { data: informations } };
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    renderWithProviders(<SecuritePage />, { queryClient });
    // The answer has reached the page before we look for what it would have added.
    await waitFor(() => expect(queryClient.getQueryState(cles.informationsLegales)?.status).toBe('success'));
    expect(screen.queryByRole('heading', { name: 'Police municipale' })).not.toBeInTheDocument();
    expect(screen.queryByText(/police municipale/u)).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Appeler le 17' })).toHaveAttribute('href', 'tel:17');
  });

  it('keeps the numbers when the settings cannot be read, and says the police municipale’s contact did not load', async () => {
    answers['GET /app/api/informations-legales'] = { status: 503, body: { error: { code: 'UNAVAILABLE', message: 'Service indisponible.' } } };
    renderWithProviders(<SecuritePage />);
    expect(await screen.findByRole('status')).toHaveTextContent('Les coordonnées de la police municipale n’ont pas pu être chargées.');
    expect(screen.getByRole('link', { name: 'Appeler le 112' })).toHaveAttribute('href', 'tel:112');
  });

  it('lists the State’s online services with their official addresses, and the listening lines with their numbers', () => {
    renderWithProviders(<SecuritePage />);
    const enLigne = partie('Signaler ou porter plainte en ligne');
    const liens = within(within(enLigne).getByRole('list')).getAllByRole('link');
    expect(liens.map((a) => `${a.textContent} → ${a.getAttribute('href')}`)).toEqual([
      'Ma Sécurité → https://www.masecurite.interieur.gouv.fr/',
      '17Cyber → https://17cyber.gouv.fr/',
      'Arnaque sur internet : plainte en ligne (THESEE) → https://www.service-public.gouv.fr/particuliers/vosdroits/N31138',
      'PHAROS → https://www.internet-signalement.gouv.fr/',
      'Arrêtons les violences → https://arretonslesviolences.gouv.fr/',
    ]);
    expect(enLigne).toHaveTextContent('Aucun ne remplace le 17 en cas d’urgence.');

    const ecoute = partie('Violences : être écouté et aidé');
    expect(within(ecoute).getByRole('heading', { level: 3, name: '3919 — Violences Femmes Info' })).toBeInTheDocument();
    expect(within(ecoute).getByRole('link', { name: 'Appeler le 3919' })).toHaveAttribute('href', 'tel:3919');
    expect(within(ecoute).getByRole('heading', { level: 3, name: '119 — Allô enfance en danger' })).toBeInTheDocument();
    expect(within(ecoute).getByRole('link', { name: 'Appeler le 119' })).toHaveAttribute('href', 'tel:119');
  });
});
