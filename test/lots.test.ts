import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/server/db/index.js';
import { InstructionRepository } from '../src/server/features/instruction/repository.js';
import { InstructionService, MailDeLot } from '../src/server/features/instruction/service.js';
import { createAccount, createTestApp, demande, mailsTo, type TestContext } from './helpers.js';

// Bulk work on the managers' list (issue 12 point 7).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let autre: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let collegue: Awaited<ReturnType<typeof createAccount>>;

const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

async function creer(numeroUnique: string, commentaires = ''): Promise<void> {
  const res = await call('POST', '/logement', {}, demande({ numeroUnique, email: `${numeroUnique}@example.org`, commentaires }));
  expect(res.statusCode).toBe(201);
}

/** Starts a bulk action and waits for its end; answers its last progress. */
async function lot(cookie: string, body: unknown): Promise<{ total: number; faits: number; inchanges: number; echecs: number; fini: boolean }> {
  const started = await call('POST', '/lots', { cookie }, body);
  expect(started.statusCode, started.body).toBe(202);
  const { id } = started.json().data;
  for (let i = 0; i < 200; i++) {
    const etat = (await call('GET', `/lots/${id}`, { cookie })).json().data;
    if (etat.fini) return etat;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('bulk action did not finish');
}

const statuts = async (prefix: string) =>
  Object.fromEntries(
    (await ctx.app.deps.db.selectFrom('housingRequests').select(['numeroUnique', 'statutDeLaDemande']).where('numeroUnique', 'like', `${prefix}%`).execute()).map((r) => [
      r.numeroUnique,
      r.statutDeLaDemande,
    ]),
  );

beforeAll(async () => {
  ctx = await createTestApp();
  Object.assign(ctx.config, { delaiAnnulationMs: 0 });
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  autre = await createAccount(ctx, 'manager');
  habitant = await createAccount(ctx);
  collegue = await createAccount(ctx, 'manager', { prenom: 'Samir', nom: 'Haddad' });
  for (let i = 1; i <= 6; i++) await creer(`015lot00000${i}`, i <= 4 ? 'Famille Lotie' : '');
});
afterAll(async () => ctx.close());

describe('bulk actions', () => {
  it('are refused to anyone but managers, changing nothing', async () => {
    const body = { selection: { mode: 'numeros', numeros: ['015lot000001'] }, action: { type: 'statut', statut: 'Passage CAL' } };
    expect((await call('POST', '/lots', {}, body)).statusCode).toBe(401);
    expect((await call('POST', '/lots', { cookie: habitant.cookie }, body)).statusCode).toBe(403);
    expect((await statuts('015lot'))['015lot000001']).toBe('En attente des documents');
    const confier = { selection: body.selection, action: { type: 'confier', gestionnaireId: collegue.uid } };
    expect((await call('POST', '/lots', {}, confier)).statusCode).toBe(401);
    expect((await call('POST', '/lots', { cookie: habitant.cookie }, confier)).statusCode).toBe(403);
    expect((await call('POST', '/lots', { cookie: (await createAccount(ctx)).cookie }, confier)).statusCode).toBe(403);
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', '015lot000001').executeTakeFirstOrThrow()).suiviePar).toBeNull();
    expect(await ctx.app.deps.db.selectFrom('lots').select('id').execute()).toEqual([]);
  });

  it('change the status of the chosen requests, each with its history line and its e-mail, and count what was already so', async () => {
    await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015lot000002', newStatus: 'Passage CAL' });
    const etat = await lot(manager.cookie, {
      selection: { mode: 'numeros', numeros: ['015lot000001', '015lot000002', '015lot000003', '015lot000001'] },
      action: { type: 'statut', statut: 'Passage CAL' },
    });
    expect(etat).toMatchObject({ total: 3, faits: 2, inchanges: 1, echecs: 0, fini: true });
    expect(await statuts('015lot')).toMatchObject({ '015lot000001': 'Passage CAL', '015lot000002': 'Passage CAL', '015lot000003': 'Passage CAL', '015lot000004': 'En attente des documents' });
    const events = await ctx.app.deps.db
      .selectFrom('statusEvents')
      .innerJoin('housingRequests', 'housingRequests.id', 'statusEvents.housingRequestId')
      .select(['numeroUnique', 'actorUserId'])
      .where('toStatus', '=', 'Passage CAL')
      .where('numeroUnique', 'in', ['015lot000001', '015lot000003'])
      .execute();
    expect(events.map((e) => e.actorUserId)).toEqual([manager.uid, manager.uid]);
    for (const n of ['015lot000001', '015lot000003']) expect((await mailsTo(ctx, `${n}@example.org`)).filter((m) => m.includes('Nouveau statut'))).toHaveLength(1);
  });

  it('take every request matching the list’s filter, with a refusal’s reason', async () => {
    const etat = await lot(manager.cookie, { selection: { mode: 'filtre', requete: 'q=015lot&status=Passage+CAL' }, action: { type: 'statut', statut: 'Refusé', motif: 'Dossier incomplet' } });
    expect(etat).toMatchObject({ total: 3, faits: 3, echecs: 0 });
    expect(await statuts('015lot')).toMatchObject({ '015lot000001': 'Refusé', '015lot000002': 'Refusé', '015lot000003': 'Refusé', '015lot000004': 'En attente des documents' });
    const motifs = await ctx.app.deps.db.selectFrom('statusEvents').select('motif').where('toStatus', '=', 'Refusé').execute();
    expect(motifs.map((m) => m.motif)).toEqual(['Dossier incomplet', 'Dossier incomplet', 'Dossier incomplet']);
  });

  it('take the filter’s requests but those left out (`sauf`)', async () => {
    const etat = await lot(collegue.cookie, { selection: { mode: 'filtre', requete: 'q=015lot', sauf: ['015lot000002', '015lot000005'] }, action: { type: 'suivre' } });
    expect(etat).toMatchObject({ total: 4, faits: 4 });
    const suivies = await ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').where('suiviePar', '=', collegue.uid).orderBy('numeroUnique').execute();
    expect(suivies.map((r) => r.numeroUnique)).toEqual(['015lot000001', '015lot000003', '015lot000004', '015lot000006']);
    const laisse = await call('POST', '/lots', { cookie: collegue.cookie }, { selection: { mode: 'filtre', requete: 'q=015lot', sauf: ['pas un numéro'] }, action: { type: 'suivre' } });
    expect(laisse.statusCode).toBe(400);
  });

  it('make the manager follow the chosen requests', async () => {
    const etat = await lot(autre.cookie, { selection: { mode: 'numeros', numeros: ['015lot000005', '015lot000006'] }, action: { type: 'suivre' } });
    expect(etat).toMatchObject({ total: 2, faits: 2 });
    const suivies = await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', 'in', ['015lot000005', '015lot000006']).execute();
    expect(suivies.map((r) => r.suiviePar)).toEqual([autre.uid, autre.uid]);
    // « Suivies par moi » as a filter is the manager's own.
    expect(await lot(autre.cookie, { selection: { mode: 'filtre', requete: 'suivi=moi' }, action: { type: 'suivre' } })).toMatchObject({ total: 2, faits: 0, inchanges: 2 });
    expect(await lot(manager.cookie, { selection: { mode: 'filtre', requete: 'suivi=moi' }, action: { type: 'suivre' } })).toMatchObject({ total: 0 });
  });

  it('give the chosen requests to a colleague: each recorded in the audit, one e-mail to the colleague for the whole action, without the applicants’ data', async () => {
    for (const n of ['015conf00001', '015conf00002', '015conf00003']) await creer(n);
    // Samir follows the third already: left as it is, and not in his e-mail.
    expect((await call('PUT', '/logement/015conf00003/suivi', { cookie: collegue.cookie }, { suivre: true })).statusCode).toBe(200);
    const avant = (await mailsTo(ctx, collegue.email)).length;
    const etat = await lot(manager.cookie, {
      selection: { mode: 'numeros', numeros: ['015conf00001', '015conf00002', '015conf00003'] },
      action: { type: 'confier', gestionnaireId: collegue.uid },
    });
    expect(etat).toMatchObject({ total: 3, faits: 2, inchanges: 1, echecs: 0, fini: true });
    const rows = await ctx.app.deps.db
      .selectFrom('housingRequests')
      .select(['id', 'numeroUnique', 'suiviePar'])
      .where('numeroUnique', 'like', '015conf%')
      .orderBy('numeroUnique')
      .execute();
    expect(rows.map((r) => r.suiviePar)).toEqual([collegue.uid, collegue.uid, collegue.uid]);
    const lignes = await ctx.app.deps.db
      .selectFrom('journalGestion')
      .select(['housingRequestId', 'action', 'acteurUserId', 'detail'])
      .where('housingRequestId', 'in', rows.map((r) => r.id))
      .where('action', '=', 'confie')
      .orderBy('le')
      .execute();
    expect(lignes).toEqual([
      { housingRequestId: rows[0]!.id, action: 'confie', acteurUserId: manager.uid, detail: collegue.uid },
      { housingRequestId: rows[1]!.id, action: 'confie', acteurUserId: manager.uid, detail: collegue.uid },
    ]);
    const journal = (await call('GET', '/logement/015conf00001/journal', { cookie: autre.cookie })).json().data;
    expect(journal).toEqual([expect.objectContaining({ action: 'confie', par: 'Camille Durand', detail: 'Samir Haddad' })]);

    // One e-mail, sent at the end, naming both requests and their pages, and where to find them.
    const outbox = await ctx.app.deps.db.selectFrom('mailOutbox').selectAll().where('recipient', '=', collegue.email).where('key', 'like', 'confier:%').execute();
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ subject: '2 demandes de logement vous sont confiées', housingRequestId: null });
    const mails = (await mailsTo(ctx, collegue.email)).slice(avant);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    for (const n of ['015conf00001', '015conf00002']) expect(mail).toContain(`http://quartier.test/logement/${n}`);
    expect(mail).not.toContain('015conf00003');
    expect(mail).toContain('http://quartier.test/logement/list?suivi=moi');
    expect(mail).toContain('Camille Durand vous a confi');
    expect(mail).not.toMatch(/H=C3=A9l=C3=A8ne|Hélène|Martin|015conf0000\d@example\.org|Logement trop petit/u);
    // Given again: nothing changes, nobody is told.
    expect(await lot(manager.cookie, { selection: { mode: 'filtre', requete: 'q=015conf' }, action: { type: 'confier', gestionnaireId: collegue.uid } })).toMatchObject({
      total: 3,
      faits: 0,
      inchanges: 3,
    });
    expect((await mailsTo(ctx, collegue.email)).length).toBe(avant + 1);
  });

  it('given to oneself, are followed, with no e-mail', async () => {
    const avant = (await ctx.app.deps.db.selectFrom('mailOutbox').select('id').execute()).length;
    expect(await lot(autre.cookie, { selection: { mode: 'numeros', numeros: ['015conf00001'] }, action: { type: 'confier', gestionnaireId: autre.uid } })).toMatchObject({ faits: 1 });
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', '015conf00001').executeTakeFirstOrThrow()).suiviePar).toBe(autre.uid);
    expect((await ctx.app.deps.db.selectFrom('mailOutbox').select('id').execute()).length).toBe(avant);
  });

  it('refuse, before anything starts, to give requests to an account that is not a manager’s (400, in French)', async () => {
    const lots = (await ctx.app.deps.db.selectFrom('lots').select('id').execute()).length;
    for (const gestionnaireId of [habitant.uid, 'inconnu']) {
      const res = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: ['015conf00002'] }, action: { type: 'confier', gestionnaireId } });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'GESTIONNAIRE_INCONNU', message: 'Ce compte n’est pas (ou plus) celui d’un gestionnaire : choisissez un collègue dans la liste.' });
    }
    const vide = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: ['015conf00002'] }, action: { type: 'confier' } });
    expect(vide.statusCode).toBe(400);
    expect(vide.json().error.fields.action).toBe('Choisissez le gestionnaire à qui confier la demande.');
    expect((await ctx.app.deps.db.selectFrom('lots').select('id').execute()).length).toBe(lots);
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', '015conf00002').executeTakeFirstOrThrow()).suiviePar).toBe(collegue.uid);
  });

  it('keep their one e-mail in step with what is committed: queued past the lease while the action runs (a crash still tells), a new one once it started to leave', async () => {
    for (const n of ['015mail00001', '015mail00002', '015mail00003']) await creer(n);
    const ids = await ctx.app.deps.db.selectFrom('housingRequests').select(['id', 'numeroUnique']).where('numeroUnique', 'like', '015mail%').orderBy('numeroUnique').execute();
    const instruction = new InstructionService({
      repository: new InstructionRepository(ctx.app.deps.db),
      now: () => new Date(),
      envoi: { mailer: ctx.app.deps.mailer, publicUrl: ctx.config.publicUrl },
      bus: ctx.app.deps.bus,
      log: ctx.app.log,
    });
    const mailDeLot = new MailDeLot(crypto.randomUUID(), 120_000);
    const enFile = () =>
      ctx.app.deps.db.selectFrom('mailOutbox').select(['key', 'subject', 'body', 'sendAfter', 'sentAt']).where('key', 'like', `confier:${mailDeLot.lotId}:%`).orderBy('key').execute();
    await instruction.confier(ids[0]!.id, manager.uid, collegue.uid, mailDeLot);
    await instruction.confier(ids[1]!.id, manager.uid, collegue.uid, mailDeLot);
    // One mail naming both, due past the lease: what a crash now would leave to be sent.
    let file = await enFile();
    expect(file).toHaveLength(1);
    expect(file[0]!.subject).toBe('2 demandes de logement vous sont confiées');
    expect(file[0]!.body).toContain('015mail00001');
    expect(file[0]!.body).toContain('015mail00002');
    expect(Date.parse(file[0]!.sendAfter)).toBeGreaterThan(Date.now() + 60_000);
    // The mail started to leave (claimed): the next request goes into a new one, and the first is left alone.
    await ctx.app.deps.db.updateTable('mailOutbox').set({ claimedAt: new Date().toISOString(), claimToken: 'ailleurs' }).where('key', '=', mailDeLot.cle(0)).execute();
    await instruction.confier(ids[2]!.id, manager.uid, collegue.uid, mailDeLot);
    file = await enFile();
    expect(file.map((m) => [m.key, m.subject])).toEqual([
      [mailDeLot.cle(0), '2 demandes de logement vous sont confiées'],
      [mailDeLot.cle(1), 'Demande confiée — demande de logement n° 015mail00003'],
    ]);
    // The end: the one still queued leaves now.
    await instruction.envoyerMailDeLot(mailDeLot);
    file = await enFile();
    expect(Date.parse(file[1]!.sendAfter)).toBeLessThanOrEqual(Date.now());
    expect(file[0]!.sentAt).toBeNull();
  });

  it('count a request erased meanwhile as failed, and show progress to its owner only', async () => {
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '015lot000004').executeTakeFirstOrThrow()).id;
    expect((await call('POST', '/logement/015lot000004/retirer', {}, undefined)).statusCode).toBe(403);
    await ctx.app.deps.db.updateTable('housingRequests').set({ effaceeLe: new Date().toISOString() }).where('id', '=', id).execute();
    const started = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: ['015lot000004', '015lot000006'] }, action: { type: 'statut', statut: 'En attente' } });
    const lotId = started.json().data.id;
    expect((await call('GET', `/lots/${lotId}`, { cookie: autre.cookie })).statusCode).toBe(404);
    expect(started.statusCode, started.body).toBe(202);
    let etat;
    for (let i = 0; i < 1000 && !etat?.fini; i++) {
      await new Promise((r) => setTimeout(r, 20));
      etat = (await call('GET', `/lots/${lotId}`, { cookie: manager.cookie })).json().data;
    }
    expect(etat).toMatchObject({ total: 2, faits: 1, echecs: 1 });
  });

  it('keep their progress in the database: one whose instance stopped without a word reads as interrupted, and no longer blocks the next', async () => {
    const etat = await lot(manager.cookie, { selection: { mode: 'numeros', numeros: ['015lot000005'] }, action: { type: 'suivre' } });
    expect(etat).toMatchObject({ total: 1, faits: 1, fini: true });
    expect(etat).not.toHaveProperty('interrompu');
    const id = (await ctx.app.deps.db.selectFrom('lots').select('id').where('proprietaire', '=', manager.uid).orderBy('creeLe', 'desc').executeTakeFirstOrThrow()).id;
    // Its instance killed in the middle: not finished, and no news past its lease.
    await ctx.app.deps.db.updateTable('lots').set({ fini: 0, faits: 0, bailJusqua: new Date(Date.now() + 60_000).toISOString() }).where('id', '=', id).execute();
    expect((await call('GET', `/lots/${id}`, { cookie: manager.cookie })).json().data).toMatchObject({ fini: false });
    const body = { selection: { mode: 'numeros', numeros: ['015lot000006'] }, action: { type: 'suivre' } };
    expect((await call('POST', '/lots', { cookie: manager.cookie }, body)).statusCode).toBe(409);
    await ctx.app.deps.db.updateTable('lots').set({ bailJusqua: new Date(Date.now() - 1000).toISOString() }).where('id', '=', id).execute();
    expect((await call('GET', `/lots/${id}`, { cookie: manager.cookie })).json().data).toEqual({ id, total: 1, faits: 0, inchanges: 0, completes: 0, echecs: 0, fini: true, interrompu: true });
    expect(await lot(manager.cookie, body)).toMatchObject({ total: 1, fini: true });
  });

  it('started twice at once (two tabs, a double click), run once: the other is refused with 409', async () => {
    const avant = (await ctx.app.deps.db.selectFrom('lots').select('id').where('proprietaire', '=', autre.uid).execute()).length;
    const body = { selection: { mode: 'numeros', numeros: ['015lot000001', '015lot000002'] }, action: { type: 'suivre' } };
    const lancer = () => Promise.all([1, 2, 3].map(() => call('POST', '/lots', { cookie: autre.cookie }, body)));
    // PostgreSQL: the requests held by another transaction, so that the action started stays under way while the
    // three starts are checked (a finished action rightly lets the next one start).
    const reponses = process.env.DATABASE_URL
      ? await ctx.app.deps.db.transaction().execute(async (trx) => {
          await trx.selectFrom('housingRequests').select('id').where('numeroUnique', 'in', ['015lot000001', '015lot000002']).forUpdate().execute();
          return lancer();
        })
      : await lancer();
    expect(reponses.map((r) => r.statusCode).sort()).toEqual([202, 409, 409]);
    expect(reponses.find((r) => r.statusCode === 409)!.json().error.code).toBe('LOT_EN_COURS');
    expect(await ctx.app.deps.db.selectFrom('lots').select('id').where('proprietaire', '=', autre.uid).execute()).toHaveLength(avant + 1);
    const id = reponses.find((r) => r.statusCode === 202)!.json().data.id as string;
    for (let i = 0; i < 200 && !(await call('GET', `/lots/${id}`, { cookie: autre.cookie })).json().data.fini; i++) await new Promise((r) => setTimeout(r, 20));
  });

  it('refuse a filter matching more than 1,000 requests (413), a bad body (400), in French', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => `015big${String(i).padStart(6, '0')}`);
    const tooMany = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: rows }, action: { type: 'suivre' } });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.fields.selection).toMatch(/Au plus 1000 demandes/u);
    const avant = await ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').execute();
    // 1,001 requests make the filter too wide.
    const now = new Date().toISOString();
    const base = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '015lot000005').executeTakeFirstOrThrow();
    for (let i = 0; i < rows.length; i += 200) {
      await ctx.app.deps.db
        .insertInto('housingRequests')
        .values(rows.slice(i, i + 200).map((n) => ({ ...base, id: crypto.randomUUID(), numeroUnique: n, searchText: `${n} massif`, updatedAt: now })))
        .execute();
    }
    const large = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'q=massif' }, action: { type: 'statut', statut: 'Attribué' } });
    expect(large.statusCode).toBe(413);
    expect(large.json().error).toMatchObject({ code: 'LOT_TROP_GRAND', message: expect.stringMatching(/^Plus de 1\u202f000 demandes/u) });
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('numeroUnique').where('statutDeLaDemande', '=', 'Attribué').execute()).length).toBe(0);
    expect(avant.length).toBeGreaterThan(0);
    const bad = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'filtre', requete: 'sort=inconnu' }, action: { type: 'statut', statut: 'Attribué' } });
    expect(bad.statusCode).toBe(400);
    const motif = await call('POST', '/lots', { cookie: manager.cookie }, { selection: { mode: 'numeros', numeros: ['015lot000005'] }, action: { type: 'statut', statut: 'Attribué', motif: 'x' } });
    expect(motif.statusCode).toBe(400);
    expect(motif.json().error.fields.action).toMatch(/motif ne peut accompagner/u);
  });
});

describe('a bulk action when the app closes', () => {
  it('stops between two requests and is recorded as interrupted: what was done stays done', async () => {
    const ferme = await createTestApp();
    const gestionnaire = await createAccount(ferme, 'manager');
    const numeros = Array.from({ length: 40 }, (_, i) => `015fer${String(i).padStart(6, '0')}`);
    for (let i = 0; i < numeros.length; i += 25) {
      const codes = await Promise.all(numeros.slice(i, i + 25).map(async (n) => (await ferme.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: n }) })).statusCode));
      expect(new Set(codes)).toEqual(new Set([201]));
    }
    const started = await ferme.app.inject({
      method: 'POST',
      url: '/app/api/lots',
      headers: { cookie: gestionnaire.cookie },
      payload: { selection: { mode: 'numeros', numeros }, action: { type: 'statut', statut: 'Passage CAL' } },
    });
    expect(started.statusCode).toBe(202);
    const { id } = started.json().data;
    const { db } = ferme.app.deps;
    const lire = () => db.selectFrom('lots').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    for (let i = 0; i < 4000 && (await lire()).faits < 3; i++) await new Promise((r) => setTimeout(r, 5));
    await ferme.app.close();
    // Read once the app is closed, on a connection of its own.
    const apres = openDatabase({ databaseUrl: ferme.config.databaseUrl, dataDir: ferme.dataDir }).db;
    try {
      const fin = await apres.selectFrom('lots').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(fin).toMatchObject({ fini: 1, interrompu: 1, total: 40 });
      expect(fin.faits).toBeGreaterThanOrEqual(3);
      expect(fin.faits).toBeLessThan(40);
      const changees = await apres.selectFrom('housingRequests').select('id').where('numeroUnique', 'like', '015fer%').where('statutDeLaDemande', '=', 'Passage CAL').execute();
      expect(changees).toHaveLength(fin.faits);
    } finally {
      await apres.destroy();
      await ferme.close();
    }
  });
});
