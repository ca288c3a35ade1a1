import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajouterMois } from '../src/domain/cycleDeVie.js';
import { formatJour } from '../src/domain/dates.js';
import { dernierCreneau, executerCycleDeVie, TACHE, type CycleDeps } from '../src/server/features/demandes/cycleDeVie.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { createAccount, createTestApp, demande, mailsTo as mailsBruts, multipart, SAMPLES, type TestContext } from './helpers.js';

let ctx: TestContext;
/** The app's clock: each test sets it. */
let horloge = new Date('2026-01-02T10:00:00.000Z');
let manager: { cookie: string };

beforeAll(async () => {
  ctx = await createTestApp({}, { now: () => horloge });
  manager = await createAccount(ctx, 'manager');
});
afterAll(async () => {
  await ctx.close();
});

const a = (iso: string) => {
  horloge = new Date(iso);
};

function deps(): CycleDeps {
  const { db, dbKind, mailer, bus, storage, config, now } = ctx.app.deps;
  return { repository: new DemandesRepository(db, dbKind, now), mailer, bus, storage, config, now, log: ctx.app.log };
}
const job = () => executerCycleDeVie(deps(), { force: true });

let n = 0;
async function create(extra: Record<string, unknown> = {}) {
  n += 1;
  const email = `cycle${n}@example.org`;
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ email, ...extra }) });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as { id: string; numeroUnique: string; accessKey: string };
  return { ...data, email, headers: { 'x-access-key': data.accessKey } };
}

const row = (id: string) => ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** The e-mails to an address, quoted-printable decoded. */
const mailsTo = async (email: string) =>
  (await mailsBruts(ctx, email)).map((m) => m.replace(/(?:=[0-9A-F]{2})+/gu, (q) => Buffer.from(q.replace(/=/gu, ''), 'hex').toString('utf8')));
const rappels = async (email: string) => (await mailsTo(email)).filter((m) => m.includes('Renouvelez'));

describe('validity', () => {
  it('starts at registration for 12 months, shown to the key holder, not to anyone', async () => {
    a('2026-01-02T10:00:00.000Z');
    const d = await create();
    expect((await row(d.id)).valideJusqua).toBe('2027-01-02T10:00:00.000Z');
    const vue = await ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/cycle-de-vie`, headers: d.headers });
    expect(vue.statusCode).toBe(200);
    expect(vue.headers['cache-control']).toContain('no-store');
    expect(vue.json().data).toEqual({
      valideJusqua: '2027-01-02T10:00:00.000Z',
      renouvelableDes: '2026-11-02T10:00:00.000Z',
      radieeLe: null,
      reactivableJusqua: null,
      clotureeLe: null,
      effaceeAPartirDu: null,
    });
    expect((await ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/cycle-de-vie` })).statusCode).toBe(403);
    const parametres = await ctx.app.inject({ url: '/app/api/parametres' });
    expect(parametres.json().data.cycleDeVie).toEqual({ validiteMois: 12, radiationMois: 13, reactivationMois: 18, conservationMois: 12, rappelsJours: [30, 7] });
  });
});

describe('reminders and renewal', () => {
  it('sends the 30-day and the 7-day reminders once each, however often the job runs', async () => {
    a('2026-02-01T09:00:00.000Z');
    const d = await create();
    a('2027-01-03T09:00:00.000Z'); // 29 days before
    await job();
    await job();
    expect(await rappels(d.email)).toHaveLength(1);
    expect((await row(d.id)).rappelsEnvoyes).toBe(',30,');
    a('2027-01-26T09:00:00.000Z'); // 6 days before
    await job();
    await job();
    const sent = await rappels(d.email);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toContain(`valable jusqu’au ${formatJour('2027-02-01T09:00:00.000Z')}`);
    expect(sent[1]).toContain('Renouveler ma demande');
    expect((await row(d.id)).rappelsEnvoyes).toBe(',30,7,');
  });

  it('renews from two months before expiry: validity restarts from now, reminders start again', async () => {
    a('2026-03-01T09:00:00.000Z');
    const d = await create();
    a('2026-12-01T09:00:00.000Z'); // 3 months before
    const tot = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/renouveler`, headers: d.headers });
    expect(tot.statusCode).toBe(409);
    expect(tot.json().error).toMatchObject({ code: 'PAS_ENCORE_RENOUVELABLE' });
    expect(tot.json().error.message).toContain('à partir du 01/01/2027');
    a('2027-02-10T09:00:00.000Z');
    await job();
    expect(await rappels(d.email)).toHaveLength(1);
    const res = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/renouveler`, headers: d.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.valideJusqua).toBe('2028-02-10T09:00:00.000Z');
    const after = await row(d.id);
    expect(after).toMatchObject({ valideJusqua: '2028-02-10T09:00:00.000Z', dernierRenouvellement: '2027-02-10T09:00:00.000Z', rappelsEnvoyes: '', dateDEnregistrement: '2026-03-01T09:00:00.000Z' });
    a('2028-01-15T09:00:00.000Z');
    await job();
    expect(await rappels(d.email)).toHaveLength(2);
    // Without the key: refused.
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/renouveler` })).statusCode).toBe(403);
  });
});

describe('striking off and reactivation', () => {
  it('strikes off at 13 months: Radiée with its reason, a history step without actor, an e-mail saying until when to reactivate', async () => {
    a('2026-04-01T08:00:00.000Z');
    const d = await create();
    const other = await create();
    a('2027-04-30T08:00:00.000Z'); // 12 months and 29 days: not yet
    await job();
    expect((await row(d.id)).statutDeLaDemande).toBe('En attente des documents');
    await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${other.numeroUnique}/renouveler`, headers: other.headers });
    a('2027-05-01T08:00:00.000Z');
    const bilan = await job();
    expect(bilan?.radiees).toBe(1);
    const struck = await row(d.id);
    expect(struck).toMatchObject({ statutDeLaDemande: 'Radiée', statutRang: 80, radieeLe: '2027-05-01T08:00:00.000Z', clotureeLe: '2027-05-01T08:00:00.000Z' });
    expect((await row(other.id)).statutDeLaDemande).toBe('En attente des documents');
    const event = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', d.id).where('toStatus', '=', 'Radiée').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ fromStatus: 'En attente des documents', actorUserId: null, motif: 'Demande non renouvelée' });
    const history = await ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/historique`, headers: d.headers });
    expect(history.json().data.at(-1)).toMatchObject({ vers: 'Radiée', motif: 'Demande non renouvelée' });
    const mail = (await mailsTo(d.email)).find((m) => m.includes('Elle est donc radiée'));
    expect(mail).toContain(`jusqu’au ${formatJour('2027-10-01T08:00:00.000Z')}`);
    expect(mail).toContain('Réactiver ma demande');
    // Once only.
    await job();
    expect((await mailsTo(d.email)).filter((m) => m.includes('Elle est donc radiée'))).toHaveLength(1);
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/renouveler`, headers: d.headers })).json().error.code).toBe('NON_RENOUVELABLE');
  });

  it('undoing a manager’s change on a struck-off request gives its striking off back: still reactivatable, retention year unchanged', async () => {
    a('2026-04-02T08:00:00.000Z');
    const d = await create();
    a('2027-05-02T08:00:00.000Z');
    await job();
    const struck = await row(d.id);
    expect(struck).toMatchObject({ statutDeLaDemande: 'Radiée', radieeLe: '2027-05-02T08:00:00.000Z', clotureeLe: '2027-05-02T08:00:00.000Z' });
    a('2027-05-03T08:00:00.000Z');
    const cookie = manager.cookie;
    const change = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload: { logementId: d.numeroUnique, newStatus: 'En cours de traitement' } });
    expect(change.statusCode).toBe(200);
    expect(await row(d.id)).toMatchObject({ radieeLe: null, clotureeLe: null });
    const undo = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status/annuler', headers: { cookie }, payload: { id: change.json().data.annulation.id } });
    expect(undo.statusCode).toBe(200);
    expect(await row(d.id)).toMatchObject({ statutDeLaDemande: 'Radiée', radieeLe: '2027-05-02T08:00:00.000Z', clotureeLe: '2027-05-02T08:00:00.000Z' });
    const vue = await ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/cycle-de-vie`, headers: d.headers });
    expect(vue.json().data.reactivableJusqua).toBe('2027-10-02T08:00:00.000Z');
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/reactiver`, headers: d.headers })).statusCode).toBe(200);
  });

  it('reactivates until 18 months: status back, validity restarts, registration date kept; refused after', async () => {
    a('2026-05-10T08:00:00.000Z');
    const d = await create();
    const late = await create();
    const cookie = manager.cookie;
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload: { logementId: d.numeroUnique, newStatus: 'Passage CAL' } });
    a('2027-06-11T08:00:00.000Z');
    await job();
    expect((await row(d.id)).statutDeLaDemande).toBe('Radiée');
    const vue = await ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/cycle-de-vie`, headers: d.headers });
    expect(vue.json().data.reactivableJusqua).toBe('2027-11-10T08:00:00.000Z');
    a('2027-11-09T08:00:00.000Z');
    const res = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/reactiver`, headers: d.headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.statutDeLaDemande).toBe('Passage CAL');
    expect(await row(d.id)).toMatchObject({
      statutDeLaDemande: 'Passage CAL',
      dateDEnregistrement: '2026-05-10T08:00:00.000Z',
      valideJusqua: '2028-11-09T08:00:00.000Z',
      radieeLe: null,
      clotureeLe: null,
    });
    a('2027-11-11T08:00:00.000Z');
    const refused = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${late.numeroUnique}/reactiver`, headers: late.headers });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({ code: 'DELAI_REACTIVATION_DEPASSE' });
    expect(refused.json().error.message).toContain('10/11/2027');
    const notStruck = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${d.numeroUnique}/reactiver`, headers: d.headers });
    expect(notStruck.json().error.code).toBe('NON_REACTIVABLE');
  });

  it('shows managers the reactivation in the journal as the applicant’s, by the private key or as the owner', async () => {
    a('2028-01-10T08:00:00.000Z');
    const habitant = await createAccount(ctx, 'habitant', { prenom: 'Hélène', nom: 'Martin' });
    const parCle = await create();
    const parCompte = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', headers: { cookie: habitant.cookie }, payload: demande({ email: 'cycle-compte@example.org' }) });
    expect(parCompte.statusCode).toBe(201);
    const numeroCompte = parCompte.json().data.numeroUnique as string;
    a('2029-02-11T08:00:00.000Z');
    await job();
    a('2029-03-01T08:00:00.000Z');
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${parCle.numeroUnique}/reactiver`, headers: parCle.headers })).statusCode).toBe(200);
    expect((await ctx.app.inject({ method: 'POST', url: `/app/api/logement/${numeroCompte}/reactiver`, headers: { cookie: habitant.cookie } })).statusCode).toBe(200);
    for (const numero of [parCle.numeroUnique, numeroCompte]) {
      const journal = (await ctx.app.inject({ url: `/app/api/logement/${numero}/journal`, headers: { cookie: manager.cookie } })).json().data as { action: string; par: string; detail?: string }[];
      expect(journal.map((e) => [e.action, e.par, e.detail])).toEqual([['reactivee', 'Le demandeur', 'En attente des documents']]);
    }
  });
});

describe('retention', () => {
  it('purges a year after Refusé, Attribué or Radiée: rows anonymised, files gone; an open request stays', async () => {
    a('2026-06-01T08:00:00.000Z');
    const refusee = await create();
    const attribuee = await create();
    const rouverte = await create();
    const body = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf }]);
    const up = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${refusee.numeroUnique}`, headers: { ...body.headers, ...refusee.headers }, payload: body.payload });
    expect(up.statusCode, up.body).toBe(201);
    const cookie = manager.cookie;
    const set = (numero: string, newStatus: string) =>
      ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload: { logementId: numero, newStatus } });
    await set(refusee.numeroUnique, 'Refusé');
    await set(attribuee.numeroUnique, 'Attribué');
    await set(rouverte.numeroUnique, 'Refusé');
    // A step follows the previous one by at least a millisecond (the creation's, at the same instant).
    expect((await row(refusee.id)).clotureeLe).toBe('2026-06-01T08:00:00.001Z');
    a('2026-06-02T08:00:00.000Z');
    await set(rouverte.numeroUnique, 'En attente');
    expect((await row(rouverte.id)).clotureeLe).toBeNull();
    await set(attribuee.numeroUnique, 'Refusé');
    expect((await row(attribuee.id)).clotureeLe).toBe('2026-06-01T08:00:00.001Z');
    const uploads = path.join(ctx.dataDir, 'uploads', refusee.id);
    expect(fs.readdirSync(uploads, { recursive: true }).length).toBeGreaterThan(0);

    a('2027-05-31T08:00:00.000Z');
    await job();
    expect((await row(refusee.id)).effaceeLe).toBeNull();
    a('2027-06-01T08:00:01.000Z');
    const bilan = await job();
    expect(bilan?.purgees).toBe(2);
    for (const id of [refusee.id, attribuee.id]) {
      const r = await row(id);
      expect(r.effaceeLe).not.toBeNull();
      expect(r).toMatchObject({ prenom: '', nom: '', email: '' });
    }
    expect(fs.existsSync(uploads) ? fs.readdirSync(uploads, { recursive: true }).filter((f) => !String(f).endsWith('/')) : []).toEqual([]);
    expect((await row(rouverte.id)).effaceeLe).toBeNull();
  });

  it('a closed request has no validity nor attestation any more, and says from when it is erased; reopened, both are back', async () => {
    a('2026-03-01T08:00:00.000Z');
    const d = await create();
    const set = (newStatus: string) =>
      ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: d.numeroUnique, newStatus } });
    const cycle = async () => (await ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/cycle-de-vie`, headers: d.headers })).json().data as Record<string, unknown>;
    const attestation = (headers: Record<string, string>) => ctx.app.inject({ url: `/app/api/logement/${d.numeroUnique}/attestation.pdf`, headers });
    a('2026-04-10T09:00:00.000Z');
    expect((await set('Refusé')).statusCode).toBe(200);
    expect(await cycle()).toMatchObject({ renouvelableDes: null, clotureeLe: '2026-04-10T09:00:00.000Z', effaceeAPartirDu: '2027-04-10T09:00:00.000Z' });
    for (const headers of [d.headers, { cookie: manager.cookie }]) {
      const refus = await attestation(headers);
      expect(refus.statusCode).toBe(409);
      expect(refus.json()).toEqual({
        error: { code: 'DEMANDE_CLOSE', message: 'Cette demande est close (Refusé) : l’attestation d’enregistrement n’est délivrée que pour une demande en cours.' },
      });
    }
    expect((await set('En attente')).statusCode).toBe(200);
    expect(await cycle()).toMatchObject({ valideJusqua: '2027-03-01T08:00:00.000Z', clotureeLe: null, effaceeAPartirDu: null });
    const pdf = await attestation(d.headers);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('leaves a request a manager reopened after the job read its id: it is read again under the lock', async () => {
    a('2026-06-15T08:00:00.000Z');
    const purgee = await create();
    const reouverte = await create();
    const cookie = manager.cookie;
    for (const d of [purgee, reouverte]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload: { logementId: d.numeroUnique, newStatus: 'Refusé' } });
      expect(res.statusCode).toBe(200);
    }
    a('2027-06-16T08:00:00.000Z');
    const d = deps();
    const lire = d.repository.idsAPurger.bind(d.repository);
    // The job has read both ids when the manager reopens one.
    d.repository.idsAPurger = async (...args) => {
      const ids = await lire(...args);
      if (ids.includes(reouverte.id)) {
        const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload: { logementId: reouverte.numeroUnique, newStatus: 'En attente' } });
        expect(res.statusCode).toBe(200);
      }
      return ids;
    };
    await executerCycleDeVie(d, { force: true });
    expect((await row(purgee.id)).effaceeLe).not.toBeNull();
    expect(await row(reouverte.id)).toMatchObject({ effaceeLe: null, statutDeLaDemande: 'En attente', email: reouverte.email });
  });
});

describe('the daily job', () => {
  it('is due at its Paris hour: today’s once past, else yesterday’s, the calendar day read in Paris', () => {
    const creneau = (now: string, heure: number) => dernierCreneau(new Date(now), heure).toISOString();
    expect(creneau('2026-07-14T05:00:00Z', 3)).toBe('2026-07-14T01:00:00.000Z');
    expect(creneau('2026-07-14T00:30:00Z', 3)).toBe('2026-07-13T01:00:00.000Z');
    // 00:30 on 16 January in Paris, still the 15th in UTC.
    expect(creneau('2026-01-15T23:30:00Z', 0)).toBe('2026-01-15T23:00:00.000Z');
    // 01:30 in Paris on the spring change day, before 03:00 (summer time): the day before's 03:00 (winter time).
    expect(creneau('2026-03-29T00:30:00Z', 3)).toBe('2026-03-28T02:00:00.000Z');
  });

  it('runs once when two runs start at once (the lease), and once a day unless forced', async () => {
    a('2026-07-01T08:00:00.000Z');
    const d = await create();
    a('2027-06-20T08:00:00.000Z');
    // A forced run waits for nothing but the lease: while another instance holds it, it does not start.
    const repository = new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind, ctx.app.deps.now);
    expect(await repository.prendreBail(TACHE, '2027-06-20T08:00:00.000Z', '2027-06-20T08:10:00.000Z', null)).toBe(true);
    expect(await job()).toBeNull();
    expect(await rappels(d.email)).toHaveLength(0);
    await repository.rendreBail(TACHE, null);
    // Two daily runs at once: one does the work, the other finds the lease taken or today's run done
    // (whichever order the two connections get, so this holds on PostgreSQL's pool too).
    const [first, second] = await Promise.all([executerCycleDeVie(deps()), executerCycleDeVie(deps())]);
    expect([first, second].filter((b) => b === null)).toHaveLength(1);
    expect(await rappels(d.email)).toHaveLength(1);
    // Not forced: due once after 03:00 Paris; the run above counts for today.
    a('2027-06-20T09:00:00.000Z');
    expect(await executerCycleDeVie(deps())).toBeNull();
    a('2027-06-21T01:30:00.000Z'); // 03:30 in Paris (summer time)
    expect(await executerCycleDeVie(deps())).not.toBeNull();
    expect(await executerCycleDeVie(deps())).toBeNull();
  });
});

describe('managers', () => {
  it('see the validity end, sort on it and filter: expiring within 30 days, expired, struck off', async () => {
    const prefix = '013filt';
    a('2025-01-01T08:00:00.000Z');
    const expired = await create({ numeroUnique: `${prefix}00001` });
    a('2025-02-15T08:00:00.000Z');
    const soon = await create({ numeroUnique: `${prefix}00002` });
    a('2025-06-01T08:00:00.000Z');
    const later = await create({ numeroUnique: `${prefix}00003` });
    a('2024-11-01T08:00:00.000Z');
    const struck = await create({ numeroUnique: `${prefix}00004` });
    a('2025-12-15T08:00:00.000Z');
    await job();
    expect((await row(struck.id)).statutDeLaDemande).toBe('Radiée');
    a('2026-01-20T08:00:00.000Z');
    const list = async (query: string) => {
      const res = await ctx.app.inject({ url: `/app/api/logement?q=${prefix}&${query}`, headers: { cookie: manager.cookie } });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { numeroUnique: string; valideJusqua: string }[]; total: number };
    };
    expect((await list('expiration=bientot')).data.map((r) => r.numeroUnique)).toEqual([soon.numeroUnique]);
    expect((await list('expiration=expiree')).data.map((r) => r.numeroUnique)).toEqual([expired.numeroUnique]);
    expect((await list('expiration=radiee')).data.map((r) => r.numeroUnique)).toEqual([struck.numeroUnique]);
    const sorted = await list('sort=valideJusqua&order=asc');
    expect(sorted.data.map((r) => r.numeroUnique)).toEqual([struck, expired, soon, later].map((r) => r.numeroUnique));
    expect(sorted.data[2]!.valideJusqua).toBe(ajouterMois('2025-02-15T08:00:00.000Z', 12));
    expect((await ctx.app.inject({ url: '/app/api/logement?expiration=demain', headers: { cookie: manager.cookie } })).statusCode).toBe(400);
  });
});
