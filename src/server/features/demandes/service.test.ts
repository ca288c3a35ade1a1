import fs from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, type TestContext } from '../../../../test/helpers.js';
import { demandeSaisieSchema, type EvenementDirect } from '../../../domain/demande.js';
import { ApiError } from '../../errors.js';
import { LocalBus } from '../../events/index.js';
import type { Mailer } from '../../mail/index.js';
import { hashAccessKey } from './access.js';
import { DemandesRepository } from './repository.js';
import { DemandesService } from './service.js';

/**
 * State changes of housing requests (docs/produit.md « Statuts »): each is one transaction of the real
 * database; the e-mail and the live event follow the commit. Outcomes are read where people and
 * managers read them: rows, history, `.eml` files, events heard on the bus, log lines.
 */

interface LogLine {
  level: number;
  msg: string;
  err?: { message: string };
}

let ctx: TestContext;
let repository: DemandesRepository;
let service: DemandesService;
let logger: FastifyInstance;
const logs: LogLine[] = [];
let manager: Awaited<ReturnType<typeof createAccount>>;
let owner: Awaited<ReturnType<typeof createAccount>>;
/** The service's clock: each test sets it. */
let maintenant = new Date('2026-03-04T05:06:07.000Z');
let compteur = 0;

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager');
  owner = await createAccount(ctx, 'habitant');
  repository = new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind);
  // No undo window here: the e-mails of these changes leave at once (the window has its own tests below).
  service = new DemandesService({ repository, mailer: ctx.app.deps.mailer, bus: ctx.app.deps.bus, config: { ...ctx.config, delaiAnnulationMs: 0 }, now: () => maintenant });
  logger = Fastify({ logger: { level: 'info', stream: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } } });
});

afterAll(async () => {
  await logger.close();
  await ctx.close();
});

/** A valid request as the route hands it to the service, with its own numéro and e-mail address. */
function saisie(overrides: Record<string, unknown> = {}) {
  compteur += 1;
  const numeroUnique = `013svc${String(compteur).padStart(6, '0')}`;
  return demandeSaisieSchema.parse(demande({ numeroUnique, email: `${numeroUnique}@example.org`, ...overrides }));
}

/** The e-mails sent to an address, decoded (quoted-printable body, encoded-word subject). */
async function mailsTo(email: string): Promise<{ subject: string; text: string }[]> {
  await ctx.app.deps.mailer.idle();
  const dir = path.join(ctx.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  const bytes = (s: string) => Buffer.from(s.replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .map((raw) => {
      const [head, ...body] = raw.split('\n\n');
      const headers = head!.replace(/\n[ \t]+/gu, ' ');
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'mu').exec(headers)?.[1] ?? '';
      const subject = header('Subject').replace(/=\?UTF-8\?Q\?([^?]*)\?=\s*/giu, (_, q: string) => bytes(q.replace(/_/gu, ' ')));
      return { to: header('To'), subject, text: bytes(body.join('\n\n').replace(/=\n/gu, '')) };
    })
    .filter((m) => m.to === email)
    .map(({ subject, text }) => ({ subject, text }));
}

const rowOf = (numeroUnique: string) => ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow();
const historyOf = async (id: string) =>
  (await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', id).orderBy('at').execute()).map((e) => [e.fromStatus, e.toStatus, e.actorUserId, e.at]);

const MARQUEUR = 'marqueur-de-fin';

/**
 * Waits until what was published so far has come back: on PostgreSQL, events come back through LISTEN, and
 * a marker published now arrives after them.
 */
async function passage(): Promise<void> {
  const { bus } = ctx.app.deps;
  let markerHeard!: () => void;
  const marker = new Promise<void>((resolve) => (markerHeard = resolve));
  const unsubscribe = bus.subscribe((e) => e.numeroUnique === MARQUEUR && markerHeard());
  try {
    await bus.publish({ numeroUnique: MARQUEUR, statutDeLaDemande: 'Refusé', de: null, date: '' });
    await marker;
  } finally {
    unsubscribe();
  }
}

/** Runs `work` and answers what the bus carried meanwhile (not the creations of the test's set-up, still on their way). */
async function heard<T>(work: () => Promise<T>): Promise<{ result: T; events: EvenementDirect[] }> {
  await passage();
  const events: EvenementDirect[] = [];
  const unsubscribe = ctx.app.deps.bus.subscribe((e) => e.numeroUnique !== MARQUEUR && events.push(e));
  try {
    const result = await work();
    await passage();
    return { result, events };
  } finally {
    unsubscribe();
  }
}

describe('creer', () => {
  it('records the request at the given time, stores only the hash of its key, and e-mails its private link', async () => {
    maintenant = new Date('2026-03-04T05:06:07.000Z');
    const input = saisie();
    const { row, accessKey, privateLink } = await service.creer(input, owner.uid);
    expect(accessKey).toMatch(/^[A-Za-z0-9_-]{43}$/u);
    expect(privateLink).toBe(`http://quartier.test/logement/${input.numeroUnique}#cle=${accessKey}`);
    expect(row).toMatchObject({ numeroUnique: input.numeroUnique, dateDEnregistrement: '2026-03-04T05:06:07.000Z', statutDeLaDemande: 'En attente des documents' });

    const stored = await rowOf(input.numeroUnique);
    expect(stored).toMatchObject({ id: row.id, ownerUserId: owner.uid, dateDEnregistrement: '2026-03-04T05:06:07.000Z', accessKeyHash: hashAccessKey(accessKey), statutRang: 10 });
    expect(JSON.stringify(stored)).not.toContain(accessKey);
    expect(await historyOf(row.id)).toEqual([[null, 'En attente des documents', null, '2026-03-04T05:06:07.000Z']]);

    const mails = await mailsTo(input.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe(`Votre demande de logement n° ${input.numeroUnique} est enregistrée`);
    // Greeted by the applicant's first name.
    expect(mails[0]!.text).toMatch(/^Bonjour Hélène,$/mu);
    expect(mails[0]!.text).toContain(privateLink);
  });

  it('records a request submitted signed out without owner, and draws a new key each time', async () => {
    const a = await service.creer(saisie(), null);
    const b = await service.creer(saisie(), null);
    expect((await rowOf(a.row.numeroUnique)).ownerUserId).toBeNull();
    expect(a.accessKey).not.toBe(b.accessKey);
  });

  it('refuses a numéro already recorded with 409 DUPLICATE, recording and sending nothing more', async () => {
    const input = saisie();
    await service.creer(input, null);
    const error = await service.creer({ ...input, prenom: 'Autre' }, null).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      statusCode: 409,
      code: 'DUPLICATE',
      message: 'Une demande existe déjà pour ce numéro unique !',
      fields: { numeroUnique: 'Une demande existe déjà pour ce numéro unique !' },
    });
    const rows = await ctx.app.deps.db.selectFrom('housingRequests').select('prenom').where('numeroUnique', '=', input.numeroUnique).execute();
    expect(rows).toEqual([{ prenom: 'Hélène' }]);
    expect(await mailsTo(input.email)).toHaveLength(1);
  });

  it("lets any other failure of the database through as it is, and sends nothing", async () => {
    const input = saisie();
    const error = await service.creer(input, 'compte-inexistant').catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect(String(error)).toMatch(/FOREIGN KEY/iu);
    expect(await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', input.numeroUnique).execute()).toEqual([]);
    expect(await mailsTo(input.email)).toEqual([]);
  });

  it('records a request only with its e-mail queued: when the outbox cannot take it, nothing is recorded', async () => {
    const mailer: Mailer = Object.create(ctx.app.deps.mailer) as Mailer;
    mailer.enqueue = async () => {
      throw new Error("file d’envoi en panne");
    };
    const sansFile = new DemandesService({ repository, mailer, bus: ctx.app.deps.bus, config: ctx.config, now: () => maintenant });
    const input = saisie();
    const error = await sansFile.creer(input, null).catch((e: unknown) => e);
    expect(String(error)).toContain("file d’envoi en panne");
    expect(await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', input.numeroUnique).execute()).toEqual([]);
  });

  it("uses the real time when no clock is given", async () => {
    const horloge = new DemandesService({ repository, mailer: ctx.app.deps.mailer, bus: ctx.app.deps.bus, config: ctx.config });
    const avant = Date.now();
    const { row } = await horloge.creer(saisie(), null);
    const date = Date.parse(row.dateDEnregistrement);
    expect(date).toBeGreaterThanOrEqual(avant);
    expect(date).toBeLessThanOrEqual(Date.now());
  });
});

describe('changerStatut', () => {
  it('changes the status with its rank, records who, when and from what, then e-mails the requester and tells the live streams', async () => {
    maintenant = new Date('2026-03-04T08:00:00.000Z');
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    maintenant = new Date('2026-03-05T09:30:00.000Z');
    const spaced = input.numeroUnique.toUpperCase().replace(/(.{3})/gu, '$1 ');
    const { result, events } = await heard(() => service.changerStatut(spaced, 'Passage CAL', manager.uid, logger.log));
    const { row } = result;

    expect(row).toMatchObject({ id: created.id, numeroUnique: input.numeroUnique, statutDeLaDemande: 'Passage CAL', updatedAt: '2026-03-05T09:30:00.000Z' });
    expect(await rowOf(input.numeroUnique)).toMatchObject({ statutDeLaDemande: 'Passage CAL', statutRang: 50, updatedAt: '2026-03-05T09:30:00.000Z' });
    expect(await historyOf(created.id)).toEqual([
      [null, 'En attente des documents', null, '2026-03-04T08:00:00.000Z'],
      ['En attente des documents', 'Passage CAL', manager.uid, '2026-03-05T09:30:00.000Z'],
    ]);
    expect(events).toEqual([{ numeroUnique: input.numeroUnique, statutDeLaDemande: 'Passage CAL', de: 'En attente des documents', date: '2026-03-05T09:30:00.000Z' }]);
    const mails = await mailsTo(input.email);
    expect(mails.map((m) => m.subject).sort()).toEqual([
      `Votre demande de logement n° ${input.numeroUnique} : Passage CAL`,
      `Votre demande de logement n° ${input.numeroUnique} est enregistrée`,
    ]);
    const statut = mails.find((m) => m.subject.endsWith(': Passage CAL'))!;
    expect(statut.text).toContain('Nouveau statut : Passage CAL.');
    expect(statut.text).toContain(`http://quartier.test/logement/${input.numeroUnique}`);
    expect(statut.text).not.toContain('#cle=');
  });

  it("finds the request by its id too, and chains the history from the previous status", async () => {
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    maintenant = new Date('2026-03-06T10:00:00.000Z');
    await heard(() => service.changerStatut(input.numeroUnique, 'Demande envoyée', manager.uid, logger.log));
    maintenant = new Date('2026-03-07T10:00:00.000Z');
    const { result, events } = await heard(() => service.changerStatut(created.id, 'Refusé', manager.uid, logger.log));
    expect(result.row.statutDeLaDemande).toBe('Refusé');
    expect(events).toEqual([{ numeroUnique: input.numeroUnique, statutDeLaDemande: 'Refusé', de: 'Demande envoyée', date: '2026-03-07T10:00:00.000Z' }]);
    expect((await historyOf(created.id)).slice(1).map(([de, vers]) => [de, vers])).toEqual([
      ['En attente des documents', 'Demande envoyée'],
      ['Demande envoyée', 'Refusé'],
    ]);
    expect((await rowOf(input.numeroUnique)).statutRang).toBe(90);
  });

  it('changes nothing and tells no one when the status is already the current one', async () => {
    maintenant = new Date('2026-03-08T10:00:00.000Z');
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    maintenant = new Date('2026-03-09T10:00:00.000Z');
    const { result, events } = await heard(() => service.changerStatut(input.numeroUnique, 'En attente des documents', manager.uid, logger.log));
    expect(result).toMatchObject({ row: { statutDeLaDemande: 'En attente des documents', updatedAt: '2026-03-08T10:00:00.000Z' }, annulation: null });
    expect(events).toEqual([]);
    expect(await historyOf(created.id)).toHaveLength(1);
    expect((await rowOf(input.numeroUnique)).updatedAt).toBe('2026-03-08T10:00:00.000Z');
    expect(await mailsTo(input.email)).toHaveLength(1);
  });

  it('answers 404 in French for a request that does not exist, changing nothing', async () => {
    for (const logementId of ['013inconnu000', '8d3f2a52-1c1e-4d0c-9f43-2f6a5e0b7c11', 'pas un numéro', '']) {
      const { result: error, events } = await heard(() => service.changerStatut(logementId, 'Attribué', manager.uid, logger.log).catch((e: unknown) => e));
      expect(error, logementId).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ statusCode: 404, code: 'NOT_FOUND', message: "Il n’existe pas de demande de logement pour ce numéro unique" });
      expect(events).toEqual([]);
    }
    expect(await ctx.app.deps.db.selectFrom('statusEvents').select('id').where('actorUserId', '=', 'personne').execute()).toEqual([]);
  });

  it('keeps the status and its history together: when the history cannot be written, the status stays as it was and no one is told', async () => {
    class HistoriqueEnPanne extends DemandesRepository {
      override async insertEvenement(): Promise<string> {
        throw new Error('historique en panne');
      }
    }
    const enPanne = new DemandesService({ repository: new HistoriqueEnPanne(ctx.app.deps.db, ctx.app.deps.dbKind), mailer: ctx.app.deps.mailer, bus: ctx.app.deps.bus, config: { ...ctx.config, delaiAnnulationMs: 0 } });
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    const { result: error, events } = await heard(() => enPanne.changerStatut(input.numeroUnique, 'Attribué', manager.uid, logger.log).catch((e: unknown) => e));
    expect(String(error)).toContain('historique en panne');
    expect(events).toEqual([]);
    expect((await rowOf(input.numeroUnique)).statutDeLaDemande).toBe('En attente des documents');
    expect(await historyOf(created.id)).toHaveLength(1);
    expect(await mailsTo(input.email)).toHaveLength(1);
  });

  it('still changes the status and e-mails the requester when the live event cannot be published, and logs why', async () => {
    class BusEnPanne extends LocalBus {
      override async publish(): Promise<void> {
        throw new Error('bus en panne');
      }
    }
    const sansBus = new DemandesService({ repository, mailer: ctx.app.deps.mailer, bus: new BusEnPanne(), config: { ...ctx.config, delaiAnnulationMs: 0 } });
    const input = saisie();
    await service.creer(input, null);
    logs.length = 0;
    const { row } = await sansBus.changerStatut(input.numeroUnique, 'Attribué', manager.uid, logger.log);
    expect(row.statutDeLaDemande).toBe('Attribué');
    expect((await rowOf(input.numeroUnique)).statutDeLaDemande).toBe('Attribué');
    expect((await mailsTo(input.email)).map((m) => m.subject)).toContain(`Votre demande de logement n° ${input.numeroUnique} : Attribué`);
    expect(logs.map((l) => [l.level, l.msg, l.err?.message])).toEqual([[50, 'publication du changement de statut impossible', 'bus en panne']]);
  });
});

describe('annuler (undo within the window, before the e-mail leaves)', () => {
  const statusMails = async (email: string) => (await mailsTo(email)).filter((m) => m.subject.includes(' : '));
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  /** A service whose undo window is `ms` (its e-mails wait that long in the outbox, by the real clock). */
  const avecFenetre = (ms?: number) =>
    new DemandesService({ repository, mailer: ctx.app.deps.mailer, bus: ctx.app.deps.bus, config: ms === undefined ? ctx.config : { ...ctx.config, delaiAnnulationMs: ms }, now: () => maintenant });

  it('gives 10 s by default: the answer says until when (the change time + 10 s), and the e-mail waits in the outbox', async () => {
    const defaut = avecFenetre();
    maintenant = new Date('2026-04-01T09:00:00.000Z');
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    maintenant = new Date('2026-04-01T10:00:00.000Z');
    const { annulation } = await defaut.changerStatut(input.numeroUnique, 'Refusé', manager.uid, logger.log, 'Hors délai');
    expect(annulation).toEqual({ id: expect.any(String), jusqua: '2026-04-01T10:00:10.000Z' });
    const queued = await ctx.app.deps.db.selectFrom('mailOutbox').selectAll().where('key', '=', `statut:${annulation!.id}`).executeTakeFirstOrThrow();
    expect(queued).toMatchObject({ recipient: input.email, sentAt: null, attempts: 0 });
    expect(Date.parse(queued.sendAfter) - Date.parse(queued.createdAt)).toBe(10_000);
    expect(queued.body).toContain('Hors délai');
    expect(await statusMails(input.email)).toEqual([]);

    maintenant = new Date('2026-04-01T10:00:09.999Z');
    const { result: row, events } = await heard(() => defaut.annuler(annulation!.id, manager.uid, logger.log));
    expect(row).toMatchObject({ statutDeLaDemande: 'En attente des documents', updatedAt: '2026-04-01T10:00:09.999Z' });
    expect(events).toEqual([{ numeroUnique: input.numeroUnique, statutDeLaDemande: 'En attente des documents', de: 'Refusé', date: '2026-04-01T10:00:09.999Z' }]);
    expect(await rowOf(input.numeroUnique)).toMatchObject({ statutDeLaDemande: 'En attente des documents', statutRang: 10 });
    expect(await ctx.app.deps.db.selectFrom('mailOutbox').select('id').where('key', '=', `statut:${annulation!.id}`).execute()).toEqual([]);
    expect((await repository.historique(created.id, true, true)).map((e) => e.vers)).toEqual(['En attente des documents']);
  });

  it('refuses once the window has passed by the clock (409 TROP_TARD), though the e-mail has not left yet', async () => {
    const svc = avecFenetre(500);
    maintenant = new Date('2026-04-02T09:00:00.000Z');
    const input = saisie();
    await service.creer(input, null);
    maintenant = new Date('2026-04-02T10:00:00.000Z');
    const { annulation } = await svc.changerStatut(input.numeroUnique, 'Attribué', manager.uid, logger.log);
    maintenant = new Date('2026-04-02T10:00:00.500Z');
    const error = await svc.annuler(annulation!.id, manager.uid, logger.log).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 409, code: 'TROP_TARD', message: "Trop tard pour annuler : l’e-mail est déjà parti." });
    expect(await rowOf(input.numeroUnique)).toMatchObject({ statutDeLaDemande: 'Attribué', statutRang: 60 });
    await sleep(550);
    expect((await statusMails(input.email)).map((m) => m.subject)).toEqual([`Votre demande de logement n° ${input.numeroUnique} : Attribué`]);
  });

  it('refuses once the delivery loop has taken the e-mail, even inside the window', async () => {
    const svc = avecFenetre(100);
    maintenant = new Date('2026-04-03T10:00:00.000Z');
    const input = saisie();
    await service.creer(input, null);
    const { annulation } = await svc.changerStatut(input.numeroUnique, 'Passage CAL', manager.uid, logger.log);
    await sleep(150);
    expect(await statusMails(input.email)).toHaveLength(1);
    const error = await svc.annuler(annulation!.id, manager.uid, logger.log).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 409, code: 'TROP_TARD' });
    expect((await rowOf(input.numeroUnique)).statutDeLaDemande).toBe('Passage CAL');
  });

  it('refuses to undo a change followed by another, even one that came back to the same status', async () => {
    const svc = avecFenetre(5000);
    const input = saisie();
    await service.creer(input, null);
    maintenant = new Date('2026-04-04T10:00:00.000Z');
    const first = await svc.changerStatut(input.numeroUnique, 'Refusé', manager.uid, logger.log);
    maintenant = new Date('2026-04-04T10:00:01.000Z');
    await svc.changerStatut(input.numeroUnique, 'En attente', manager.uid, logger.log);
    maintenant = new Date('2026-04-04T10:00:02.000Z');
    const third = await svc.changerStatut(input.numeroUnique, 'Refusé', manager.uid, logger.log);
    const error = await svc.annuler(first.annulation!.id, manager.uid, logger.log).catch((e: unknown) => e);
    expect(error).toMatchObject({ statusCode: 409, code: 'TROP_TARD' });
    expect((await rowOf(input.numeroUnique)).statutDeLaDemande).toBe('Refusé');
    expect((await svc.annuler(third.annulation!.id, manager.uid, logger.log)).statutDeLaDemande).toBe('En attente');
  });

  it('records a change made in the same millisecond as the previous step one millisecond later, so that it is the latest and can be undone', async () => {
    const svc = avecFenetre(5000);
    maintenant = new Date('2026-04-05T10:00:00.000Z');
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    const { row, annulation } = await svc.changerStatut(input.numeroUnique, 'Passage CAL', manager.uid, logger.log);
    expect(row.updatedAt).toBe('2026-04-05T10:00:00.001Z');
    expect(annulation!.jusqua).toBe('2026-04-05T10:00:05.001Z');
    expect((await repository.historique(created.id, false)).map((e) => e.vers)).toEqual(['En attente des documents', 'Passage CAL']);
    expect((await svc.annuler(annulation!.id, manager.uid, logger.log)).statutDeLaDemande).toBe('En attente des documents');
  });

  it('keeps a reason only with a refusal, and answers 404 for what is not an undoable change', async () => {
    const svc = avecFenetre(0);
    const input = saisie();
    const { row: created } = await service.creer(input, null);
    await svc.changerStatut(input.numeroUnique, 'Attribué', manager.uid, logger.log, 'Ignoré');
    const events = await ctx.app.deps.db.selectFrom('statusEvents').select(['id', 'toStatus', 'motif', 'fromStatus']).where('housingRequestId', '=', created.id).orderBy('at').execute();
    expect(events.map((e) => [e.toStatus, e.motif])).toEqual([
      ['En attente des documents', null],
      ['Attribué', null],
    ]);
    expect((await mailsTo(input.email)).find((m) => m.subject.endsWith(': Attribué'))!.text).not.toContain('Ignoré');
    for (const id of [events[0]!.id, 'inconnu']) {
      expect(await svc.annuler(id, manager.uid, logger.log).catch((e: unknown) => e)).toMatchObject({ statusCode: 404, code: 'NOT_FOUND', message: "Ce changement de statut n’existe pas." });
    }
  });
});
