import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EvenementDirect } from '../src/domain/demande.js';
import type { EvenementSignalement } from '../src/domain/signalements.js';
import { VERIFICATION_MS } from '../src/server/events/flux.js';
import { createAccount, createTestApp, surUnPort, type TestContext } from './helpers.js';

/**
 * A managers' live stream is one request that lasts: the guard let it in once, and a sign-out, a revocation, an
 * account's deletion or the role taken back must end it too (docs/security.md: they take effect at once). Real
 * sockets: streams stay open.
 */
let ctx: TestContext;
let port: number;

beforeAll(async () => {
  ctx = await createTestApp();
  port = (await surUnPort(ctx.app)).port;
});
afterAll(async () => ctx?.close());

interface Flux {
  texte: () => string;
  fini: Promise<void>;
  fermer: () => void;
}

function ouvrir(chemin: string, cookie: string): Promise<Flux> {
  return new Promise((resolve, reject) => {
    let texte = '';
    let finir!: () => void;
    const fini = new Promise<void>((r) => (finir = r));
    const req = http.get({ host: '127.0.0.1', port, path: chemin, headers: { cookie } }, (res) => {
      expect(res.statusCode).toBe(200);
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        texte += chunk;
        if (texte.startsWith('retry:')) resolve({ texte: () => texte, fini, fermer: () => req.destroy() });
      });
      res.on('end', finir);
      res.on('close', finir);
    });
    req.on('error', reject);
  });
}

const attendre = (ms: number) => new Promise((r) => setTimeout(r, ms));
const statut = (numeroUnique: string): EvenementDirect => ({ numeroUnique, statutDeLaDemande: 'En attente', de: 'En attente', date: new Date().toISOString(), quoi: 'suivi' });
const signalement = (numero: string): EvenementSignalement => ({ numero, etat: 'nouveau', de: 'nouveau', date: new Date().toISOString(), quoi: 'note' });

describe('managers’ live streams end with the manager’s rights', () => {
  it('keeps carrying events to a manager who still is one, past the check’s delay', async () => {
    const manager = await createAccount(ctx, 'manager');
    const flux = await ouvrir('/app/api/evenements', manager.cookie);
    await ctx.app.deps.bus.publish(statut('013droit0001'));
    await attendre(VERIFICATION_MS + 200);
    await ctx.app.deps.bus.publish(statut('013droit0002'));
    await attendre(300);
    expect(flux.texte()).toContain('013droit0001');
    expect(flux.texte()).toContain('013droit0002');
    flux.fermer();
  });

  it('ends the stream of a manager taken back to habitant before the next event, which is not sent', async () => {
    const manager = await createAccount(ctx, 'manager');
    const flux = await ouvrir('/app/api/evenements', manager.cookie);
    await ctx.app.deps.bus.publish(statut('013droit0003'));
    await ctx.app.deps.db.updateTable('user').set({ userType: 'habitant' }).where('email', '=', manager.email).execute();
    await attendre(VERIFICATION_MS + 200);
    await ctx.app.deps.bus.publish(statut('013droit0004'));
    await flux.fini;
    expect(flux.texte()).toContain('013droit0003');
    expect(flux.texte()).not.toContain('013droit0004');
  });

  it('ends the reports’ managers stream when the session is gone (signed out elsewhere, revoked)', async () => {
    const manager = await createAccount(ctx, 'manager');
    const flux = await ouvrir('/app/api/technique/gestion/evenements', manager.cookie);
    await ctx.app.deps.bus.publishSignalement(signalement('2026-90001'));
    const { id } = await ctx.app.deps.db.selectFrom('user').select('id').where('email', '=', manager.email).executeTakeFirstOrThrow();
    await ctx.app.deps.db.deleteFrom('session').where('userId', '=', id).execute();
    await attendre(VERIFICATION_MS + 200);
    await ctx.app.deps.bus.publishSignalement(signalement('2026-90002'));
    await flux.fini;
    expect(flux.texte()).toContain('2026-90001');
    expect(flux.texte()).not.toContain('2026-90002');
  });
});
