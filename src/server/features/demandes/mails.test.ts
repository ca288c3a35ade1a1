import { describe, expect, it } from 'vitest';
import type { DemandeRow } from '../../db/schema.js';
import { salutation, type Mail } from '../../mail/index.js';
import { mailAdresseChangee, mailCorrectionDemandee, mailCorrectionsFaites } from '../corrections/mails.js';
import { mailMessageDemandeur, mailMessageMairie } from '../messages/mails.js';
import { mailDemandeEffacee, mailDemandeEnregistree, mailGestionnaire, mailNouveauLien, mailRadiation, mailRappelRenouvellement, mailStatutChange } from './mails.js';

/** A stored request, as the mails read it. */
function demande(overrides: Partial<DemandeRow> = {}): DemandeRow {
  return {
    id: 'd1',
    numeroUnique: '013mail00001',
    accessKeyHash: 'h',
    prenom: 'Élodie',
    nom: 'Martin',
    sexe: null,
    dateDeNaissance: null,
    email: 'elodie@example.org',
    numeroDeTelephone: '',
    adresse: '',
    adresseComplement: '',
    codePostal: '',
    ville: '',
    salaireBrut: null,
    salaireAvisImpot1: null,
    salaireAvisImpot2: null,
    situationFamiliale: 'celibataire',
    nombreDEnfants: 0,
    logementActuel: 'appartement',
    typeDeLogementActuel: 't2',
    quartierActuel: null,
    bailleurActuel: 'pah',
    typeDeLogementSouhaite: 't3',
    quartierSouhaite: '[]',
    dateDEnregistrement: '2026-03-04T09:30:00.000Z',
    statutDeLaDemande: 'En attente des documents',
    motivations: 'Besoin',
    commentaires: '',
    updatedAt: '2026-03-04T09:30:00.000Z',
    ownerUserId: null,
    searchText: '',
    nomTri: 'martin',
    prenomTri: 'elodie',
    statutRang: 10,
    effaceeLe: null,
    valideJusqua: '2027-03-04T09:30:00.000Z',
    dernierRenouvellement: null,
    rappelsEnvoyes: '',
    radieeLe: null,
    clotureeLe: null,
    suiviePar: null,
    correction: null,
    messagesNonLus: 0,
    ...overrides,
  };
}

const URL_PUBLIQUE = 'http://quartier.test';

/** Every mail the applicant of a request receives, by name. */
const MAILS_AU_DEMANDEUR: [string, (row: DemandeRow) => Mail][] = [
  ['enregistrement', (row) => mailDemandeEnregistree(row, `${URL_PUBLIQUE}/logement/${row.numeroUnique}#cle=k`)],
  ['changement de statut', (row) => mailStatutChange(row, URL_PUBLIQUE, 'Motif')],
  ['retrait', (row) => mailDemandeEffacee(row, false)],
  ['effacement par la mairie', (row) => mailDemandeEffacee(row, true)],
  ['nouveau lien privé', (row) => mailNouveauLien(row, `${URL_PUBLIQUE}/logement/${row.numeroUnique}#cle=k2`)],
  ['rappel de renouvellement', (row) => mailRappelRenouvellement(row, URL_PUBLIQUE)],
  ['radiation', (row) => mailRadiation(row, URL_PUBLIQUE, '2027-09-04T09:30:00.000Z')],
  ['corrections demandées', (row) => mailCorrectionDemandee(row, URL_PUBLIQUE, 'Envoyez votre avis.', [])],
  ['adresse changée', (row) => mailAdresseChangee(row)],
  ['message de la mairie', (row) => mailMessageMairie(row, URL_PUBLIQUE, 'Bonjour, pouvez-vous passer ?')],
];

describe('the applicant’s e-mails', () => {
  it.each(MAILS_AU_DEMANDEUR)('%s: greets the applicant by first name', (_, mail) => {
    const sent = mail(demande());
    expect(sent.to).toBe('elodie@example.org');
    expect(sent.text.split('\n')[0]).toBe('Bonjour Élodie,');
  });

  it.each(MAILS_AU_DEMANDEUR)('%s: says « Bonjour, » when the request has no first name', (_, mail) => {
    for (const prenom of ['', '   ', '\u0007']) expect(mail(demande({ prenom })).text.split('\n')[0]).toBe('Bonjour,');
  });

  it('writes the first name on one line, whatever it holds', () => {
    expect(mailStatutChange(demande({ prenom: ' Marie\nClaire ' }), URL_PUBLIQUE).text.split('\n')[0]).toBe('Bonjour Marie Claire,');
  });
});

describe('the managers’ e-mails', () => {
  it('say « Bonjour, » (the manager is known by address only) and name no one', () => {
    for (const sent of [
      mailGestionnaire(demande(), URL_PUBLIQUE, 'agent@example.org', 'Sujet', 'Phrase.'),
      mailCorrectionsFaites(demande(), URL_PUBLIQUE, 'agent@example.org'),
      mailMessageDemandeur(demande(), URL_PUBLIQUE, 'agent@example.org'),
    ]) {
      expect(sent.text.split('\n')[0]).toBe('Bonjour,');
      expect(sent.text).not.toContain('Élodie');
    }
  });
});

describe('salutation', () => {
  it('greets by first name when there is one, else with « Bonjour, »', () => {
    expect(salutation('Élodie')).toBe('Bonjour Élodie,');
    expect(salutation('  Jean-Pierre  ')).toBe('Bonjour Jean-Pierre,');
    expect(salutation('')).toBe('Bonjour,');
    expect(salutation(null)).toBe('Bonjour,');
    expect(salutation(undefined)).toBe('Bonjour,');
    expect(salutation()).toBe('Bonjour,');
  });
});
