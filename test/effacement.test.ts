import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effacerDemande } from '../src/server/features/demandes/effacement.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { createAccount, createTestApp, demande, mailsTo as mailsBruts, multipart, SAMPLES, type TestContext } from './helpers.js';

let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager');
});
afterAll(async () => {
  await ctx.close();
});

const PERSONNEL = {
  prenom: 'Yasmina',
  nom: 'Belkacem-Effacée',
  email: 'yasmina.efface@example.org',
  numeroDeTelephone: '06 12 34 56 78',
  adresse: '12 avenue des Tilleuls',
  adresseComplement: 'Bâtiment B',
  codePostal: '13090',
  ville: 'Aix-en-Provence',
  dateDeNaissance: '1988-04-02',
  sexe: 'femme',
  salaireBrut: 1834,
  salaireAvisImpot1: 21000,
  salaireAvisImpot2: 20500,
  motivations: 'Mon logement actuel est insalubre, humidité.',
  commentaires: 'Joignable le matin.',
};

async function create(numeroUnique: string, extra: Record<string, unknown> = {}, cookie?: string) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique, ...PERSONNEL, ...extra }), headers: cookie ? { cookie } : {} });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; numeroUnique: string; accessKey: string };
}

async function upload(numero: string, key: string) {
  const body = await multipart([
    { field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf },
    { field: 'identity', name: 'carte.png', content: SAMPLES.png },
  ]);
  const res = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': key }, payload: body.payload });
  expect(res.statusCode, res.body).toBe(201);
}

/** The e-mails to an address, quoted-printable accents decoded. */
const mailsTo = async (c: TestContext, email: string) =>
  (await mailsBruts(c, email)).map((m) => m.replace(/(?:=[0-9A-F]{2})+/gu, (q) => Buffer.from(q.replace(/=/gu, ''), 'hex').toString('utf8')));

const row = (id: string) => ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const filesOf = (id: string) => (fs.existsSync(path.join(ctx.dataDir, 'uploads', id)) ? fs.readdirSync(path.join(ctx.dataDir, 'uploads', id), { recursive: true }) : []);
const uploadsDir = () => path.join(ctx.dataDir, 'uploads');

/** Every personal value given at creation must be gone from the row, whatever the column. */
function expectNoPersonalData(stored: Record<string, unknown>, numeroUnique: string) {
  // Random values (the id, the tombstone's numéro made from it, the useless key's hash) may hold any digits.
  const { id, numeroUnique: tombe, accessKeyHash, ...rest } = stored;
  expect(String(tombe)).not.toContain(numeroUnique);
  expect([typeof id, typeof accessKeyHash]).toEqual(['string', 'string']);
  const text = JSON.stringify(rest).toLowerCase();
  for (const value of [...Object.values(PERSONNEL), numeroUnique]) expect(text).not.toContain(String(value).toLowerCase());
  expect(stored.searchText).toBe('');
  expect(stored.nomTri).toBe('');
  expect(stored.prenomTri).toBe('');
  expect(stored.ownerUserId).toBeNull();
  expect(stored.effaceeLe).toEqual(expect.any(String));
}

describe('« Retirer ma demande »', () => {
  it('blanks the request, deletes its documents and files, keeps an anonymous history and frees the numéro', async () => {
    const { id, accessKey } = await create('013eff0000001');
    await upload('013eff0000001', accessKey);
    expect(await ctx.app.deps.db.selectFrom('documents').select('storageKey').where('housingRequestId', '=', id).execute()).toHaveLength(2);
    const storageKeys = (await ctx.app.deps.db.selectFrom('documents').select('storageKey').where('housingRequestId', '=', id).execute()).map((d) => d.storageKey);
    for (const key of storageKeys) expect(fs.existsSync(path.join(uploadsDir(), key))).toBe(true);

    // Without the key: refused, nothing changes.
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013eff0000001/retirer' })).statusCode).toBe(403);
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013eff0000001/retirer', headers: { 'x-access-key': accessKey } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.message).toContain('retirée');

    expectNoPersonalData(await row(id), '013eff0000001');
    expect(await ctx.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
    for (const key of storageKeys) expect(fs.existsSync(path.join(uploadsDir(), key))).toBe(false);
    expect(filesOf(id)).toEqual([]);

    const events = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', id).orderBy('at').execute();
    expect(events.map((e) => e.toStatus)).toEqual(['En attente des documents', 'Retirée']);
    expect(JSON.stringify(events)).not.toMatch(/Yasmina|Belkacem|013eff0000001|example\.org/u);

    // Gone for every lookup: the status view, the history, the key, the managers' list and export.
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013eff0000001' })).json()).toEqual({
      error: { code: 'NOT_FOUND', message: "Il n’existe pas de demande de logement pour ce numéro unique" },
    });
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013eff0000001', headers: { 'x-access-key': accessKey } })).statusCode).toBe(404);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013eff0000001/historique' })).statusCode).toBe(404);
    const liste = await ctx.app.inject({ method: 'GET', url: '/app/api/logement?pageSize=100', headers: { cookie: manager.cookie } });
    expect(liste.json().data.map((d: { id: string }) => d.id)).not.toContain(id);
    const all = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/all', headers: { cookie: manager.cookie } });
    expect(Object.values(all.json().data).map((d) => (d as { id: string }).id)).not.toContain(id);
    const csv = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/export.csv', headers: { cookie: manager.cookie } });
    expect(csv.body).not.toContain('efface-');
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/evenements?numero=013eff0000001' })).statusCode).toBe(404);

    // The numéro is free: the person can register again with it.
    const again = await create('013eff0000001');
    expect(again.id).not.toBe(id);

    // The confirmation e-mail, without a link.
    const mails = await mailsTo(ctx, PERSONNEL.email);
    const retrait = mails.find((m) => m.includes('a été retirée'));
    expect(retrait).toBeDefined();
    expect(retrait).not.toMatch(/https?:\/\//u);
  });

  it('withdraws the request’s queued mails, and only that request’s', async () => {
    const a = await create('013eff0000002', { email: 'partage@example.org' });
    const b = await create('013eff0000003', { email: 'partage@example.org' });
    // A status change of each: its mail waits in the outbox for the undo window.
    for (const numero of ['013eff0000002', '013eff0000003']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: numero, newStatus: 'En cours de traitement' } });
      expect(res.statusCode, res.body).toBe(200);
    }
    await ctx.app.deps.mailer.idle();
    const queued = async (id: string) => (await ctx.app.deps.db.selectFrom('mailOutbox').select(['housingRequestId', 'sentAt']).where('housingRequestId', '=', id).execute()).filter((m) => m.sentAt === null);
    expect(await queued(a.id)).toHaveLength(1);
    expect(await queued(b.id)).toHaveLength(1);

    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013eff0000002/retirer', headers: { 'x-access-key': a.accessKey } });
    expect(res.statusCode).toBe(200);
    expect(await ctx.app.deps.db.selectFrom('mailOutbox').select('id').where('housingRequestId', '=', a.id).execute()).toEqual([]);
    expect(await queued(b.id)).toHaveLength(1);
    // No row of the outbox still names the erased request's numéro.
    const outbox = await ctx.app.deps.db.selectFrom('mailOutbox').select(['subject', 'body', 'housingRequestId']).execute();
    expect(outbox.filter((m) => m.housingRequestId === a.id)).toEqual([]);
  });

  it('lets the owner withdraw without the key; refuses another account', async () => {
    const owner = await createAccount(ctx);
    const other = await createAccount(ctx);
    const { id } = await create('013eff0000004', {}, owner.cookie);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013eff0000004/retirer', headers: { cookie: other.cookie } })).statusCode).toBe(403);
    const entendus: { numeroUnique: string; quoi?: string }[] = [];
    const fin = ctx.app.deps.bus.subscribe((e) => entendus.push(e));
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013eff0000004/retirer', headers: { cookie: owner.cookie } });
    expect(res.statusCode).toBe(200);
    // Managers' open lists hear it, and drop the person's name. (On PostgreSQL the creation's own event, sent through
    // NOTIFY, may arrive after the subscription: only the erasure's are counted.)
    const effacements = () => entendus.filter((e) => e.quoi === 'effacement');
    for (let i = 0; i < 50 && effacements().length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    fin();
    expect(effacements()).toEqual([expect.objectContaining({ numeroUnique: '013eff0000004', quoi: 'effacement' })]);
    expect((await row(id)).ownerUserId).toBeNull();
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/mine', headers: { cookie: owner.cookie } })).json().data).toEqual([]);
    // Nothing ties the erased request to the account: not its history's steps either (the withdrawal was the owner's).
    const lies = await ctx.app.deps.db.selectFrom('statusEvents').select('id').where('housingRequestId', '=', id).where('actorUserId', '=', owner.uid).execute();
    expect(lies).toEqual([]);
  });

  it('erases once: a second call on the same request changes nothing (the purge may call it again)', async () => {
    const { id, accessKey } = await create('013eff0000005');
    expect((await mailsTo(ctx, PERSONNEL.email)).filter((m) => m.includes('013eff0000005'))).toHaveLength(1);
    const deps = { repository: new DemandesRepository(ctx.app.deps.db, ctx.app.deps.dbKind), storage: ctx.app.deps.storage, mailer: ctx.app.deps.mailer, bus: ctx.app.deps.bus };
    await effacerDemande(deps, id, 'purge', null, new Date());
    const first = await row(id);
    await effacerDemande(deps, id, 'purge', null, new Date());
    expect(await row(id)).toEqual(first);
    const events = await ctx.app.deps.db.selectFrom('statusEvents').select(['toStatus', 'actorUserId', 'motif']).where('housingRequestId', '=', id).orderBy('at').execute();
    expect(events).toEqual([
      { toStatus: 'En attente des documents', actorUserId: null, motif: null },
      { toStatus: 'Effacée', actorUserId: null, motif: 'Durée de conservation écoulée' },
    ]);
    // A purge tells no one (only the creation's mail went to this address).
    expect((await mailsTo(ctx, PERSONNEL.email)).filter((m) => m.includes('013eff0000005'))).toHaveLength(1);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013eff0000005', headers: { 'x-access-key': accessKey } })).statusCode).toBe(404);
  });
});

describe('managers erase on request', () => {
  it('erases with the manager recorded in the history, without personal data; others are refused', async () => {
    const { id, accessKey } = await create('013eff0000006');
    await upload('013eff0000006', accessKey);
    const habitant = await createAccount(ctx);
    expect((await ctx.app.inject({ method: 'DELETE', url: '/app/api/logement/013eff0000006', headers: { 'x-access-key': accessKey } })).statusCode).toBe(401);
    expect((await ctx.app.inject({ method: 'DELETE', url: '/app/api/logement/013eff0000006', headers: { cookie: habitant.cookie } })).statusCode).toBe(403);
    const res = await ctx.app.inject({ method: 'DELETE', url: '/app/api/logement/013eff0000006', headers: { cookie: manager.cookie } });
    expect(res.statusCode, res.body).toBe(200);
    expectNoPersonalData(await row(id), '013eff0000006');
    expect(filesOf(id)).toEqual([]);
    const last = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', id).orderBy('at', 'desc').executeTakeFirstOrThrow();
    expect(last).toMatchObject({ toStatus: 'Effacée', actorUserId: manager.uid, motif: 'Effacement demandé par la personne' });
    expect((await ctx.app.inject({ method: 'DELETE', url: '/app/api/logement/013eff0000006', headers: { cookie: manager.cookie } })).statusCode).toBe(404);
    expect((await mailsTo(ctx, PERSONNEL.email)).some((m) => m.includes('013eff0000006') && m.includes('a effacé votre demande'))).toBe(true);
  });
});

describe('deleting a document', () => {
  it('deletes the row and the file while the request waits for documents or is processed; 409 after', async () => {
    const { id, accessKey } = await create('013eff0000007');
    await upload('013eff0000007', accessKey);
    await upload('013eff0000007', accessKey);
    const docs = await ctx.app.deps.db.selectFrom('documents').selectAll().where('housingRequestId', '=', id).orderBy('category').orderBy('position').execute();
    const [livret1, livret2] = docs.filter((d) => d.category === 'livret');
    const url = (docId: string) => `/app/api/logement/013eff0000007/documents/${docId}`;

    expect((await ctx.app.inject({ method: 'DELETE', url: url(livret1!.id) })).statusCode).toBe(403);
    const res = await ctx.app.inject({ method: 'DELETE', url: url(livret1!.id), headers: { 'x-access-key': accessKey } });
    expect(res.statusCode, res.body).toBe(204);
    expect(fs.existsSync(path.join(uploadsDir(), livret1!.storageKey))).toBe(false);
    const left = await ctx.app.deps.db.selectFrom('documents').select(['id', 'position']).where('housingRequestId', '=', id).where('category', '=', 'livret').execute();
    // The others keep their positions.
    expect(left).toEqual([{ id: livret2!.id, position: livret2!.position }]);
    expect((await ctx.app.inject({ method: 'DELETE', url: url(livret1!.id), headers: { 'x-access-key': accessKey } })).statusCode).toBe(404);

    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013eff0000007', newStatus: 'En cours de traitement' } });
    expect((await ctx.app.inject({ method: 'DELETE', url: url(livret2!.id), headers: { 'x-access-key': accessKey } })).statusCode).toBe(204);

    const identity = docs.find((d) => d.category === 'identity')!;
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013eff0000007', newStatus: 'Demande envoyée' } });
    const refused = await ctx.app.inject({ method: 'DELETE', url: url(identity.id), headers: { 'x-access-key': accessKey } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('DOCUMENT_VERROUILLE');
    expect(refused.json().error.message).toContain('ne peut plus être supprimé');
    expect(fs.existsSync(path.join(uploadsDir(), identity.storageKey))).toBe(true);
  });
});

describe('what managers cannot do in the requester’s name', () => {
  it('refuses a manager’s withdrawal or deletion of a document (they erase through their own route)', async () => {
    const { id, accessKey } = await create('013eff0000008');
    await upload('013eff0000008', accessKey);
    const doc = await ctx.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).executeTakeFirstOrThrow();
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement/013eff0000008/retirer', headers: { cookie: manager.cookie } })).statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'DELETE', url: `/app/api/logement/013eff0000008/documents/${doc.id}`, headers: { cookie: manager.cookie } })).statusCode).toBe(403);
    expect((await row(id)).effaceeLe).toBeNull();
  });
});
