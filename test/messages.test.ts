import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { effacerDemande } from '../src/server/features/demandes/effacement.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { InstructionRepository } from '../src/server/features/instruction/repository.js';
import { MessagesRepository } from '../src/server/features/messages/repository.js';
import { MessagesService } from '../src/server/features/messages/service.js';
import { createAccount, createTestApp, demande, filesUnder, mailsTo, multipart, SAMPLES, type TestContext, attendreUnVerrou } from './helpers.js';

// Messages between the town hall and the applicant (issue 12 point 5).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let voisin: Awaited<ReturnType<typeof createAccount>>;
let key = '';
const EMAIL = 'awa.diallo@example.org';

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });
const nonLus = async () =>
  ((await call('GET', '/logement?q=017msg000001', { cookie: manager.cookie })).json().data as { messagesNonLus: number }[])[0]!.messagesNonLus;

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  habitant = await createAccount(ctx);
  voisin = await createAccount(ctx);
  const res = await call('POST', '/logement', { cookie: habitant.cookie }, demande({ numeroUnique: '017msg000001', prenom: 'Awa', email: EMAIL }));
  expect(res.statusCode).toBe(201);
  key = res.json().data.accessKey;
});
afterAll(async () => ctx.close());

describe('messages', () => {
  it('are refused to whoever does not see the request in full, storing nothing', async () => {
    expect((await call('GET', '/logement/017msg000001/messages')).statusCode).toBe(403);
    expect((await call('POST', '/logement/017msg000001/messages', { cookie: voisin.cookie }, { texte: 'Bonjour' })).statusCode).toBe(403);
    expect((await call('POST', '/logement/017msg000001/messages', {}, { texte: 'Bonjour' })).statusCode).toBe(403);
    expect(await ctx.app.deps.db.selectFrom('messages').select('id').execute()).toEqual([]);
  });

  it('go from the town hall to the applicant by e-mail, and back, with unread counts for managers', async () => {
    const ecrit = await call('POST', '/logement/017msg000001/messages', { cookie: manager.cookie }, { texte: '  Pouvez-vous passer a la mairie mardi ?  ' });
    expect(ecrit.statusCode).toBe(201);
    expect(ecrit.json().data).toMatchObject({ de: 'mairie', texte: 'Pouvez-vous passer a la mairie mardi ?', lu: false });
    const mail = (await mailsTo(ctx, EMAIL)).at(-1)!;
    expect(mail).toContain('Pouvez-vous passer a la mairie mardi ?');
    expect(mail).toContain('http://quartier.test/logement/017msg000001');
    expect(mail).not.toContain(key);

    // The applicant's page shows it (by the private link), then says so: read; the manager's name is not shown to them.
    const lus = (await call('GET', '/logement/017msg000001/messages', { 'x-access-key': key })).json().data;
    expect(lus).toEqual([{ id: expect.any(String), de: 'mairie', texte: 'Pouvez-vous passer a la mairie mardi ?', le: expect.any(String), lu: false, pieces: [] }]);
    expect((await call('GET', '/logement/017msg000001/messages', { cookie: manager.cookie })).json().data[0].lu).toBe(false);
    expect((await call('POST', '/logement/017msg000001/messages/lus', { 'x-access-key': key })).statusCode).toBe(204);
    const vuParLaMairie = (await call('GET', '/logement/017msg000001/messages', { cookie: manager.cookie })).json().data;
    expect(vuParLaMairie[0]).toMatchObject({ auteur: 'Camille Durand', lu: true });

    // The applicant answers (by the account); the manager who follows the request is told, without the text.
    expect((await call('PUT', '/logement/017msg000001/suivi', { cookie: manager.cookie }, { suivre: true })).statusCode).toBe(200);
    expect((await call('POST', '/logement/017msg000001/messages', { cookie: habitant.cookie }, { texte: 'Oui, à 10 h.' })).statusCode).toBe(201);
    expect((await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: 'Avec mon fils.' })).statusCode).toBe(201);
    expect(await nonLus()).toBe(2);
    const avis = await mailsTo(ctx, manager.email);
    expect(avis.filter((m) => m.includes('017msg000001'))).toHaveLength(2);
    expect(avis.join('\n')).not.toContain('Avec mon fils');

    // The manager's page fetches the thread (which changes nothing: a GET), then says it was shown: the count goes to 0.
    const fil = (await call('GET', '/logement/017msg000001/messages', { cookie: manager.cookie })).json().data as { de: string; texte: string }[];
    expect(fil.map((m) => [m.de, m.texte])).toEqual([
      ['mairie', 'Pouvez-vous passer a la mairie mardi ?'],
      ['demandeur', 'Oui, à 10 h.'],
      ['demandeur', 'Avec mon fils.'],
    ]);
    expect(await nonLus()).toBe(2);
    expect((await call('POST', '/logement/017msg000001/messages/lus', { cookie: manager.cookie })).statusCode).toBe(204);
    expect(await nonLus()).toBe(0);
    const luLe = await ctx.app.deps.db.selectFrom('messages').select('luLe').where('de', '=', 'demandeur').execute();
    expect(luLe.every((m) => m.luLe !== null)).toBe(true);
    // Said to whoever does not see the request in full: 403, nothing changed.
    expect((await call('POST', '/logement/017msg000001/messages/lus', { cookie: voisin.cookie })).statusCode).toBe(403);
  });

  it.runIf(process.env.DATABASE_URL !== undefined)('keeps in the count a message written while the manager marks the thread read (PostgreSQL)', async () => {
    const db = ctx.app.deps.db;
    const { id } = await db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '017msg000001').executeTakeFirstOrThrow();
    expect((await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: 'Premier.' })).statusCode).toBe(201);
    let marque: Promise<{ statusCode: number }> | undefined;
    // The applicant's second message is written but not committed when the manager's page marks the thread read.
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('messages').values({ id: crypto.randomUUID(), housingRequestId: id, de: 'demandeur', auteurUserId: null, texte: 'Second.', le: new Date().toISOString(), luLe: null }).execute();
      await trx.updateTable('housingRequests').set((eb) => ({ messagesNonLus: eb('messagesNonLus', '+', 1) })).where('id', '=', id).execute();
      marque = call('POST', '/logement/017msg000001/messages/lus', { cookie: manager.cookie });
      await attendreUnVerrou(db);
    });
    expect((await marque!).statusCode).toBe(204);
    expect(await nonLus()).toBe(1);
    expect((await call('POST', '/logement/017msg000001/messages/lus', { cookie: manager.cookie })).statusCode).toBe(204);
    expect(await nonLus()).toBe(0);
  });

  it('are not written on a request erased after it was read: 404, no message, no e-mail to the person', async () => {
    const cree = await call('POST', '/logement', {}, demande({ numeroUnique: '017msgeff001', email: 'efface.pendant@example.org' }));
    expect(cree.statusCode).toBe(201);
    const { db, dbKind, mailer, bus, storage, config, now } = ctx.app.deps;
    const demandes = new DemandesRepository(db, dbKind, now);
    const lue = (await demandes.findByNumero('017msgeff001'))!;
    // The manager's page read it; the person withdraws it; then the manager's message arrives.
    await effacerDemande({ repository: demandes, storage, mailer, bus }, lue.id, 'retrait', null, new Date());
    const service = new MessagesService({ repository: new MessagesRepository(db), suivi: new InstructionRepository(db), demandes, mailer, bus, config, now });
    await expect(service.ecrire(lue, 'mairie', manager.uid, 'Votre dossier est complet.', ctx.app.log)).rejects.toMatchObject({ statusCode: 404 });
    expect(await db.selectFrom('messages').select('id').where('housingRequestId', '=', lue.id).execute()).toEqual([]);
    expect(await db.selectFrom('mailOutbox').select('id').where('housingRequestId', '=', lue.id).execute()).toEqual([]);
  });

  it('let their attachments go when the message fails before they are recorded: no temp file stays', async () => {
    const { db, dbKind, mailer, bus, storage, config, now } = ctx.app.deps;
    const demandes = new DemandesRepository(db, dbKind, now);
    const lue = (await demandes.findByNumero('017msg000001'))!;
    // A received attachment, large enough to wait in a temp file.
    const temp = storage.createTemp();
    await new Promise<void>((resolve, reject) => temp.stream.end(Buffer.alloc(400_000, 1), () => resolve()).once('error', reject));
    const avant = (await storage.temps()).length;
    expect(avant).toBeGreaterThan(0);
    const pieces = { texte: 'x', fichiers: 1, noms: ['a.pdf'], enregistrer: async () => [], abandonner: () => temp.discard() };
    const enPanne = { destinataire: async () => Promise.reject(new Error('base indisponible')) };
    const service = new MessagesService({ repository: new MessagesRepository(db), suivi: enPanne, demandes, mailer, bus, config, now });
    await expect(service.ecrire(lue, 'demandeur', null, 'Voici le document.', ctx.app.log, pieces)).rejects.toThrow('base indisponible');
    expect((await storage.temps()).length).toBe(avant - 1);
  });

  it('refuse an empty message and one over 4,000 characters, in French', async () => {
    const vide = await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: '   ' });
    expect(vide.statusCode).toBe(400);
    expect(vide.json().error.fields.texte).toBe('Le message est vide.');
    expect((await call('POST', '/logement/017msg000001/messages', { 'x-access-key': key }, { texte: 'x'.repeat(4001) })).statusCode).toBe(400);
  });

  describe('with attachments', () => {
    const uploads = () => path.join(ctx.dataDir, 'uploads');
    /** A multipart message: the text first, then the files. */
    async function envoi(texte: string | null, fichiers: { name: string; content: Buffer; field?: string }[]) {
      const form = new FormData();
      if (texte !== null) form.append('texte', texte);
      for (const f of fichiers) form.append(f.field ?? 'pieces', new Blob([new Uint8Array(f.content)]), f.name);
      const request = new Request('http://localhost/', { method: 'POST', body: form });
      return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
    }
    const poster = async (headers: Record<string, string>, texte: string | null, fichiers: { name: string; content: Buffer; field?: string }[]) => {
      const body = await envoi(texte, fichiers);
      return ctx.app.inject({ method: 'POST', url: '/app/api/logement/017msg000001/messages/avec-pieces', headers: { ...headers, ...body.headers }, payload: body.payload });
    };
    const rien = async () => ({
      messages: (await ctx.app.deps.db.selectFrom('messages').select('id').execute()).length,
      documents: (await ctx.app.deps.db.selectFrom('documents').select('id').execute()).length,
      fichiers: filesUnder(uploads()).length,
    });

    it('carry files checked like documents, kept out of the request’s blocks, opened by both sides, named in the e-mail', async () => {
      const ecrit = await poster({ cookie: manager.cookie }, 'Voici le formulaire à remplir.', [
        { name: 'formulaire cerfa.pdf', content: SAMPLES.pdf },
        { name: 'plan.png', content: SAMPLES.png },
      ]);
      expect(ecrit.statusCode).toBe(201);
      const pieces = ecrit.json().data.pieces as { id: string; name: string; type: string; fileUrl: string }[];
      expect(pieces.map((p) => [p.name, p.type])).toEqual([
        ['formulaire cerfa.pdf', 'application/pdf'],
        ['plan.png', 'image/png'],
      ]);
      // Stored as the request's documents of category « message », tied to the message, on disk.
      const rows = await ctx.app.deps.db.selectFrom('documents').selectAll().where('category', '=', 'message').execute();
      expect(rows.map((r) => r.messageId)).toEqual([ecrit.json().data.id, ecrit.json().data.id]);
      for (const r of rows) expect(fs.existsSync(path.join(uploads(), r.storageKey))).toBe(true);
      // Not among the request's documents (blocks, checklist).
      const complete = (await call('GET', '/logement/017msg000001', { 'x-access-key': key })).json().data;
      expect(Object.values(complete.documents).flat()).toEqual([]);
      // The applicant opens them from the thread, by the private link; a stranger cannot.
      const fil = (await call('GET', '/logement/017msg000001/messages', { 'x-access-key': key })).json().data as { pieces: { fileUrl: string }[] }[];
      const url = fil.at(-1)!.pieces[0]!.fileUrl;
      const ouvert = await ctx.app.inject({ method: 'GET', url, headers: { 'x-access-key': key } });
      expect(ouvert.statusCode).toBe(200);
      expect(ouvert.rawPayload.equals(SAMPLES.pdf)).toBe(true);
      expect((await ctx.app.inject({ method: 'GET', url })).statusCode).toBe(403);
      const mail = (await mailsTo(ctx, EMAIL)).at(-1)!;
      expect(mail).toContain('- formulaire cerfa.pdf');
      expect(mail).toContain('- plan.png');
      // The thread is not rewritten: the applicant cannot delete a piece, nor a manager review it.
      const piece = rows[0]!.id;
      const suppression = await call('DELETE', `/logement/017msg000001/documents/${piece}`, { 'x-access-key': key });
      expect(suppression.statusCode).toBe(409);
      expect(suppression.json().error.message).toMatch(/pièce jointe d’un message/u);
      expect((await call('PUT', `/logement/017msg000001/documents/${piece}/avis`, { cookie: manager.cookie }, { avis: 'accepte' })).statusCode).toBe(404);
    });

    it('refuse a disguised file, a sixth file, a file without text, an unknown field, in French, keeping nothing', async () => {
      const avant = await rien();
      const exe = await poster({ 'x-access-key': key }, 'Mon avis', [{ name: 'avis.pdf', content: SAMPLES.exe }]);
      expect(exe.statusCode).toBe(415);
      expect(exe.json().error.message).toMatch(/avis\.pdf/u);
      const six = await poster({ 'x-access-key': key }, 'Mes papiers', Array.from({ length: 6 }, (_, i) => ({ name: `p${i}.pdf`, content: SAMPLES.pdf })));
      expect(six.statusCode).toBe(413);
      expect(six.json().error).toMatchObject({ code: 'TOO_MANY_FILES', message: 'Vous pouvez envoyer au plus 5 fichiers à la fois.' });
      const sansTexte = await poster({ 'x-access-key': key }, '  ', [{ name: 'avis.pdf', content: SAMPLES.pdf }]);
      expect(sansTexte.statusCode).toBe(400);
      expect(sansTexte.json().error.fields.texte).toBe('Le message est vide.');
      const champ = await poster({ 'x-access-key': key }, 'x', [{ name: 'avis.pdf', content: SAMPLES.pdf, field: 'tax' }]);
      expect(champ.statusCode).toBe(400);
      expect((await poster({ cookie: voisin.cookie }, 'x', [{ name: 'avis.pdf', content: SAMPLES.pdf }])).statusCode).toBe(403);
      expect(await rien()).toEqual(avant);
      expect(filesUnder(path.join(uploads(), '.tmp'))).toEqual([]);
    });

    it('count in the request’s quota of documents', async () => {
      const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '017msg000001').executeTakeFirstOrThrow()).id;
      const deja = (await ctx.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).execute()).length;
      const quota = ctx.config.uploadQuota.fichiers;
      for (let reste = quota - deja; reste > 0; reste -= 20) {
        const form = await multipart(Array.from({ length: Math.min(reste, 20) }, (_, i) => ({ field: 'other', name: `autre-${reste}-${i}.pdf`, content: SAMPLES.pdf })));
        expect((await call('POST', '/logement/upload-files/017msg000001', { ...form.headers, 'x-access-key': key }, form.payload)).statusCode).toBe(201);
      }
      const plein = await poster({ 'x-access-key': key }, 'Encore un', [{ name: 'encore.pdf', content: SAMPLES.pdf }]);
      expect(plein.statusCode).toBe(413);
      expect(plein.json().error.code).toBe('QUOTA_FICHIERS');
    });
  });

  it('go with the request when it is withdrawn', async () => {
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '017msg000001').executeTakeFirstOrThrow()).id;
    expect((await call('POST', '/logement/017msg000001/retirer', { 'x-access-key': key })).statusCode).toBe(200);
    expect(await ctx.app.deps.db.selectFrom('messages').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
    // Their attachments too, rows and files.
    expect(await ctx.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
    expect(filesUnder(path.join(ctx.dataDir, 'uploads')).filter((f) => f.startsWith(id))).toEqual([]);
  });
});

describe('the applicant’s message on a request nobody follows', () => {
  const NUMERO = '017msg000002';
  let cle = '';
  let autre: Awaited<ReturnType<typeof createAccount>>;
  let ancien: Awaited<ReturnType<typeof createAccount>>;
  /** The e-mails « Nouveau message » about this request an address received (the body is quoted-printable). */
  const avis = async (email: string) => (await mailsTo(ctx, email)).filter((m) => m.includes('Le demandeur a =C3=A9crit un message') && m.includes(NUMERO));
  const ecrit = async (texte: string) => expect((await call('POST', `/logement/${NUMERO}/messages`, { 'x-access-key': cle }, { texte })).statusCode).toBe(201);
  // Each step a little later than the previous: « last » is by time.
  const plusTard = () => new Promise((r) => setTimeout(r, 5));

  beforeAll(async () => {
    autre = await createAccount(ctx, 'manager', { prenom: 'Samir', nom: 'Haddad' });
    ancien = await createAccount(ctx, 'manager', { prenom: 'Léa', nom: 'Roux' });
    const res = await call('POST', '/logement', {}, demande({ numeroUnique: NUMERO, email: 'moussa.kone@example.org' }));
    expect(res.statusCode).toBe(201);
    cle = res.json().data.accessKey;
  });

  it('e-mails nobody while no manager wrote or asked for corrections: the unread count remains', async () => {
    await ecrit('Bonjour, où en est ma demande ?');
    for (const m of [manager, autre, ancien]) expect(await avis(m.email)).toEqual([]);
    const ligne = ((await call('GET', `/logement?q=${NUMERO}`, { cookie: manager.cookie })).json().data as { messagesNonLus: number }[])[0]!;
    expect(ligne.messagesNonLus).toBe(1);
  });

  it('e-mails the manager who last asked for corrections or last wrote in the thread, without the text', async () => {
    expect((await call('POST', `/logement/${NUMERO}/corrections`, { cookie: autre.cookie }, { motif: 'Votre avis d’imposition est illisible.' })).statusCode).toBe(201);
    await plusTard();
    await ecrit('Voici un nouvel avis, plus lisible.');
    expect(await avis(autre.email)).toHaveLength(1);
    expect(await avis(manager.email)).toEqual([]);
    const mail = (await avis(autre.email))[0]!;
    expect(mail).toContain('que personne ne suit');
    expect(mail).toContain(`http://quartier.test/logement/${NUMERO}`);
    expect(mail).not.toContain('plus lisible');

    // Camille writes after Samir asked: the next message is for Camille.
    await plusTard();
    expect((await call('POST', `/logement/${NUMERO}/messages`, { cookie: manager.cookie }, { texte: 'Bien reçu, merci.' })).statusCode).toBe(201);
    await plusTard();
    await ecrit('Merci pour tout.');
    expect(await avis(manager.email)).toHaveLength(1);
    expect(await avis(autre.email)).toHaveLength(1);
    expect((await avis(manager.email)).join('\n')).not.toContain('pour tout');
  });

  it('skips an account that is no longer a manager, and tells the follower first when there is one', async () => {
    await plusTard();
    expect((await call('POST', `/logement/${NUMERO}/messages`, { cookie: ancien.cookie }, { texte: 'Je passe le dossier à un collègue.' })).statusCode).toBe(201);
    await ctx.app.deps.db.updateTable('user').set({ userType: 'habitant' }).where('id', '=', ancien.uid).execute();
    await plusTard();
    await ecrit('Entendu.');
    expect(await avis(ancien.email)).toEqual([]);
    expect(await avis(manager.email)).toHaveLength(2);

    expect((await call('PUT', `/logement/${NUMERO}/suivi`, { cookie: autre.cookie }, { suivre: true })).statusCode).toBe(200);
    await ecrit('Une dernière question.');
    const suivis = await avis(autre.email);
    expect(suivis).toHaveLength(2);
    expect(suivis.at(-1)).toContain('que vous suivez');
    expect(await avis(manager.email)).toHaveLength(2);
  });

  it('passes over a follower who is no longer a manager to the last manager who wrote', async () => {
    await ctx.app.deps.db.updateTable('user').set({ userType: 'habitant' }).where('id', '=', autre.uid).execute();
    await ecrit('Quelqu’un est là ?');
    expect(await avis(autre.email)).toHaveLength(2);
    const dits = await avis(manager.email);
    expect(dits).toHaveLength(3);
    expect(dits.at(-1)).toContain('que personne ne suit');
  });
});
