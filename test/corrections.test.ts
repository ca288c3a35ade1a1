import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, mailsTo, multipart, SAMPLES, type TestContext, attendreUnVerrou } from './helpers.js';

// Requests for corrections and the review of documents (issue 12 points 3–4).
let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let voisin: Awaited<ReturnType<typeof createAccount>>;
const keys: Record<string, string> = {};
const EMAIL = 'helene.martin@example.org';

async function creer(numeroUnique: string, cookie?: string, email = EMAIL): Promise<void> {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique, email }), headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(201);
  keys[numeroUnique] = res.json().data.accessKey;
}

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: Record<string, string> = {}, payload?: unknown) =>
  ctx.app.inject({ method, url: `/app/api${url}`, headers, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

async function envoyer(numeroUnique: string, files: { field: string; name: string }[]): Promise<Record<string, { id: string; name: string }[]>> {
  const form = await multipart(files.map((f) => ({ ...f, content: SAMPLES.pdf })));
  const res = await call('POST', `/logement/upload-files/${numeroUnique}`, { ...form.headers, 'x-access-key': keys[numeroUnique]! }, form.payload);
  expect(res.statusCode).toBe(201);
  return res.json().data.documents;
}

const ligne = async (numeroUnique: string) =>
  ((await call('GET', `/logement?q=${numeroUnique}`, { cookie: manager.cookie })).json().data as { numeroUnique: string; correction: string | null }[]).find(
    (l) => l.numeroUnique === numeroUnique,
  );

beforeAll(async () => {
  ctx = await createTestApp();
  manager = await createAccount(ctx, 'manager', { prenom: 'Camille', nom: 'Durand' });
  habitant = await createAccount(ctx);
  voisin = await createAccount(ctx);
  await creer('015corr0001', habitant.cookie);
  await creer('015corr0002');
  await creer('015corr0003');
});
afterAll(async () => ctx.close());

describe('role matrix', () => {
  it('refuses the managers’ actions to anyone else (401 without an account, 403 to a resident or the owner) and changes nothing', async () => {
    const docs = await envoyer('015corr0002', [{ field: 'tax', name: 'avis.pdf' }]);
    const docId = docs.tax![0]!.id;
    const routes = [
      ['POST', '/logement/015corr0002/corrections', { motif: 'x' }],
      ['POST', '/logement/015corr0002/corrections/cloture', undefined],
      ['PUT', `/logement/015corr0002/documents/${docId}/avis`, { avis: 'accepte' }],
    ] as const;
    for (const [method, url, body] of routes) {
      expect((await call(method, url, {}, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, { 'x-access-key': keys['015corr0002']! }, body)).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, { cookie: habitant.cookie }, body)).statusCode, `${method} ${url}`).toBe(403);
    }
    expect(await ctx.app.deps.db.selectFrom('corrections').select('id').execute()).toEqual([]);
    expect((await ctx.app.deps.db.selectFrom('documents').select('avis').where('id', '=', docId).executeTakeFirstOrThrow()).avis).toBeNull();
  });

  it('lets only the applicant say « corrections faites »: not a stranger, another resident, nor a manager', async () => {
    expect((await call('POST', '/logement/015corr0001/corrections/faites')).statusCode).toBe(403);
    expect((await call('POST', '/logement/015corr0001/corrections/faites', { cookie: voisin.cookie })).statusCode).toBe(403);
    expect((await call('POST', '/logement/015corr0001/corrections/faites', { cookie: manager.cookie })).statusCode).toBe(403);
    expect((await call('POST', '/logement/015corr0001/corrections/faites', { 'x-access-key': keys['015corr0002']! })).statusCode).toBe(403);
  });
});

describe('a round trip of corrections', () => {
  it('asks, e-mails the applicant, shows the reason and the documents to replace, then « faite », then closed', async () => {
    const docs = await envoyer('015corr0001', [
      { field: 'identity', name: 'cni.pdf' },
      { field: 'tax', name: 'avis-2023.pdf' },
    ]);
    const identity = docs.identity![0]!.id;
    const tax = docs.tax![0]!.id;

    const asked = await call(
      'POST',
      '/logement/015corr0001/corrections',
      { cookie: manager.cookie },
      { motif: "  Merci d'envoyer votre dernier avis d'imposition.  ", documents: [{ id: tax, motif: 'Avis de 2023 : il faut celui de 2025' }] },
    );
    expect(asked.statusCode).toBe(201);
    expect(asked.json().data).toEqual({ etat: 'demandee', motif: "Merci d'envoyer votre dernier avis d'imposition.", demandeeLe: expect.any(String), faiteLe: null });

    // The applicant's e-mail: the reason, the document and why, the request's page (no private key in it).
    const mail = (await mailsTo(ctx, EMAIL)).at(-1)!;
    expect(mail).toContain('015corr0001');
    expect(mail).toContain("Merci d'envoyer votre dernier avis d'imposition.");
    expect(mail).toContain('avis-2023.pdf');
    expect(mail).toContain('Avis de 2023 : il faut celui de 2025');
    expect(mail).toContain('http://quartier.test/logement/015corr0001');
    expect(mail).not.toContain(keys['015corr0001']);

    // The applicant sees it, with the document to replace and its reason; the other one is not yet checked.
    for (const headers of [{ 'x-access-key': keys['015corr0001']! }, { cookie: habitant.cookie }] as Record<string, string>[]) {
      const seen = (await call('GET', '/logement/015corr0001', headers)).json().data;
      expect(seen.correction).toMatchObject({ etat: 'demandee', motif: "Merci d'envoyer votre dernier avis d'imposition." });
      expect(seen.documents.tax[0]).toMatchObject({ id: tax, avis: 'a-remplacer', motifAvis: 'Avis de 2023 : il faut celui de 2025' });
      expect(seen.documents.identity[0]).toMatchObject({ id: identity, avis: null, motifAvis: null });
    }
    // The status view (no key) shows none of it.
    const statutSeul = await call('GET', '/logement/015corr0001');
    expect(statutSeul.json().data.acces).toBe('statut');
    expect(statutSeul.body).not.toContain('imposition');
    expect(statutSeul.json().data).not.toHaveProperty('correction');
    expect(await ligne('015corr0001')).toMatchObject({ correction: 'demandee' });
    // « Mes demandes » of the owning account says the town hall waits for them.
    const mine = (await call('GET', '/logement/mine', { cookie: habitant.cookie })).json().data as { numeroUnique: string; correction: string | null }[];
    expect(mine.find((d) => d.numeroUnique === '015corr0001')).toMatchObject({ correction: 'demandee' });

    // Asked again before the applicant answers: refused, nothing more stored or sent.
    const mailsAvant = (await mailsTo(ctx, EMAIL)).length;
    const again = await call('POST', '/logement/015corr0001/corrections', { cookie: manager.cookie }, { motif: 'Autre chose' });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatchObject({ code: 'CORRECTION_EN_COURS', message: expect.stringMatching(/déjà demandées/u) });
    expect(await ctx.app.deps.db.selectFrom('corrections').select('id').execute()).toHaveLength(1);
    expect(await mailsTo(ctx, EMAIL)).toHaveLength(mailsAvant);

    // The applicant replaces the document (deleted whatever the status: it is to replace), then says it is done.
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015corr0001', newStatus: 'Passage CAL' })).statusCode).toBe(200);
    expect((await call('DELETE', `/logement/015corr0001/documents/${identity}`, { 'x-access-key': keys['015corr0001']! })).statusCode).toBe(409);
    expect((await call('DELETE', `/logement/015corr0001/documents/${tax}`, { 'x-access-key': keys['015corr0001']! })).statusCode).toBe(204);
    await envoyer('015corr0001', [{ field: 'tax', name: 'avis-2025.pdf' }]);
    const mailsGestion = (await mailsTo(ctx, manager.email)).length;
    const faite = await call('POST', '/logement/015corr0001/corrections/faites', { 'x-access-key': keys['015corr0001']! });
    expect(faite.statusCode).toBe(200);
    expect(faite.json().data).toMatchObject({ etat: 'faite', faiteLe: expect.any(String) });
    // The manager who asked (no one follows the request) is told where to check, once.
    const dites = (await mailsTo(ctx, manager.email)).slice(mailsGestion);
    expect(dites).toHaveLength(1);
    expect(dites[0]).toContain('indique avoir fait les corrections');
    expect(dites[0]).toContain('http://quartier.test/logement/015corr0001');
    // Said twice: the same answer, the first time kept.
    const deuxFois = await call('POST', '/logement/015corr0001/corrections/faites', { cookie: habitant.cookie });
    expect(deuxFois.json().data.faiteLe).toBe(faite.json().data.faiteLe);
    expect(await mailsTo(ctx, manager.email)).toHaveLength(mailsGestion + 1);
    expect(await ligne('015corr0001')).toMatchObject({ correction: 'faite' });
    const filtered = (await call('GET', '/logement?correction=faite', { cookie: manager.cookie })).json();
    expect(filtered.data.map((l: { numeroUnique: string }) => l.numeroUnique)).toEqual(['015corr0001']);

    // A manager closes it: the list and the applicant's page no longer show it.
    expect((await call('POST', '/logement/015corr0001/corrections/cloture', { cookie: manager.cookie })).statusCode).toBe(204);
    expect(await ligne('015corr0001')).toMatchObject({ correction: null });
    expect((await call('GET', '/logement/015corr0001', { cookie: habitant.cookie })).json().data.correction).toBeNull();
    const plusRien = await call('POST', '/logement/015corr0001/corrections/faites', { cookie: habitant.cookie });
    expect(plusRien.statusCode).toBe(409);
    expect(plusRien.json().error.code).toBe('AUCUNE_CORRECTION');

    // The audit: asked, done (by the applicant, unnamed), closed; the review of the document, without its reason.
    const journal = (await call('GET', '/logement/015corr0001/journal', { cookie: manager.cookie })).json().data as { action: string; par: string; detail?: string }[];
    const corr = journal.filter((e) => ['correction', 'corrections-faites', 'correction-close', 'revue-document'].includes(e.action));
    expect(corr.map((e) => [e.action, e.par, e.detail])).toEqual([
      ['correction', 'Camille Durand', undefined],
      ['revue-document', 'Camille Durand', "Avis d’imposition (à remplacer)"],
      ['corrections-faites', 'Le demandeur', undefined],
      ['correction-close', 'Camille Durand', undefined],
    ]);
    expect(JSON.stringify(await ctx.app.deps.db.selectFrom('journalGestion').selectAll().execute())).not.toContain('2025');
  });

  it('puts the requests for corrections and the reviews in the person’s data export', async () => {
    const zip = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/015corr0001/export.zip', headers: { 'x-access-key': keys['015corr0001']! } });
    expect(zip.statusCode).toBe(200);
    // Stored entries (no compression): demande.json reads as it is in the zip's bytes.
    const json = zip.rawPayload.toString('utf8');
    expect(json).toContain('"motif": "Merci d\'envoyer votre dernier avis d\'imposition."');
    expect(json).toMatch(/"faiteLe": "20\d\d-/u);
    expect(json).toContain('"avis": null');
  });

  it('tells the manager who asked, not a follower who is no longer a manager, that the corrections are made', async () => {
    const ancien = await createAccount(ctx, 'manager', { prenom: 'Léa', nom: 'Roux' });
    await creer('015corr0009');
    expect((await call('PUT', '/logement/015corr0009/suivi', { cookie: ancien.cookie }, { suivre: true })).statusCode).toBe(200);
    expect((await call('POST', '/logement/015corr0009/corrections', { cookie: manager.cookie }, { motif: 'Pièce illisible' })).statusCode).toBe(201);
    await ctx.app.deps.db.updateTable('user').set({ userType: 'habitant' }).where('id', '=', ancien.uid).execute();
    const faites = async (email: string) => (await mailsTo(ctx, email)).filter((m) => m.includes('indique avoir fait les corrections') && m.includes('015corr0009'));
    expect((await call('POST', '/logement/015corr0009/corrections/faites', { 'x-access-key': keys['015corr0009']! })).statusCode).toBe(200);
    expect(await faites(ancien.email)).toEqual([]);
    expect(await faites(manager.email)).toHaveLength(1);
  });

  it.runIf(process.env.DATABASE_URL !== undefined)('refuses the deletion of a document a manager accepted while the deletion waited (PostgreSQL)', async () => {
    await creer('015corr0010');
    const docId = (await envoyer('015corr0010', [{ field: 'tax', name: 'avis.pdf' }])).tax![0]!.id;
    expect((await call('PUT', `/logement/015corr0010/documents/${docId}/avis`, { cookie: manager.cookie }, { avis: 'a-remplacer', motif: 'Illisible' })).statusCode).toBe(200);
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015corr0010', newStatus: 'Passage CAL' })).statusCode).toBe(200);
    const db = ctx.app.deps.db;
    const { id } = await db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '015corr0010').executeTakeFirstOrThrow();
    let suppression: Promise<{ statusCode: number }> | undefined;
    // A review holds the request and accepts the document; the applicant's deletion, already checked, waits for it.
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('housingRequests').select('id').where('id', '=', id).forUpdate().execute();
      await trx.updateTable('documents').set({ avis: 'accepte', avisMotif: null }).where('id', '=', docId).execute();
      suppression = call('DELETE', `/logement/015corr0010/documents/${docId}`, { 'x-access-key': keys['015corr0010']! });
      await attendreUnVerrou(db);
    });
    expect((await suppression!).statusCode).toBe(409);
    expect(await db.selectFrom('documents').select('id').where('id', '=', docId).execute()).toHaveLength(1);
  });

  it('once done, a new request for corrections closes the previous one', async () => {
    await creer('015corr0004');
    expect((await call('POST', '/logement/015corr0004/corrections', { cookie: manager.cookie }, { motif: 'Premier tour' })).statusCode).toBe(201);
    expect((await call('POST', '/logement/015corr0004/corrections/faites', { 'x-access-key': keys['015corr0004']! })).statusCode).toBe(200);
    expect((await call('POST', '/logement/015corr0004/corrections', { cookie: manager.cookie }, { motif: 'Second tour' })).statusCode).toBe(201);
    const rows = await ctx.app.deps.db.selectFrom('corrections').innerJoin('housingRequests', 'housingRequests.id', 'corrections.housingRequestId').select(['motif', 'closeLe']).where('numeroUnique', '=', '015corr0004').orderBy('demandeeLe').execute();
    expect(rows.map((r) => [r.motif, r.closeLe !== null])).toEqual([
      ['Premier tour', true],
      ['Second tour', false],
    ]);
    expect(await ligne('015corr0004')).toMatchObject({ correction: 'demandee' });
  });
});

describe('the applicant corrects the fields', () => {
  const champs = (overrides: Record<string, unknown> = {}) => {
    const { numeroUnique: _, ...reste } = demande({ email: EMAIL });
    return { ...reste, ...overrides };
  };
  const row = (numeroUnique: string) => ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow();
  const journalDe = async (numeroUnique: string) =>
    ((await call('GET', `/logement/${numeroUnique}/journal`, { cookie: manager.cookie })).json().data as { action: string; par: string; detail?: string }[]).filter(
      (e) => e.action === 'demande-modifiee',
    );

  it('at the first status: saves the new values, re-indexes the search, audits the fields’ names, tells the former address', async () => {
    await creer('015modif001', habitant.cookie);
    const nouvelle = 'nouvelle.adresse@example.org';
    const res = await call(
      'PUT',
      '/logement/015modif001',
      { 'x-access-key': keys['015modif001']! },
      champs({ numeroUnique: '015autre0001', prenom: 'Éloïse', nom: "N'Guessan", email: nouvelle, salaireBrut: '1 850,50', quartierSouhaite: ['encagnane', 'encagnane'] }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ numeroUnique: '015modif001', prenom: 'Éloïse', nom: "N'Guessan", email: nouvelle, salaireBrut: 1850.5, quartierSouhaite: ['encagnane'] });
    // The numéro names the request: a body's numéro is not a field that changes.
    const stored = await row('015modif001');
    expect(stored).toMatchObject({ prenom: 'Éloïse', nom: "N'Guessan", email: nouvelle, salaireBrut: 1850.5, quartierSouhaite: '["encagnane"]', nomTri: "n'guessan" });
    expect(await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '015autre0001').execute()).toEqual([]);
    // The managers' search finds the new name, folded, and no longer the old one.
    const trouve = (q: string) => call('GET', `/logement?q=${encodeURIComponent(q)}`, { cookie: manager.cookie }).then((r) => r.json().data.map((l: { numeroUnique: string }) => l.numeroUnique));
    expect(await trouve('nguessan eloise')).toContain('015modif001');
    expect(await trouve('015modif001 martin')).toEqual([]);
    // The audit names the fields, never their values, as the applicant's doing.
    expect(await journalDe('015modif001')).toEqual([
      expect.objectContaining({ par: 'Le demandeur', detail: 'Prénom, Nom, Adresse e-mail, Salaire brut mensuel, Quartiers souhaités' }),
    ]);
    expect(JSON.stringify(await ctx.app.deps.db.selectFrom('journalGestion').selectAll().execute())).not.toMatch(/Guessan|nouvelle\.adresse|1850/u);
    // The former address is told (without the new one); the new one gets the next e-mails.
    const averti = (await mailsTo(ctx, EMAIL)).at(-1)!;
    expect(averti).toContain('015modif001');
    expect(averti).toContain('Si ce n');
    expect(averti).not.toContain(nouvelle);

    // Sent again unchanged: nothing written, nothing audited, no e-mail.
    const avant = await row('015modif001');
    const mails = (await mailsTo(ctx, nouvelle)).length + (await mailsTo(ctx, EMAIL)).length;
    const pareil = await call('PUT', '/logement/015modif001', { cookie: habitant.cookie }, champs({ prenom: 'Éloïse', nom: "N'Guessan", email: nouvelle, salaireBrut: 1850.5, quartierSouhaite: ['encagnane'] }));
    expect(pareil.statusCode).toBe(200);
    expect((await row('015modif001')).updatedAt).toBe(avant.updatedAt);
    expect(await journalDe('015modif001')).toHaveLength(1);
    expect((await mailsTo(ctx, nouvelle)).length + (await mailsTo(ctx, EMAIL)).length).toBe(mails);
  });

  it('refuses anyone but the applicant (403), a manager included, and bad values in French, changing nothing', async () => {
    await creer('015modif002');
    const avant = await row('015modif002');
    for (const headers of [{}, { cookie: voisin.cookie }, { cookie: manager.cookie }, { 'x-access-key': keys['015corr0002']! }] as Record<string, string>[]) {
      const res = await call('PUT', '/logement/015modif002', headers, champs({ prenom: 'Intrus' }));
      expect(res.statusCode).toBe(403);
    }
    const vide = await call('PUT', '/logement/015modif002', { 'x-access-key': keys['015modif002']! }, champs({ prenom: '  ', salaireBrut: '-3' }));
    expect(vide.statusCode).toBe(400);
    expect(vide.json().error.fields).toMatchObject({ prenom: 'Le prénom est obligatoire.', salaireBrut: 'Le salaire brut ne peut pas être négatif.' });
    expect(await row('015modif002')).toEqual(avant);
    expect(await journalDe('015modif002')).toEqual([]);
  });

  it('is closed once the town hall works on the request, open again while corrections are asked, closed once they are made', async () => {
    await creer('015modif003');
    const cle = { 'x-access-key': keys['015modif003']! };
    const modifier = (prenom: string) => call('PUT', '/logement/015modif003', cle, champs({ prenom }));
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015modif003', newStatus: 'En cours de traitement' })).statusCode).toBe(200);
    const fermee = await modifier('Trop tard');
    expect(fermee.statusCode).toBe(409);
    expect(fermee.json().error).toMatchObject({ code: 'MODIFICATION_FERMEE', message: expect.stringMatching(/ne peut plus être modifiée/u) });
    expect((await row('015modif003')).prenom).toBe('Hélène');

    expect((await call('POST', '/logement/015modif003/corrections', { cookie: manager.cookie }, { motif: 'Votre prénom est mal orthographié.' })).statusCode).toBe(201);
    expect((await modifier('Hélèna')).statusCode).toBe(200);
    expect((await row('015modif003')).prenom).toBe('Hélèna');
    expect((await call('POST', '/logement/015modif003/corrections/faites', cle)).statusCode).toBe(200);
    expect((await modifier('Encore')).statusCode).toBe(409);
    // Closed for good once the request is: no corrections there.
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015modif003', newStatus: 'Refusé', motif: 'Hors critères' })).statusCode).toBe(200);
    expect((await modifier('Encore')).statusCode).toBe(409);
    expect((await row('015modif003')).prenom).toBe('Hélèna');
  });
});

describe('refusals', () => {
  it('refuses an empty reason, a document of another request, a closed request, in French, storing nothing', async () => {
    const before = (await ctx.app.deps.db.selectFrom('corrections').select('id').execute()).length;
    const vide = await call('POST', '/logement/015corr0003/corrections', { cookie: manager.cookie }, { motif: '   ' });
    expect(vide.statusCode).toBe(400);
    expect(vide.json().error.fields.motif).toBe('Expliquez ce qu’il faut corriger.');
    const sansMotifDoc = await call('POST', '/logement/015corr0003/corrections', { cookie: manager.cookie }, { motif: 'x', documents: [{ id: crypto.randomUUID(), motif: '' }] });
    expect(sansMotifDoc.statusCode).toBe(400);
    const autreDoc = (await ctx.app.deps.db.selectFrom('documents').select('id').executeTakeFirstOrThrow()).id;
    const ailleurs = await call('POST', '/logement/015corr0003/corrections', { cookie: manager.cookie }, { motif: 'x', documents: [{ id: autreDoc, motif: 'flou' }] });
    expect(ailleurs.statusCode).toBe(404);
    expect(ailleurs.json().error.code).toBe('DOCUMENT_NOT_FOUND');
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015corr0003', newStatus: 'Attribué' })).statusCode).toBe(200);
    const close = await call('POST', '/logement/015corr0003/corrections', { cookie: manager.cookie }, { motif: 'Trop tard' });
    expect(close.statusCode).toBe(409);
    expect(close.json().error).toMatchObject({ code: 'DEMANDE_CLOSE', message: expect.stringMatching(/close \(Attribué\)/u) });
    expect((await call('POST', '/logement/015corr0003/corrections/cloture', { cookie: manager.cookie })).json().error.code).toBe('AUCUNE_CORRECTION');
    expect((await ctx.app.deps.db.selectFrom('corrections').select('id').execute()).length).toBe(before);
    expect((await call('POST', '/logement/015inconnu99/corrections', { cookie: manager.cookie }, { motif: 'x' })).statusCode).toBe(404);
  });
});

describe('a request closed while corrections are asked', () => {
  it('takes no answer any more: « corrections faites » is refused in French and the correction stays open for the desk to close', async () => {
    await creer('015corr0011');
    const cle = { 'x-access-key': keys['015corr0011']! };
    expect((await call('POST', '/logement/015corr0011/corrections', { cookie: manager.cookie }, { motif: 'Votre avis d’imposition est illisible.' })).statusCode).toBe(201);
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015corr0011', newStatus: 'Refusé', motif: 'Hors critères' })).statusCode).toBe(200);
    const faites = await call('POST', '/logement/015corr0011/corrections/faites', cle);
    expect(faites.statusCode).toBe(409);
    expect(faites.json().error).toEqual({ code: 'DEMANDE_CLOSE', message: 'Cette demande est close (Refusé) : elle n’attend plus de corrections.' });
    const correction = await ctx.app.deps.db
      .selectFrom('corrections')
      .innerJoin('housingRequests', 'housingRequests.id', 'corrections.housingRequestId')
      .where('housingRequests.numeroUnique', '=', '015corr0011')
      .select(['corrections.faiteLe', 'corrections.closeLe'])
      .executeTakeFirstOrThrow();
    expect(correction).toEqual({ faiteLe: null, closeLe: null });
    expect((await ligne('015corr0011'))?.correction).toBe('demandee');
    expect((await call('POST', '/logement/015corr0011/corrections/cloture', { cookie: manager.cookie })).statusCode).toBe(204);
    expect((await ligne('015corr0011'))?.correction).toBeNull();
  });

  it('asks for no document to be replaced any more; accepting one, or withdrawing a review, stays possible', async () => {
    await creer('015corr0012');
    const docs = await envoyer('015corr0012', [{ field: 'salary', name: 'bulletin.pdf' }]);
    const id = docs.salary![0]!.id;
    const url = `/logement/015corr0012/documents/${id}/avis`;
    expect((await call('POST', '/logement/update/status', { cookie: manager.cookie }, { logementId: '015corr0012', newStatus: 'Attribué' })).statusCode).toBe(200);
    const aRemplacer = await call('PUT', url, { cookie: manager.cookie }, { avis: 'a-remplacer', motif: 'Illisible' });
    expect(aRemplacer.statusCode).toBe(409);
    expect(aRemplacer.json().error).toEqual({
      code: 'DEMANDE_CLOSE',
      message: 'Cette demande est close (Attribué) : elle ne reçoit plus de documents, aucun ne peut être demandé à remplacer.',
    });
    expect((await ctx.app.deps.db.selectFrom('documents').select('avis').where('id', '=', id).executeTakeFirstOrThrow()).avis).toBeNull();
    expect((await call('PUT', url, { cookie: manager.cookie }, { avis: 'accepte' })).json().data).toMatchObject({ avis: 'accepte' });
    expect((await call('PUT', url, { cookie: manager.cookie }, { avis: null })).json().data).toMatchObject({ avis: null });
  });
});

describe('document review', () => {
  it('marks a document accepted or to replace (with its reason), withdraws it, and the checklist state follows', async () => {
    await creer('015corr0005');
    const docs = await envoyer('015corr0005', [{ field: 'salary', name: 'bulletin.pdf' }]);
    const id = docs.salary![0]!.id;
    const url = `/logement/015corr0005/documents/${id}/avis`;
    const sansMotif = await call('PUT', url, { cookie: manager.cookie }, { avis: 'a-remplacer' });
    expect(sansMotif.statusCode).toBe(400);
    expect((await call('PUT', url, { cookie: manager.cookie }, { avis: 'peut-etre' })).statusCode).toBe(400);
    const aRemplacer = await call('PUT', url, { cookie: manager.cookie }, { avis: 'a-remplacer', motif: 'Illisible' });
    expect(aRemplacer.statusCode).toBe(200);
    expect(aRemplacer.json().data).toMatchObject({ id, name: 'bulletin.pdf', avis: 'a-remplacer', motifAvis: 'Illisible' });
    const accepte = await call('PUT', url, { cookie: manager.cookie }, { avis: 'accepte' });
    expect(accepte.json().data).toMatchObject({ avis: 'accepte', motifAvis: null });
    const row = await ctx.app.deps.db.selectFrom('documents').select(['avis', 'avisMotif', 'avisPar']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ avis: 'accepte', avisMotif: null, avisPar: manager.uid });
    expect((await call('GET', '/logement/015corr0005', { 'x-access-key': keys['015corr0005']! })).json().data.documents.salary[0].avis).toBe('accepte');
    const retire = await call('PUT', url, { cookie: manager.cookie }, { avis: null });
    expect(retire.json().data).toMatchObject({ avis: null });
    expect((await call('PUT', `/logement/015corr0001/documents/${id}/avis`, { cookie: manager.cookie }, { avis: 'accepte' })).statusCode).toBe(404);
    const journal = (await call('GET', '/logement/015corr0005/journal', { cookie: manager.cookie })).json().data as { action: string; detail?: string }[];
    expect(journal.filter((e) => e.action === 'revue-document').map((e) => e.detail)).toEqual([
      'Bulletins de salaire (à remplacer)',
      'Bulletins de salaire (accepté)',
      'Bulletins de salaire (avis retiré)',
    ]);
  });
});

describe('erasure', () => {
  it('blanks the reasons of the erased request’s corrections and keeps their dates in the audit', async () => {
    await creer('015corr0006');
    expect((await call('POST', '/logement/015corr0006/corrections', { cookie: manager.cookie }, { motif: 'Votre fils Paul doit signer' })).statusCode).toBe(201);
    const id = (await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '015corr0006').executeTakeFirstOrThrow()).id;
    const retrait = await call('POST', '/logement/015corr0006/retirer', { 'x-access-key': keys['015corr0006']! });
    expect(retrait.statusCode, retrait.body).toBeLessThan(300);
    const rows = await ctx.app.deps.db.selectFrom('corrections').select(['motif', 'demandeeLe']).where('housingRequestId', '=', id).execute();
    expect(rows).toEqual([{ motif: '', demandeeLe: expect.any(String) }]);
  });
});
