import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { ajouterMois, cycleDeVie, estCloturee, MOTIF_RADIATION, RENOUVELABLE_AVANT_MOIS, type CycleDeVie } from '../../../domain/cycleDeVie.js';
import { aujourdhui, formatJour, instantAParis } from '../../../domain/dates.js';
import { MESSAGES } from '../../../domain/erreurs.js';
import { STATUT_INITIAL, STATUT_RADIEE, isStatut, type Statut } from '../../../domain/statut.js';
import type { Config } from '../../config.js';
import type { Db, DbKind } from '../../db/index.js';
import type { DemandeRow } from '../../db/schema.js';
import { ApiError } from '../../errors.js';
import type { EventBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import type { Storage } from '../../storage/index.js';
import { conserverSignalements, type BilanSignalements } from '../compte/donnees-signalements.js';
import { effacerDemande } from './effacement.js';
import { mailRadiation, mailRappelRenouvellement } from './mails.js';
import type { DemandesRepository } from './repository.js';

/**
 * The life cycle of a request (docs/produit.md « Cycle de vie d'une demande », docs/operations.md « Cycle de
 * vie des demandes et purge »): renewal and reactivation by the requester, and the daily job that sends the
 * reminders, strikes off the requests not renewed and purges those whose retention year is over. The same job
 * applies the technical reports' retention (compte/donnees-signalements.ts), so that one lease and one daily
 * run cover every personal data with a retention period.
 */
export interface CycleDeps {
  repository: DemandesRepository;
  mailer: Mailer;
  bus: EventBus;
  storage: Storage;
  config: Pick<Config, 'publicUrl' | 'cycleDeVie'>;
  now: () => Date;
  log: FastifyBaseLogger;
  /** The database of the technical reports' retention step; without it (some tests) the step is skipped. */
  signalements?: { db: Db; kind: DbKind };
}

/** The request's life cycle as its requester and the managers see it. */
export function vueCycleDeVie(row: DemandeRow, config: Pick<Config, 'cycleDeVie'>): CycleDeVie {
  const { reactivationMois, validiteMois, conservationMois } = config.cycleDeVie;
  return cycleDeVie(row, { reactivation: reactivationMois, validite: validiteMois, conservation: conservationMois });
}

/** Steps of one request are strictly ordered in time (service.ts): a new one comes after the latest. */
async function instantSuivant(repository: DemandesRepository, id: string, now: Date, trx: Db): Promise<string> {
  const last = await repository.lastEvenementAt(id, trx);
  return new Date(Math.max(now.getTime(), last === null ? 0 : Date.parse(last) + 1)).toISOString();
}

/**
 * « Renouveler ma demande »: an open request (not Radiée, Refusé or Attribué), from two months before the end
 * of its validity (or after it, until it is struck off), gets a new year from now; its reminders start again.
 */
export async function renouveler(deps: Pick<CycleDeps, 'repository' | 'config' | 'now'>, demande: DemandeRow): Promise<CycleDeVie> {
  const { repository, config } = deps;
  const now = deps.now();
  return repository.transaction(async (trx) => {
    const row = await repository.findForUpdate(demande.numeroUnique, demande.id, trx);
    if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
    if (row.statutDeLaDemande === STATUT_RADIEE) {
      throw new ApiError(409, 'NON_RENOUVELABLE', 'Cette demande est radiée : réactivez-la (« Réactiver ma demande ») au lieu de la renouveler.');
    }
    if (estCloturee(row.statutDeLaDemande)) {
      throw new ApiError(409, 'NON_RENOUVELABLE', `Cette demande est close (${row.statutDeLaDemande.toLowerCase()}) : elle n’a plus à être renouvelée.`);
    }
    const des = ajouterMois(row.valideJusqua, -RENOUVELABLE_AVANT_MOIS);
    if (now.toISOString() < des) {
      throw new ApiError(
        409,
        'PAS_ENCORE_RENOUVELABLE',
        `Votre demande est valable jusqu’au ${formatJour(row.valideJusqua)} : vous pourrez la renouveler à partir du ${formatJour(des)}.`,
      );
    }
    const at = now.toISOString();
    const valideJusqua = ajouterMois(at, config.cycleDeVie.validiteMois);
    await repository.renouveler(row.id, valideJusqua, at, trx);
    return vueCycleDeVie({ ...row, valideJusqua, dernierRenouvellement: at, rappelsEnvoyes: '' }, config);
  });
}

/**
 * « Réactiver ma demande »: a request struck off for want of renewal, until REACTIVATION_JUSQUA_MOIS after the
 * start of its last validity, goes back to the status it had before, with a new year of validity; its
 * registration date (its seniority) stays. The live event follows the commit.
 */
export async function reactiver(
  deps: Pick<CycleDeps, 'repository' | 'config' | 'now' | 'bus' | 'log'>,
  demande: DemandeRow,
  acteurUserId: string | null,
): Promise<{ statut: Statut; cycleDeVie: CycleDeVie }> {
  const { repository, config, bus, log } = deps;
  const now = deps.now();
  const result = await repository.transaction(async (trx) => {
    const row = await repository.findForUpdate(demande.numeroUnique, demande.id, trx);
    if (!row) throw new ApiError(404, 'NOT_FOUND', MESSAGES.demandeIntrouvable);
    const vue = vueCycleDeVie(row, config);
    if (vue.reactivableJusqua === null) {
      throw new ApiError(409, 'NON_REACTIVABLE', 'Seule une demande radiée faute de renouvellement peut être réactivée.');
    }
    if (now.toISOString() > vue.reactivableJusqua) {
      throw new ApiError(
        409,
        'DELAI_REACTIVATION_DEPASSE',
        `Le délai de réactivation de cette demande a pris fin le ${formatJour(vue.reactivableJusqua)}. Déposez une nouvelle demande depuis la page « Demande de logement ».`,
      );
    }
    const avant = await repository.statutAvantRadiation(row.id, trx);
    const statut: Statut = avant !== null && isStatut(avant) && !estCloturee(avant) ? avant : STATUT_INITIAL;
    const at = await instantSuivant(repository, row.id, now, trx);
    const updated = await repository.setStatut(row, statut, at, trx);
    await repository.insertEvenement(row.id, STATUT_RADIEE, statut, acteurUserId, at, trx);
    const valideJusqua = ajouterMois(at, config.cycleDeVie.validiteMois);
    await repository.renouveler(row.id, valideJusqua, at, trx);
    return { row: { ...updated, valideJusqua, dernierRenouvellement: at, rappelsEnvoyes: '' }, statut, at };
  });
  await bus
    .publish({ numeroUnique: result.row.numeroUnique, statutDeLaDemande: result.statut, de: STATUT_RADIEE, date: result.at })
    .catch((error: unknown) => log.error({ err: error }, 'publication de la réactivation impossible'));
  return { statut: result.statut, cycleDeVie: vueCycleDeVie(result.row, config) };
}

/** The job's name in the lease table. */
export const TACHE = 'cycle-de-vie';
/** Rows read at once; each request is then its own short transaction. */
const LOT = 500;
/** How long a lease holds without news (it is extended at each batch); past it, another instance may take over. */
const BAIL_MS = 10 * 60_000;
/** How often each instance looks whether the day's run is due. */
export const VERIFIER_TOUTES_MS = 5 * 60_000;

export interface Bilan extends Partial<BilanSignalements> {
  rappels: number;
  radiees: number;
  purgees: number;
}

/** What the daily job is told while it runs: stop between two requests when the app closes. */
export interface Arret {
  arrete: boolean;
}

/** The last time the job was due: today at `heure` (Europe/Paris) if past, else yesterday's. */
export function dernierCreneau(now: Date, heure: number): Date {
  const [y, m, d] = aujourdhui(now).split('-').map(Number) as [number, number, number];
  const ceJour = instantAParis(y, m, d, heure);
  return ceJour.getTime() <= now.getTime() ? ceJour : instantAParis(y, m, d - 1, heure);
}

/**
 * One run of the daily job, when this instance takes the lease (an UPDATE that only one instance wins, as
 * the outbox claims its rows) and, unless `force`, when today's run is not done yet; null otherwise.
 * Idempotent: each step re-reads its request in its own transaction, and what is done is not done again.
 */
export async function executerCycleDeVie(deps: CycleDeps, options: { force?: boolean; arret?: Arret } = {}): Promise<Bilan | null> {
  const { repository, config, log } = deps;
  const debut = deps.now();
  const creneau = options.force ? null : dernierCreneau(debut, config.cycleDeVie.heure).toISOString();
  const bail = () => new Date(deps.now().getTime() + BAIL_MS).toISOString();
  if (!(await repository.prendreBail(TACHE, debut.toISOString(), bail(), creneau))) return null;
  const arret = options.arret ?? { arrete: false };
  let fini = false;
  try {
    const bilan: Bilan = { rappels: 0, radiees: 0, purgees: 0 };
    bilan.rappels = await envoyerRappels(deps, arret, () => repository.prolongerBail(TACHE, bail()));
    bilan.radiees = await radier(deps, arret, () => repository.prolongerBail(TACHE, bail()));
    bilan.purgees = await purger(deps, arret, () => repository.prolongerBail(TACHE, bail()));
    if (deps.signalements && !arret.arrete) {
      const { db, kind } = deps.signalements;
      let premier = true;
      Object.assign(
        bilan,
        await conserverSignalements(db, kind, deps.now(), async () => {
          if (arret.arrete) return false;
          if (!premier) await repository.prolongerBail(TACHE, bail());
          premier = false;
          return true;
        }),
      );
    }
    fini = !arret.arrete;
    log.info({ ...bilan, interrompue: arret.arrete }, 'cycle de vie des demandes : tâche quotidienne passée');
    return bilan;
  } finally {
    await repository.rendreBail(TACHE, fini ? debut.toISOString() : null);
  }
}

/** Walks ids batch by batch (by id, so that a request left as it is never stops the walk). */
async function parLots(lire: (apres: string) => Promise<string[]>, traiter: (id: string) => Promise<boolean>, arret: Arret, prolonger: () => Promise<void>): Promise<number> {
  let apres = '';
  let faits = 0;
  for (;;) {
    const ids = await lire(apres);
    for (const id of ids) {
      if (arret.arrete) return faits;
      if (await traiter(id)) faits += 1;
    }
    if (ids.length < LOT) return faits;
    apres = ids.at(-1)!;
    await prolonger();
  }
}

/**
 * The reminders, nearest first (7 days, then 30): each at most once per validity, its flag written in the
 * transaction that queues its e-mail. A request that gets the 7-day reminder is not sent the 30-day one after.
 */
async function envoyerRappels(deps: CycleDeps, arret: Arret, prolonger: () => Promise<void>): Promise<number> {
  const { repository, mailer, config } = deps;
  const now = deps.now();
  const rappels = [...config.cycleDeVie.rappelsJours].sort((a, b) => a - b);
  let total = 0;
  for (const jours of rappels) {
    const depuis = now.toISOString();
    const jusqua = new Date(now.getTime() + jours * 86_400_000).toISOString();
    total += await parLots(
      (apres) => repository.idsARappeler(jours, depuis, jusqua, apres, LOT),
      (id) =>
        repository.transaction(async (trx) => {
          const row = await repository.findForUpdate('', id, trx);
          if (!row || estCloturee(row.statutDeLaDemande) || row.valideJusqua <= depuis || row.valideJusqua > jusqua || row.rappelsEnvoyes.includes(`,${jours},`)) {
            return false;
          }
          const envoyes = new Set(row.rappelsEnvoyes.split(',').filter(Boolean).map(Number));
          for (const d of rappels) if (d >= jours) envoyes.add(d);
          await repository.marquerRappels(row.id, `,${[...envoyes].sort((a, b) => b - a).join(',')},`, trx);
          await mailer.enqueue(mailRappelRenouvellement(row, config.publicUrl), { trx, demandeId: row.id });
          return true;
        }),
      arret,
      prolonger,
    );
  }
  return total;
}

/** Strikes off the open requests whose validity ended RADIATION_APRES_MOIS − VALIDITE_MOIS months ago. */
async function radier(deps: CycleDeps, arret: Arret, prolonger: () => Promise<void>): Promise<number> {
  const { repository, mailer, config, bus, log } = deps;
  const now = deps.now();
  const avant = ajouterMois(now.toISOString(), -(config.cycleDeVie.radiationMois - config.cycleDeVie.validiteMois));
  return parLots(
    (apres) => repository.idsARadier(avant, apres, LOT),
    async (id) => {
      const done = await repository.transaction(async (trx) => {
        const row = await repository.findForUpdate('', id, trx);
        if (!row || estCloturee(row.statutDeLaDemande) || row.valideJusqua > avant) return null;
        const at = await instantSuivant(repository, row.id, now, trx);
        const updated = await repository.setStatut({ ...row, radieeLe: at }, STATUT_RADIEE, at, trx);
        await repository.insertEvenement(row.id, row.statutDeLaDemande, STATUT_RADIEE, null, at, trx, { motif: MOTIF_RADIATION });
        const jusqua = vueCycleDeVie(updated, config).reactivableJusqua!;
        await mailer.enqueue(mailRadiation(updated, config.publicUrl, jusqua), { trx, demandeId: row.id });
        return { numeroUnique: row.numeroUnique, de: row.statutDeLaDemande as Statut, at };
      });
      if (!done) return false;
      await bus
        .publish({ numeroUnique: done.numeroUnique, statutDeLaDemande: STATUT_RADIEE, de: done.de, date: done.at })
        .catch((error: unknown) => log.error({ err: error }, 'publication de la radiation impossible'));
      return true;
    },
    arret,
    prolonger,
  );
}

/** Erases the requests closed (Radiée, Refusé, Attribué) more than CONSERVATION_MOIS ago. */
async function purger(deps: CycleDeps, arret: Arret, prolonger: () => Promise<void>): Promise<number> {
  const { repository, config } = deps;
  const now = deps.now();
  const avant = ajouterMois(now.toISOString(), -config.cycleDeVie.conservationMois);
  return parLots(
    (apres) => repository.idsAPurger(avant, apres, LOT),
    // Read again under the lock: a manager may have reopened the request since its id was read.
    (id) => effacerDemande(deps, id, 'purge', null, now, (row) => row.clotureeLe !== null && row.clotureeLe <= avant),
    arret,
    prolonger,
  );
}

/**
 * The in-process scheduler: looks at start, then every 5 minutes, whether the day's run is due (each
 * instance does; the lease lets one run it). Stops when the app closes, between two requests.
 */
export function planifierCycleDeVie(app: FastifyInstance, cycle: CycleDeps): void {
  const deps: CycleDeps = { signalements: { db: app.deps.db, kind: app.deps.dbKind }, ...cycle };
  const arret: Arret = { arrete: false };
  let courant: Promise<unknown> = Promise.resolve();
  const tourner = () => {
    courant = courant.then(() =>
      arret.arrete
        ? null
        : executerCycleDeVie(deps, { arret }).catch((error: unknown) => {
            if (!arret.arrete) deps.log.error({ err: error }, 'la tâche quotidienne du cycle de vie des demandes a échoué');
          }),
    );
  };
  tourner();
  const timer = setInterval(tourner, VERIFIER_TOUTES_MS);
  timer.unref();
  app.addHook('onClose', async () => {
    arret.arrete = true;
    clearInterval(timer);
    await courant;
  });
}
