import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { estCloturee } from '../../../domain/cycleDeVie.js';
import { reserve } from '../../auth/guards.js';
import { STALE_MS } from '../../storage/index.js';
import { InstructionRepository } from '../instruction/repository.js';
import { routesDonneesCompte } from './donnees.js';
import { evenementsRoutes } from './evenements.js';
import { routesGestion } from './gestion.js';
import { DemandesRepository } from './repository.js';
import { attestationHorsBoucle, nomAttestation } from './attestation.js';
import { planifierCycleDeVie } from './cycleDeVie.js';
import { routesCompte, routesPubliques } from './routes.js';
import { routesCycleDeVie } from './routes-cycle.js';
import { routesEffacementGestion, routesEffacementPubliques } from './routes-effacement.js';
import { DemandesService } from './service.js';
import { sweepLeftovers, type Balayage, type Balayes } from './upload.js';

/**
 * Housing requests, one feature: public routes (submit, look up, documents), the account's own requests,
 * the managers' routes (list, status, export) in a scope reserved to managers, and live events.
 */
export default async function demandes(app: FastifyInstance): Promise<void> {
  const { db, dbKind, mailer, bus, config } = app.deps;
  const repository = new DemandesRepository(db, dbKind, app.deps.now);
  await balayerLesRestes(app, { repository, storage: app.deps.storage, mailDir: path.join(config.dataDir, 'mail') });
  const service = new DemandesService({ repository, mailer, bus, config, now: app.deps.now });
  // Managers' exports and looks at documents go in the audit of their handling (features/instruction).
  const journal = new InstructionRepository(db);
  await app.register(reserve('gestionnaire', routesGestion({ repository, service, journal })));
  await app.register(reserve('gestionnaire', routesEffacementGestion({ repository })));
  await app.register(reserve('compte', routesCompte({ repository })));
  await app.register(reserve('compte', routesDonneesCompte({ repository })));
  await app.register(routesPubliques({ repository, service, journal }));
  await app.register(routesEffacementPubliques({ repository }));
  await app.register(evenementsRoutes({ repository }));
  await app.register(routesCycleDeVie({ repository }));
  // The first e-mail's attestation, composed when the mail leaves: none for a request erased or closed meanwhile (the
  // site gives none for a closed request either, docs/produit.md).
  mailer.resoudrePiecesJointes('attestation', async (ref) => {
    const row = await repository.findById(ref.demandeId);
    return row && !estCloturee(row.statutDeLaDemande) ? { filename: nomAttestation(row.numeroUnique), content: await attestationHorsBoucle(row, app.deps.now()), contentType: 'application/pdf' } : null;
  });
  planifierCycleDeVie(app, { repository, mailer, bus, storage: app.deps.storage, config, now: app.deps.now, log: app.log });
}

/** How often leftovers older than STALE_MS are looked for while the server runs. */
const SWEEP_EVERY_MS = 10 * 60_000;
/** PostgreSQL: the wait between the two looks of the start-up sweep (another instance may be writing). */
const SECOND_LOOK_MS = 20_000;

/**
 * Leftovers of interrupted writes (docs/operations.md « Après un arrêt brutal »): upload temp files,
 * stored files without their document row, mail stubs. At start, whatever their age: on SQLite this
 * process is the only writer, so nothing is under way; on PostgreSQL other instances may share DATA_DIR,
 * so what is still a leftover, unchanged, on a second look 20 s later, and temp files only once no request could
 * still be writing them (an hour, or HTTP_REQUEST_TIMEOUT_S if longer). Then every 10 minutes, those older than an
 * hour (temp files: the same bound). Stopped when the app closes.
 */
async function balayerLesRestes(app: FastifyInstance, deps: Balayage): Promise<void> {
  let closing = false;
  const timers = new Set<NodeJS.Timeout>();
  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timer.unref();
      timers.add(timer);
    });
  const balayer = async (options: Parameters<typeof sweepLeftovers>[1]) => {
    try {
      const removed: Balayes = await sweepLeftovers(deps, options);
      if (closing) return;
      if (removed.temp + removed.orphans + removed.stubs > 0) app.log.warn({ ...removed }, "restes d’écritures interrompues supprimés");
    } catch (error) {
      if (!closing) app.log.error({ err: error }, "le nettoyage des restes d’écritures interrompues a échoué");
    }
  };
  // A temp file is an upload's until the request's longest life has passed (HTTP_REQUEST_TIMEOUT_S).
  const tempsOlderThanMs = Math.max(STALE_MS, app.deps.config.http.requestTimeoutMs);
  if (app.deps.dbKind === 'sqlite') await balayer({ olderThanMs: 0 });
  else void balayer({ olderThanMs: 0, tempsOlderThanMs, secondLookAfterMs: SECOND_LOOK_MS, wait });
  const every = setInterval(() => void balayer({ olderThanMs: STALE_MS, tempsOlderThanMs }), SWEEP_EVERY_MS);
  every.unref();
  app.addHook('onClose', async () => {
    closing = true;
    clearInterval(every);
    // A sweep waiting for its second look never resumes.
    for (const timer of timers) clearTimeout(timer);
  });
}
