import { describe, expect, it } from 'vitest';
import type { Mail } from '../../mail/index.js';
import { mailCompteSupprime, mailConfirmationAdresse, mailNouveauMotDePasse, type Destinataire } from './mails.js';

/** Every mail an account receives, by name. */
const MAILS: [string, (to: Destinataire) => Mail][] = [
  ['confirmation de l’adresse', (to) => mailConfirmationAdresse(to, 'http://quartier.test/app/api/auth/verify-email?token=t')],
  ['nouveau mot de passe', (to) => mailNouveauMotDePasse(to, 'http://quartier.test/app/api/auth/reset-password/t')],
  ['compte supprimé', (to) => mailCompteSupprime(to, 1)],
];

describe('the account’s e-mails', () => {
  it.each(MAILS)('%s: greets the person by first name', (_, mail) => {
    const sent = mail({ email: 'elodie@example.org', prenom: 'Élodie' });
    expect(sent.to).toBe('elodie@example.org');
    expect(sent.text.split('\n')[0]).toBe('Bonjour Élodie,');
  });

  it.each(MAILS)('%s: says « Bonjour, » when no first name is known', (_, mail) => {
    for (const prenom of [undefined, null, '', '  ']) expect(mail({ email: 'x@example.org', prenom }).text.split('\n')[0]).toBe('Bonjour,');
  });

  it('writes French apostrophes', () => {
    for (const [, mail] of MAILS) expect(mail({ email: 'x@example.org', prenom: 'Élodie' }).text).not.toMatch(/\p{L}'\p{L}/u);
  });
});
