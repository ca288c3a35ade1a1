import { describe, expect, it } from 'vitest';
import { MESSAGES } from '../../domain/erreurs.js';
import { endpointDe, LIEN_MOT_DE_PASSE_ENVOYE, succesATraduire, traduireErreur, traduireSucces } from './traduction.js';

/** better-auth's codes the reset flow may answer (its endpoints, their middlewares, better-call's body parsing). */
const CODES_DU_FLUX = [
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'USER_NOT_FOUND',
  'PASSWORD_TOO_SHORT',
  'PASSWORD_TOO_LONG',
  'PASSWORD_TOO_COMMON',
  'VALIDATION_ERROR',
  'INVALID_REDIRECT_URL',
  'INVALID_CALLBACK_URL',
  'INVALID_ORIGIN',
  'MISSING_OR_NULL_ORIGIN',
  'BAD_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
];

describe('endpointDe', () => {
  it('names better-auth’s endpoint of a path, the token of a link left out', () => {
    expect(endpointDe('reset-password')).toBe('reset-password');
    expect(endpointDe('/reset-password/AbC123?callbackURL=%2Fx')).toBe('reset-password/:token');
    expect(endpointDe('request-password-reset')).toBe('request-password-reset');
    expect(endpointDe('sign-in/email')).toBe('sign-in/email');
  });
});

describe('traduireErreur', () => {
  it('says a used, expired or made-up reset link with 400 and the next step', () => {
    for (const [status, code] of [
      [400, 'INVALID_TOKEN'],
      [400, 'TOKEN_EXPIRED'],
      [400, 'USER_NOT_FOUND'],
      [401, 'INVALID_TOKEN'],
    ] as const) {
      expect(traduireErreur('reset-password', status, { code, message: 'Invalid token' })).toEqual({ status: 400, code: 'INVALID_TOKEN', message: MESSAGES.lienMotDePassePerime });
    }
    expect(MESSAGES.lienMotDePassePerime).toBe('Ce lien n’est plus valable : il a déjà servi ou a expiré. Demandez-en un nouveau depuis «\u00a0Mot de passe oublié\u00a0».');
    expect(traduireErreur('reset-password', 400, { code: 'VALIDATION_ERROR', message: '[body.token] Entrée invalide' }).message).toBe(MESSAGES.lienMotDePassePerime);
  });

  it('names the field a validation error is about, where the endpoint knows it', () => {
    expect(traduireErreur('request-password-reset', 400, { code: 'VALIDATION_ERROR', message: '[body.email] adresse e-mail invalide' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'L’adresse e-mail n’est pas valide.',
      fields: { email: 'L’adresse e-mail n’est pas valide.' },
    });
    expect(traduireErreur('reset-password', 400, { code: 'VALIDATION_ERROR', message: '[body.newPassword] Entrée invalide' }).fields).toEqual({ newPassword: 'Saisissez votre nouveau mot de passe.' });
    // Another field, or another endpoint: the general words.
    expect(traduireErreur('request-password-reset', 400, { code: 'VALIDATION_ERROR', message: '[body.redirectTo] Entrée invalide' })).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: MESSAGES.requeteInvalide,
    });
  });

  it.each(CODES_DU_FLUX)('answers %s of the reset flow in French, never with better-auth’s English', (code) => {
    for (const chemin of ['request-password-reset', 'reset-password', 'reset-password/abc']) {
      const { message, status } = traduireErreur(chemin, 400, { code, message: 'Some English text' });
      expect(message).not.toBe('Some English text');
      expect(message).not.toBe(traduireErreur(chemin, 400, { code: 'CODE_INCONNU' }).message);
      expect(status).toBeLessThan(500);
    }
  });

  it('keeps a known status, falls back on French for the unknown, and writes French apostrophes', () => {
    expect(traduireErreur('sign-in/email', 400, { code: 'INVALID_EMAIL_OR_PASSWORD' })).toEqual({ status: 401, code: 'INVALID_EMAIL_OR_PASSWORD', message: 'E-mail ou mot de passe incorrect' });
    expect(traduireErreur('nulle-part', 404, null)).toEqual({ status: 404, code: 'NOT_FOUND', message: MESSAGES.apiIntrouvable });
    expect(traduireErreur('sign-in/email', 405, null).message).toBe('Cette méthode n’est pas acceptée à cette adresse.');
    expect(traduireErreur('x', 418, { code: 'CODE_INCONNU' })).toEqual({ status: 418, code: 'CODE_INCONNU', message: 'L’opération n’a pas abouti. Réessayez dans un instant.' });
    for (const code of [...CODES_DU_FLUX, 'EMAIL_NOT_VERIFIED', 'EMAIL_CAN_NOT_BE_UPDATED', 'CREDENTIAL_ACCOUNT_NOT_FOUND', 'INVALID_EMAIL']) {
      expect(traduireErreur('reset-password', 400, { code }).message).not.toMatch(/\p{L}'\p{L}/u);
    }
  });
});

describe('traduireSucces', () => {
  it('answers « Mot de passe oublié » in French, the body otherwise the same', () => {
    expect(succesATraduire('request-password-reset')).toBe(true);
    expect(succesATraduire('reset-password')).toBe(false);
    expect(traduireSucces('request-password-reset', { status: true, message: 'If this email exists in our system, check your email for the reset link' })).toEqual({
      status: true,
      message: LIEN_MOT_DE_PASSE_ENVOYE,
    });
    expect(traduireSucces('request-password-reset', { status: true })).toEqual({ status: true });
  });
});
