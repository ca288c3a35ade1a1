import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, mailsTo, multipart, SAMPLES, type TestContext } from './helpers.js';

// The managers' handling of a request (issue 12 points 6 and 9): private notes, « Suivie par », the audit.
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let autre: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
const keys: Record<string, string> = {};

async function creer(numeroUnique: string, cookie?: string): Promise<void> {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique }), headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(201);
  keys[numeroUnique] = res.json().data.accessKey;
}

const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  autre = await createAccount(ctx, 'manager', { prenom: 'Samir', nom: 'Haddad' });
  habitant = await createAccount(ctx);
  await creer('013instr0001', habitant.cookie);
  await creer('013instr0002');
  await creer('013instr0003');
});
afterAll(async () => ctx.close());

describe('role matrix', () => {
  const routes = [
    ['GET', '/logement/013instr0001/notes', undefined],
    ['POST', '/logement/013instr0001/notes', { texte: 'x' }],
    ['GET', '/logement/013instr0001/suivi', undefined],
    ['PUT', '/logement/013instr0001/suivi', { suivre: true }],
    ['GET', '/logement/013instr0001/journal', undefined],
    ['GET', '/exports/journal', undefined],
    ['POST', '/logement/013instr0001/confier', { gestionnaireId: 'x' }],
    ['GET', '/gestionnaires', undefined],
  ] as const;

  it('refuses anonymous callers (401), the private-link holder (401), residents and the owner (403), and changes nothing', async () => {
    for (const [method, url, body] of routes) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, { 'x-access-key': keys['013instr0001']! }, body)).statusCode, `${method} ${url}`).toBe(401);
      const refused = await call(method, url, { cookie: habitant.cookie }, body);
      expect(refused.statusCode, `${method} ${url}`).toBe(403);
      expect(refused.json().error.message).toMatch(/gestionnaires/u);
    }
    expect(await ctx.app.deps.db.selectFrom('notesInternes').select('id').execute()).toEqual([]);
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', '013instr0001').executeTakeFirstOrThrow()).suiviePar).toBeNull();
  });

  it('refuses « Confier à… » and the managers’ list to a resident who is not the applicant (403), giving the request to nobody', async () => {
    const voisin = await createAccount(ctx);
    for (const [method, url, body] of [
      ['POST', '/logement/013instr0001/confier', { gestionnaireId: manager.uid }],
      ['GET', '/gestionnaires', undefined],
    ] as const) {
      const refused = await call(method, url, { cookie: voisin.cookie }, body);
      expect(refused.statusCode, `${method} ${url}`).toBe(403);
      expect(refused.body).not.toContain('example.org');
    }
    // Not even by their own id, nor by the owner's: a resident's account is no manager's.
    expect((await call('POST', '/logement/013instr0001/confier', { cookie: habitant.cookie }, { gestionnaireId: habitant.uid })).statusCode).toBe(403);
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', '013instr0001').executeTakeFirstOrThrow()).suiviePar).toBeNull();
    expect(await ctx.app.deps.db.selectFrom('journalGestion').select('id').where('action', '=', 'confie').execute()).toEqual([]);
  });

  it('answers 404 in French for an unknown request', async () => {
    const res = await call('GET', '/logement/013inconnu99/notes', { cookie: manager.cookie });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe("Il n’existe pas de demande de logement pour ce numéro unique");
  });
});

describe('private notes', () => {
  it('are kept with their author and time, shown to managers oldest first, never to the resident', async () => {
    const first = await call('POST', '/logement/013instr0001/notes', { cookie: manager.cookie }, { texte: '  Appelée le 12/11 : avis d’imposition à venir.  ' });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toEqual({ id: expect.any(String), texte: 'Appelée le 12/11 : avis d’imposition à venir.', auteur: 'Camille Durand', le: expect.any(String) });
    expect((await call('POST', '/logement/013instr0001/notes', { cookie: autre.cookie }, { texte: 'Dossier complet.' })).statusCode).toBe(201);
    const listed = (await call('GET', '/logement/013instr0001/notes', { cookie: autre.cookie })).json().data;
    expect(listed.map((n: { auteur: string; texte: string }) => [n.auteur, n.texte])).toEqual([
      ['Camille Durand', 'Appelée le 12/11 : avis d’imposition à venir.'],
      ['Samir Haddad', 'Dossier complet.'],
    ]);
    // Nothing of them in what the owner or the private link sees.
    for (const headers of [{ cookie: habitant.cookie }, { 'x-access-key': keys['013instr0001']! }] as Record<string, string>[]) {
      const seen = await call('GET', '/logement/013instr0001', headers);
      expect(seen.json().data.acces).toBe('complet');
      expect(seen.body).not.toContain('imposition à venir');
      expect((await call('GET', '/logement/013instr0001/historique', headers)).body).not.toContain('Dossier complet');
    }
  });

  it('refuses an empty note and one over 4,000 characters, in French, storing nothing', async () => {
    const before = (await ctx.app.deps.db.selectFrom('notesInternes').select('id').execute()).length;
    const empty = await call('POST', '/logement/013instr0002/notes', { cookie: manager.cookie }, { texte: '   ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.fields.texte).toBe('La note est vide.');
    const long = await call('POST', '/logement/013instr0002/notes', { cookie: manager.cookie }, { texte: 'a'.repeat(4001) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.fields.texte).toBe('La note dépasse 4000 caractères.');
    expect((await ctx.app.deps.db.selectFrom('notesInternes').select('id').execute()).length).toBe(before);
  });
});

describe('« Suivie par »', () => {
  const suivi = async (cookie: string) => (await call('GET', '/logement/013instr0002/suivi', { cookie })).json().data;
  const put = async (cookie: string, suivre: boolean) => {
    const res = await call('PUT', '/logement/013instr0002/suivi', { cookie }, { suivre });
    expect(res.statusCode).toBe(200);
    return res.json().data;
  };

  it('is one manager at a time: one follows, another takes over, only the one who follows can let go', async () => {
    expect(await suivi(manager.cookie)).toEqual({ suiviePar: null, moi: false });
    expect(await put(manager.cookie, true)).toEqual({ suiviePar: { id: manager.uid, nom: 'Camille Durand' }, moi: true });
    expect(await suivi(autre.cookie)).toEqual({ suiviePar: { id: manager.uid, nom: 'Camille Durand' }, moi: false });
    // Letting go of a request someone else follows changes nothing.
    expect(await put(autre.cookie, false)).toEqual({ suiviePar: { id: manager.uid, nom: 'Camille Durand' }, moi: false });
    expect(await put(autre.cookie, true)).toEqual({ suiviePar: { id: autre.uid, nom: 'Samir Haddad' }, moi: true });
    expect(await put(autre.cookie, false)).toEqual({ suiviePar: null, moi: false });
    expect(await put(manager.cookie, true)).toMatchObject({ moi: true });
    const bad = await call('PUT', '/logement/013instr0002/suivi', { cookie: manager.cookie }, { suivre: 'oui' });
    expect(bad.statusCode).toBe(400);
  });

  it('filters the list and the export on « Suivies par moi »', async () => {
    await put(autre.cookie, false);
    expect((await call('PUT', '/logement/013instr0003/suivi', { cookie: autre.cookie }, { suivre: true })).statusCode).toBe(200);
    const mine = async (cookie: string) => ((await call('GET', '/logement?suivi=moi', { cookie })).json().data as { numeroUnique: string }[]).map((r) => r.numeroUnique);
    expect(await mine(manager.cookie)).toEqual(['013instr0002']);
    expect(await mine(autre.cookie)).toEqual(['013instr0003']);
    // Each row of the list says who follows it (the page names them from GET /gestionnaires).
    const lignes = (await call('GET', '/logement?q=instr', { cookie: manager.cookie })).json().data as { numeroUnique: string; suiviePar: string | null }[];
    expect(Object.fromEntries(lignes.map((r) => [r.numeroUnique, r.suiviePar]))).toMatchObject({ '013instr0002': manager.uid, '013instr0003': autre.uid, '013instr0001': null });
    expect((await call('GET', '/logement?suivi=moi', { cookie: manager.cookie })).json()).toMatchObject({ total: 1, totalExact: true });
    expect((await call('GET', '/logement?suivi=moi&q=instr', { cookie: manager.cookie })).json().total).toBe(1);
    const csv = (await call('GET', '/logement/export.csv?suivi=moi', { cookie: manager.cookie })).body;
    expect(csv).toContain('013instr0002');
    expect(csv).not.toContain('013instr0003');
    const bad = await call('GET', '/logement?suivi=tous', { cookie: manager.cookie });
    expect(bad.statusCode).toBe(400);
  });
});

describe('the audit', () => {
  it('records what managers did on the request — notes, follow, status, documents opened, zip — without their text, and not what the resident did', async () => {
    const form = await multipart([{ field: 'tax', name: 'avis.pdf', content: SAMPLES.pdf }]);
    const up = await call('POST', '/logement/upload-files/013instr0001', { ...form.headers, 'x-access-key': keys['013instr0001']! }, form.payload);
    expect(up.statusCode).toBe(201);
    const docId = (await ctx.app.deps.db.selectFrom('documents').select('id').executeTakeFirstOrThrow()).id;
    // The resident opens their own document: not recorded.
    expect((await call('GET', `/logement/013instr0001/documents/${docId}`, { 'x-access-key': keys['013instr0001']! })).statusCode).toBe(200);
    expect((await call('GET', `/logement/013instr0001/documents/${docId}`, { cookie: manager.cookie })).statusCode).toBe(200);
    expect((await call('GET', '/logement/013instr0001/documents.zip', { cookie: autre.cookie })).statusCode).toBe(200);
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '013instr0001', newStatus: 'Demande envoyée' })).statusCode).toBe(200);
    expect((await call('PUT', '/logement/013instr0001/suivi', { cookie: manager.cookie }, { suivre: true })).statusCode).toBe(200);

    const journal = (await call('GET', '/logement/013instr0001/journal', { cookie: autre.cookie })).json().data as { action: string; par: string; detail?: string }[];
    expect(journal.map((e) => [e.action, e.par, e.detail])).toEqual([
      ['note', 'Camille Durand', undefined],
      ['note', 'Samir Haddad', undefined],
      ['document-consulte', 'Camille Durand', "Avis d’imposition"],
      ['documents-zip', 'Samir Haddad', undefined],
      ['statut', 'Camille Durand', 'Demande envoyée'],
      ['suivi', 'Camille Durand', undefined],
    ]);
    const rows = await ctx.app.deps.db.selectFrom('journalGestion').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('imposition à venir');
    expect(JSON.stringify(rows)).not.toContain('avis.pdf');
  });

  it('records an export with its format and number of columns, without its search (it may hold a name)', async () => {
    await call('GET', '/logement/export.csv?q=martin', { cookie: autre.cookie });
    const exports = await ctx.app.deps.db.selectFrom('journalGestion').selectAll().where('action', '=', 'export').where('acteurUserId', '=', autre.uid).execute();
    expect(exports).toHaveLength(1);
    expect(exports[0]).toMatchObject({ housingRequestId: null, detail: 'csv, 15 colonnes' });
    expect(JSON.stringify(exports)).not.toMatch(/martin/iu);
  });

  it('erasing a request deletes its notes and whom it was followed by; the audit, which names no one, stays', async () => {
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013instr0001').executeTakeFirstOrThrow()).id;
    const res = await ctx.app.inject({ method: 'DELETE', url: '/app/api/logement/013instr0001', headers: { cookie: manager.cookie } });
    expect(res.statusCode).toBeLessThan(300);
    expect(await ctx.app.deps.db.selectFrom('notesInternes').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
    expect((await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('id', '=', id).executeTakeFirstOrThrow()).suiviePar).toBeNull();
    expect((await ctx.app.deps.db.selectFrom('journalGestion').select('id').where('housingRequestId', '=', id).execute()).length).toBeGreaterThan(0);
    expect((await call('GET', '/logement/013instr0001/notes', { cookie: manager.cookie })).statusCode).toBe(404);
  });
});

describe('the list’s tabs', () => {
  it('count each status, erased requests left out, and the requests the manager follows; each tab lists its group', async () => {
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '013instr0003', newStatus: 'Refusé' })).statusCode).toBe(200);
    const compteurs = (await call('GET', '/compteurs', { cookie: manager.cookie })).json().data;
    // 013instr0001 was erased above: counted nowhere.
    expect(compteurs.toutes).toBe(2);
    expect(compteurs.parStatut).toMatchObject({ 'En attente des documents': 1, Refusé: 1, Attribué: 0, Radiée: 0 });
    expect(Object.keys(compteurs.parStatut)).toHaveLength(8);
    expect(compteurs.suiviesParMoi).toBe(1);
    expect((await call('GET', '/compteurs', { cookie: autre.cookie })).json().data.suiviesParMoi).toBe(1);
    const onglet = async (nom: string) => ((await call('GET', `/logement?onglet=${nom}`, { cookie: manager.cookie })).json().data as { numeroUnique: string }[]).map((r) => r.numeroUnique);
    expect(await onglet('a-traiter')).toEqual(['013instr0002']);
    expect(await onglet('closes')).toEqual(['013instr0003']);
    expect(await onglet('traitees')).toEqual([]);
    expect((await call('GET', '/logement?onglet=toutes', { cookie: manager.cookie })).statusCode).toBe(400);
    expect((await call('GET', '/compteurs', { cookie: habitant.cookie })).statusCode).toBe(403);
    expect((await call('GET', '/compteurs')).statusCode).toBe(401);
  });
});

describe('the audit of downloads', () => {
  it('records a manager’s download of the request’s data (export.zip) and of its attestation, not the applicant’s own', async () => {
    await creer('013instr0010', habitant.cookie);
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013instr0010').executeTakeFirstOrThrow()).id;
    const lignes = () => ctx.app.deps.db.selectFrom('journalGestion').select(['action', 'acteurUserId', 'detail']).where('housingRequestId', '=', id).orderBy('le').execute();
    // The applicant, by the private link and as the owner: their own downloads are not recorded.
    for (const headers of [{ 'x-access-key': keys['013instr0010']! }, { cookie: habitant.cookie }] as Record<string, string>[]) {
      expect((await call('GET', '/logement/013instr0010/attestation.pdf', headers)).statusCode).toBe(200);
      expect((await call('GET', '/logement/013instr0010/export.zip', headers)).statusCode).toBe(200);
    }
    expect(await lignes()).toEqual([]);

    const pdf = await call('GET', '/logement/013instr0010/attestation.pdf', { cookie: manager.cookie });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const zip = await call('GET', '/logement/013instr0010/export.zip', { cookie: autre.cookie });
    expect(zip.statusCode).toBe(200);
    expect(await lignes()).toEqual([
      { action: 'attestation', acteurUserId: manager.uid, detail: null },
      { action: 'donnees-zip', acteurUserId: autre.uid, detail: null },
    ]);
    const journal = (await call('GET', '/logement/013instr0010/journal', { cookie: manager.cookie })).json().data as { action: string; libelle: string; par: string; detail?: string }[];
    expect(journal.map((e) => [e.action, e.par, e.libelle, e.detail])).toEqual([
      ['attestation', 'Camille Durand', 'a téléchargé l’attestation d’enregistrement', undefined],
      ['donnees-zip', 'Samir Haddad', 'a téléchargé les données de la demande (zip)', undefined],
    ]);
    // Who and when: nothing of the person (name, address, numéro) in the records.
    const texte = JSON.stringify(await ctx.app.deps.db.selectFrom('journalGestion').selectAll().where('housingRequestId', '=', id).execute());
    expect(texte).not.toMatch(/Hélène|Martin|helene\.martin|013instr0010/u);
  });

  it('answers as before to whoever may not see the request in full, recording nothing', async () => {
    const avant = (await ctx.app.deps.db.selectFrom('journalGestion').select('id').execute()).length;
    expect((await call('GET', '/logement/013instr0010/attestation.pdf')).statusCode).toBe(403);
    const voisin = await createAccount(ctx);
    expect((await call('GET', '/logement/013instr0010/export.zip', { cookie: voisin.cookie })).statusCode).toBe(403);
    expect((await ctx.app.deps.db.selectFrom('journalGestion').select('id').execute()).length).toBe(avant);
  });
});

describe('an undone status change', () => {
  it('stays in the audit, « puis annulé », followed by its undo with who undid it; it leaves the history', async () => {
    await creer('013instr0011');
    const change = await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '013instr0011', newStatus: 'Attribué' });
    expect(change.statusCode).toBe(200);
    const undo = await call('POST', '/logement/update/status/annuler', { cookie: autre.cookie }, { id: change.json().data.annulation.id });
    expect(undo.statusCode).toBe(200);
    expect(undo.json().data.statutDeLaDemande).toBe('En attente des documents');
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '013instr0011', newStatus: 'Demande envoyée' })).statusCode).toBe(200);

    const journal = (await call('GET', '/logement/013instr0011/journal', { cookie: manager.cookie })).json().data as { action: string; libelle: string; par: string; detail?: string }[];
    expect(journal.map((e) => [e.action, e.par, e.libelle, e.detail])).toEqual([
      ['statut', 'Camille Durand', 'a changé le statut', 'Attribué, puis annulé'],
      ['statut-annule', 'Samir Haddad', 'a annulé le changement de statut', 'Attribué'],
      ['statut', 'Camille Durand', 'a changé le statut', 'Demande envoyée'],
    ]);
    // The history the applicant reads no longer shows it.
    const historique = (await call('GET', '/logement/013instr0011/historique')).json().data as { vers: string }[];
    expect(historique.map((h) => h.vers)).not.toContain('Attribué');
  });
});

describe('« Confier à… »', () => {
  let admin: Awaited<ReturnType<typeof createAccount>>;
  const suiviePar = async (numero: string) =>
    (await ctx.app.deps.db.selectFrom('housingRequests').select('suiviePar').where('numeroUnique', '=', numero).executeTakeFirstOrThrow()).suiviePar;
  const lignes = async (numero: string) =>
    ctx.app.deps.db
      .selectFrom('journalGestion')
      .innerJoin('housingRequests', 'housingRequests.id', 'journalGestion.housingRequestId')
      .select(['journalGestion.action', 'journalGestion.acteurUserId', 'journalGestion.detail'])
      .where('housingRequests.numeroUnique', '=', numero)
      .orderBy('journalGestion.le')
      .execute();
  /** The e-mails about requests an account received (their sign-up's confirmation left out), quoted-printable decoded. */
  const recus = async (email: string) =>
    (await mailsTo(ctx, email))
      .filter((m) => m.includes('http://quartier.test/logement/'))
      .map((m) => Buffer.from(m.replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'));
  const confier = (cookie: string, numero: string, gestionnaireId: unknown) => call('POST', `/logement/${numero}/confier`, { cookie }, { gestionnaireId });

  beforeAll(async () => {
    admin = await createAccount(ctx, 'admin', { prenom: 'Inès', nom: 'Benali' });
    await creer('013instr0004', habitant.cookie);
    await creer('013instr0005');
  });

  it('lists the managers and admins a request may be given to, by « Prénom Nom », without their e-mail nor any resident', async () => {
    for (const cookie of [manager.cookie, admin.cookie]) {
      const res = await call('GET', '/gestionnaires', { cookie });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual([
        { id: manager.uid, nom: 'Camille Durand' },
        { id: admin.uid, nom: 'Inès Benali' },
        { id: autre.uid, nom: 'Samir Haddad' },
      ]);
      expect(res.body).not.toContain('@');
      expect(res.body).not.toContain(habitant.uid);
    }
  });

  it('gives the request to the colleague: « Suivie par » names them, the audit says who gave it to whom, the colleague gets an e-mail without the applicant’s data', async () => {
    const res = await confier(manager.cookie, '013instr0004', autre.uid);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ suiviePar: { id: autre.uid, nom: 'Samir Haddad' }, moi: false });
    expect(await suiviePar('013instr0004')).toBe(autre.uid);
    expect((await call('GET', '/logement/013instr0004/suivi', { cookie: autre.cookie })).json().data).toEqual({ suiviePar: { id: autre.uid, nom: 'Samir Haddad' }, moi: true });
    // Recorded as who did it and the colleague's account (named when read), nothing of the applicant.
    expect(await lignes('013instr0004')).toEqual([{ action: 'confie', acteurUserId: manager.uid, detail: autre.uid }]);
    const journal = (await call('GET', '/logement/013instr0004/journal', { cookie: admin.cookie })).json().data as { action: string; libelle: string; par: string; detail?: string }[];
    expect(journal.map((e) => [e.action, e.par, e.libelle, e.detail])).toEqual([['confie', 'Camille Durand', 'a confié la demande à', 'Samir Haddad']]);

    const mails = await recus(autre.email);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail).toContain('Camille Durand vous a confié la demande n° 013instr0004');
    expect(mail).toContain('http://quartier.test/logement/013instr0004');
    expect(mail).not.toMatch(/Hélène|Martin|helene\.martin|Logement trop petit/u);
    expect(mail).not.toContain(keys['013instr0004']!);
    // The outbox row: to the colleague, tied to the request (erasing it withdraws the mail while queued).
    const row = await ctx.app.deps.db.selectFrom('mailOutbox').selectAll().where('recipient', '=', autre.email).where('subject', 'like', 'Demande confi%').executeTakeFirstOrThrow();
    expect(row.subject).toBe('Demande confiée — demande de logement n° 013instr0004');
    expect(row.housingRequestId).toBe((await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013instr0004').executeTakeFirstOrThrow()).id);
    expect(await recus(manager.email)).toEqual([]);
  });

  it('changes nothing, and tells nobody, when the colleague follows it already; taken over from a colleague by an admin', async () => {
    expect((await confier(admin.cookie, '013instr0004', autre.uid)).json().data).toMatchObject({ suiviePar: { id: autre.uid } });
    expect(await lignes('013instr0004')).toHaveLength(1);
    expect(await recus(autre.email)).toHaveLength(1);
    // An admin gives it from Samir to Camille.
    expect((await confier(admin.cookie, '013instr0004', manager.uid)).json().data).toEqual({ suiviePar: { id: manager.uid, nom: 'Camille Durand' }, moi: false });
    expect(await lignes('013instr0004')).toEqual([
      { action: 'confie', acteurUserId: manager.uid, detail: autre.uid },
      { action: 'confie', acteurUserId: admin.uid, detail: manager.uid },
    ]);
    const mails = await recus(manager.email);
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Inès Benali vous a confié la demande n° 013instr0004');
  });

  it('given to oneself, is « Suivre »: recorded as such, no e-mail', async () => {
    const res = await confier(admin.cookie, '013instr0005', admin.uid);
    expect(res.json().data).toEqual({ suiviePar: { id: admin.uid, nom: 'Inès Benali' }, moi: true });
    expect(await lignes('013instr0005')).toEqual([{ action: 'suivi', acteurUserId: admin.uid, detail: null }]);
    expect(await recus(admin.email)).toEqual([]);
  });

  it('refuses, in French, an account that is not a manager’s or an admin’s, or none, changing nothing and telling nobody', async () => {
    const avant = (await ctx.app.deps.db.selectFrom('mailOutbox').select('id').execute()).length;
    for (const id of [habitant.uid, 'compte-inconnu']) {
      const res = await confier(manager.cookie, '013instr0005', id);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toEqual({
        code: 'GESTIONNAIRE_INCONNU',
        message: 'Ce compte n’est pas (ou plus) celui d’un gestionnaire : choisissez un collègue dans la liste.',
        fields: { gestionnaireId: 'Ce compte n’est pas (ou plus) celui d’un gestionnaire : choisissez un collègue dans la liste.' },
      });
    }
    for (const bad of ['', 42, undefined]) {
      const res = await confier(manager.cookie, '013instr0005', bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.fields.gestionnaireId).toBe('Choisissez le gestionnaire à qui confier la demande.');
    }
    expect(await suiviePar('013instr0005')).toBe(admin.uid);
    expect(await lignes('013instr0005')).toHaveLength(1);
    expect((await ctx.app.deps.db.selectFrom('mailOutbox').select('id').execute()).length).toBe(avant);
    const inconnue = await confier(manager.cookie, '013inconnu99', autre.uid);
    expect(inconnue.statusCode).toBe(404);
  });
});
