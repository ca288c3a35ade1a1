import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { foldForSearch } from '../src/domain/normalise.js';
import { createAccount, createTestApp, demande, multipart, SAMPLES, surUnPort, type TestContext } from './helpers.js';

let ctx: TestContext;
let manager: Awaited<ReturnType<typeof createAccount>>;
let admin: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let owner: Awaited<ReturnType<typeof createAccount>>;
const keys: Record<string, string> = {};

async function create(body: Record<string, unknown>, cookie?: string) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: body, headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(201);
  keys[res.json().data.numeroUnique] = res.json().data.accessKey;
  return res.json().data;
}

/** The undo window of status changes (`delaiAnnulationMs`, read by the service at each change). */
const fenetre = (ms: number) => Object.assign(ctx.config, { delaiAnnulationMs: ms });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The app on a loopback port (once), for live-event streams read with fetch. */
let listening: string | undefined;
async function baseUrl(): Promise<string> {
  if (!listening) {
    listening = (await surUnPort(ctx.app)).base;
  }
  return listening;
}

/** Reads a live-event stream as text. */
async function stream(url: string, cookie?: string) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: cookie ? { cookie } : {}, signal: controller.signal });
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const reader = res.body!.getReader();
  let text = '';
  return {
    async until(predicate: (t: string) => boolean) {
      while (!predicate(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      return text;
    },
    text: () => text,
    close: () => controller.abort(),
  };
}

/** The e-mails written for an address (DATA_DIR/mail), soft line breaks and accents decoded. */
async function mailsTo(email: string): Promise<string[]> {
  await ctx.app.deps.mailer.idle();
  const dir = path.join(ctx.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  const decode = (raw: string) =>
    Buffer.from(raw.replace(/=\r?\n/gu, '').replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .map((f) => decode(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((m) => m.includes(`To: ${email}`));
}
const statusMails = async (email: string) => (await mailsTo(email)).filter((m) => m.includes('Nouveau statut'));

const list = (query: string, cookie = manager.cookie) => ctx.app.inject({ method: 'GET', url: `/app/api/logement?${query}`, headers: { cookie } });
const TYPES = ['studio', 't2', 't3', 't4', 't5', 't6'];
const numeros = (res: { json(): { data: { numeroUnique: string }[] } }) => res.json().data.map((d) => d.numeroUnique);

beforeAll(async () => {
  ctx = await createTestApp();
  // The e-mails of status changes leave at once, except in the tests of the undo window, which set it.
  fenetre(0);
  manager = await createAccount(ctx, 'manager', { prenom: 'Maëlle', nom: 'Gestionnaire' });
  admin = await createAccount(ctx, 'admin');
  habitant = await createAccount(ctx, 'habitant');
  owner = await createAccount(ctx, 'habitant');
  // Twelve requests with distinct, sortable values.
  const people = [
    ['Hélène', 'Martin'],
    ['Zoé', 'Bernard'],
    ['Ali', 'Benali'],
    ['Émile', 'Zola'],
    ['Chloé', 'Dupont'],
    ['Hugo', 'Lefèvre'],
    ['Inès', 'Moreau'],
    ['Jean', 'Petit'],
    ['Karim', 'Roux'],
    ['Léa', 'Simon'],
    ['Marc', 'Thomas'],
    ['Nina', 'Vidal'],
  ];
  for (const [i, [prenom, nom]] of people.entries()) {
    await create(
      demande({
        numeroUnique: `013list${String(i).padStart(5, '0')}`,
        prenom,
        nom,
        email: `${nom!.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()}@example.org`,
        nombreDEnfants: i % 4,
        // Every dwelling type, in an order no other column follows.
        typeDeLogementSouhaite: TYPES[(i * 5 + 2) % TYPES.length],
        motivations: i === 3 ? 'Près de l’école Saint-Exupéry' : 'Besoin',
      }),
      i === 0 ? owner.cookie : undefined,
    );
  }
});
afterAll(async () => {
  await ctx.close();
});

describe('role matrix', () => {
  const endpoints = [
    ['GET', '/app/api/logement'],
    ['GET', '/app/api/logement/all'],
    ['GET', '/app/api/logement/export.csv'],
    ['POST', '/app/api/logement/update/status'],
    ['POST', '/app/api/logement/update/status/annuler'],
    ['GET', '/app/api/evenements'],
  ] as const;

  it('answers 401 to anonymous and 403 to habitants and owners on every list and status endpoint', async () => {
    for (const [method, url] of endpoints) {
      const anonymous = await ctx.app.inject({ method, url, payload: method === 'POST' ? { logementId: '013list00000', newStatus: 'Attribué' } : undefined });
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401);
      for (const who of [habitant, owner]) {
        const res = await ctx.app.inject({ method, url, headers: { cookie: who.cookie }, payload: method === 'POST' ? { logementId: '013list00000', newStatus: 'Attribué' } : undefined });
        expect(res.statusCode, `${method} ${url}`).toBe(403);
        expect(res.json().error.message).toBe('Accès réservé aux gestionnaires de la mairie annexe.');
      }
    }
    const row = await ctx.app.deps.db.selectFrom('housingRequests').select('statutDeLaDemande').where('numeroUnique', '=', '013list00000').executeTakeFirstOrThrow();
    expect(row.statutDeLaDemande).toBe('En attente des documents');
  });

  it("tells managers the server's time of each answer (Server-Timing), and no one else", async () => {
    for (const url of ['/app/api/logement?q=martin', '/app/api/compteurs']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: { cookie: manager.cookie } });
      expect(res.statusCode).toBe(200);
      expect(String(res.headers['server-timing'])).toMatch(/^app;dur=\d+\.\d\d$/u);
    }
    const refusees = [
      await ctx.app.inject({ method: 'GET', url: '/app/api/logement' }),
      await ctx.app.inject({ method: 'GET', url: '/app/api/logement', headers: { cookie: habitant.cookie } }),
      await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00000', headers: { cookie: owner.cookie } }),
    ];
    expect(refusees.map((r) => [r.statusCode, r.headers['server-timing']])).toEqual([
      [401, undefined],
      [403, undefined],
      [200, undefined],
    ]);
  });

  it('lets managers and admins list, and get the map of all requests', async () => {
    for (const who of [manager, admin]) {
      expect((await list('', who.cookie)).statusCode).toBe(200);
      const all = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/all', headers: { cookie: who.cookie } });
      expect(Object.keys(all.json().data)).toHaveLength(12);
      expect(all.json().data['013list00000']).toMatchObject({ prenom: 'Hélène', nom: 'Martin' });
    }
  });
});

describe('GET /logement (server-side search, sort, filter, pages)', () => {
  it('defaults to the newest first, 10 a page, with the total', async () => {
    const res = await list('');
    expect(res.json().total).toBe(12);
    expect(res.json().totalExact).toBe(true);
    expect(res.json().data).toHaveLength(10);
    expect(numeros(res)[0]).toBe('013list00011');
  });

  it('searches every field, ignoring case and accents', async () => {
    expect(numeros(await list('q=helene'))).toEqual(['013list00000']);
    expect(numeros(await list('q=HÉLÈNE'))).toEqual(['013list00000']);
    expect(numeros(await list('q=zola'))).toEqual(['013list00003']);
    expect(numeros(await list(`q=${encodeURIComponent('saint exupery')}`))).toEqual(['013list00003']);
    expect(numeros(await list('q=benali%40example'))).toEqual(['013list00002']);
    expect((await list('q=personne')).json()).toEqual({ data: [], total: 0, totalExact: true });
    // LIKE wildcards and quotes typed by a person are plain characters.
    expect((await list('q=%25')).json().total).toBe(0);
    expect((await list('q=%25%25%25')).json().total).toBe(0);
    expect((await list(`q=${encodeURIComponent('"hel OR x*')}`)).json()).toEqual({ data: [], total: 0, totalExact: true });
    expect(numeros(await list(`q=${encodeURIComponent('ène mar')}`))).toEqual(['013list00000']);
  });

  it.each([
    ['nom', 'asc', 'Benali', 'Zola'],
    ['prenom', 'desc', 'Zoé', 'Ali'],
    ['nom', 'desc', 'Zola', 'Benali'],
    ['email', 'desc', 'zola@example.org', 'benali@example.org'],
    ['numeroUnique', 'asc', '013list00000', '013list00011'],
    ['dateDEnregistrement', 'asc', '013list00000', '013list00011'],
    ['nombreDEnfants', 'desc', 3, 0],
    ['typeDeLogementSouhaite', 'asc', 'studio', 't6'],
    ['typeDeLogementSouhaite', 'desc', 't6', 'studio'],
  ] as const)('sorts on %s %s', async (sort, order, first, last) => {
    const res = await list(`sort=${sort}&order=${order}&pageSize=100`);
    const rows = res.json().data as Record<string, string | number>[];
    const field = sort === 'dateDEnregistrement' ? 'numeroUnique' : sort;
    expect(rows[0]![field]).toBe(first);
    expect(rows.at(-1)![field]).toBe(last);
    // The whole column is in order (names without regard to case and accents), not only its ends.
    const values = rows.map((r) => r[field]!);
    const key = (v: string | number) => (typeof v === 'number' ? v : foldForSearch(v));
    const sorted = [...values].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    expect(values).toEqual(order === 'asc' ? sorted : sorted.reverse());
  });

  it('sorts statuses in the order of the steps, and filters on one', async () => {
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00005', newStatus: 'Passage CAL' } });
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00006', newStatus: 'Demande envoyée' } });
    const byStatus = (await list('sort=statutDeLaDemande&order=desc&pageSize=5')).json().data;
    expect(byStatus.slice(0, 2).map((d: { statutDeLaDemande: string }) => d.statutDeLaDemande)).toEqual(['Passage CAL', 'Demande envoyée']);
    const filtered = await list(`status=${encodeURIComponent('Passage CAL')}`);
    expect(filtered.json()).toMatchObject({ total: 1, data: [{ numeroUnique: '013list00005' }] });
  });

  it('pages from 1: the last page, a page beyond the end, and refuses sizes outside the list', async () => {
    const last = await list('page=3&pageSize=5');
    expect(last.json().data).toHaveLength(2);
    expect(last.json().total).toBe(12);
    const beyond = await list('page=9&pageSize=5');
    expect(beyond.statusCode).toBe(200);
    expect(beyond.json()).toEqual({ data: [], total: 12, totalExact: true });
    for (const bad of ['pageSize=7', 'pageSize=1000', 'page=0', 'page=abc', 'sort=motdepasse', 'order=up', 'status=Inconnu']) {
      const res = await list(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION');
    }
    expect((await list('pageSize=7')).json().error.message).toBe('La taille de page doit être 5, 10, 25, 50, 100.');
  });

  it.each(['sort=nom&order=asc', 'sort=dateDEnregistrement&order=desc', 'sort=statutDeLaDemande&order=asc', 'q=example&sort=prenom&order=asc'])(
    'gives pages that join into the whole ordered list (deep pages are read from the end): %s',
    async (query) => {
      const whole = numeros(await list(`${query}&pageSize=100`));
      const pages = [];
      for (let page = 1; page <= 3; page++) pages.push(...numeros(await list(`${query}&pageSize=5&page=${page}`)));
      expect(pages).toEqual(whole);
    },
  );
});

describe('POST /logement/update/status', () => {
  it('changes the status, records who, when and from what, e-mails the requester, and shows the history', async () => {
    const before = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00001' });
    expect(before.json().data.statutDeLaDemande).toBe('En attente des documents');
    for (const newStatus of ['Attribué', 'En cours de traitement']) {
      const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013 LIST 00001', newStatus } });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.statutDeLaDemande).toBe(newStatus);
    }
    const row = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '013list00001').executeTakeFirstOrThrow();
    expect(row.statutDeLaDemande).toBe('En cours de traitement');
    const events = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', row.id).orderBy('at').execute();
    expect(events.map((e) => [e.fromStatus, e.toStatus, e.actorUserId])).toEqual([
      [null, 'En attente des documents', null],
      ['En attente des documents', 'Attribué', manager.uid],
      ['Attribué', 'En cours de traitement', manager.uid],
    ]);

    const publicHistory = (await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00001/historique' })).json().data;
    expect(publicHistory.map((h: { vers: string }) => h.vers)).toEqual(['En attente des documents', 'Attribué', 'En cours de traitement']);
    expect(publicHistory[1]).not.toHaveProperty('par');
    const managerHistory = (await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00001/historique', headers: { cookie: manager.cookie } })).json().data;
    expect(managerHistory[1].par).toBe('Maëlle Gestionnaire');

    await ctx.app.deps.mailer.idle();
    const dir = path.join(ctx.dataDir, 'mail');
    const mails = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/gu, ''));
    const statusMails = mails.filter((m) => m.includes('To: bernard@example.org') && /nouveau statut/iu.test(m.replace(/=C3=A9/gu, 'é')));
    expect(statusMails).toHaveLength(2);
    expect(statusMails.some((m) => m.includes('http://quartier.test/logement/013list00001') && !m.includes('#cle='))).toBe(true);
  });

  it('keeps the history a chain when managers change one request at the same instant', async () => {
    const targets = ['En cours de traitement', 'Demande envoyée', 'En attente', 'Passage CAL', 'Attribué', 'Refusé'];
    const results = await Promise.all(
      targets.map((newStatus) =>
        ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00010', newStatus } }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(targets.map(() => 200));
    const row = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '013list00010').executeTakeFirstOrThrow();
    const events = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', row.id).execute();
    // Follow from → to from the creation: every change must start where the previous one ended.
    const remaining = [...events];
    let current: string | null = null;
    while (remaining.length > 0) {
      const next = remaining.findIndex((e) => e.fromStatus === current);
      expect(next, `no step starts from ${current}`).toBeGreaterThanOrEqual(0);
      current = remaining.splice(next, 1)[0]!.toStatus;
    }
    expect(current).toBe(row.statutDeLaDemande);
  });

  it('refuses an unknown status (400) and an unknown request (404), changing nothing', async () => {
    const bad = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00002', newStatus: 'Perdu' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.fields.newStatus).toMatch(/^Statut inconnu/u);
    const missing = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013nobody0000', newStatus: 'Attribué' } });
    expect(missing.statusCode).toBe(404);
    const row = await ctx.app.deps.db.selectFrom('housingRequests').select('statutDeLaDemande').where('numeroUnique', '=', '013list00002').executeTakeFirstOrThrow();
    expect(row.statutDeLaDemande).toBe('En attente des documents');
  });
});

describe('undo a status change for 10 s, and the reason of a refusal (issue 9 point 12)', () => {
  const change = (payload: Record<string, unknown>, cookie = manager.cookie) =>
    ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie }, payload });
  const annuler = (id: unknown, cookie = manager.cookie) =>
    ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status/annuler', headers: { cookie }, payload: { id } });
  const stored = (numeroUnique: string) =>
    ctx.app.deps.db.selectFrom('housingRequests').select(['id', 'statutDeLaDemande', 'statutRang']).where('numeroUnique', '=', numeroUnique).executeTakeFirstOrThrow();
  const history = async (numeroUnique: string, headers: Record<string, string> = {}) =>
    (await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}/historique`, headers })).json().data as { vers: string; motif?: string }[];

  it('answers how to undo (id, until change time + the window), and e-mails the resident only once the window has closed', async () => {
    fenetre(2500);
    await create(demande({ numeroUnique: '013undo00001', email: 'fenetre@example.org' }));
    const res = await change({ logementId: '013undo00001', newStatus: 'Passage CAL' });
    expect(res.statusCode).toBe(200);
    const { annulation, updatedAt } = res.json().data;
    expect(annulation).toEqual({ id: expect.any(String), jusqua: new Date(Date.parse(updatedAt) + 2500).toISOString() });
    // Before the time: no e-mail written, even when the outbox is asked to deliver what is due. (Judged only when the
    // look was over before the window closed: on a loaded machine it may not be, and then the mail is rightly out.)
    const avant = await statusMails('fenetre@example.org');
    if (Date.now() < Date.parse(annulation.jusqua)) expect(avant).toEqual([]);
    await sleep(Date.parse(annulation.jusqua) - Date.now() + 50);
    // Due now; on a loaded machine the outbox's delivery may take a moment more.
    await vi.waitFor(async () => expect(await statusMails('fenetre@example.org')).toHaveLength(1), { timeout: 5000, interval: 100 });
    const mails = await statusMails('fenetre@example.org');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Nouveau statut : Passage CAL.');
    // Setting the same status again changes nothing: nothing to undo.
    expect((await change({ logementId: '013undo00001', newStatus: 'Passage CAL' })).json().data.annulation).toBeNull();
  });

  it('undoes within the window: the previous status and rank come back, the live streams hear it, the history forgets it, no e-mail ever leaves', async () => {
    // A window wide enough for a machine busy with other suites (the undo must come within it).
    fenetre(8000);
    await create(demande({ numeroUnique: '013undo00002', email: 'annule@example.org' }));
    const before = await stored('013undo00002');
    const live = await stream(`${await baseUrl()}/app/api/evenements`, manager.cookie);
    await live.until((t) => t.includes('retry:'));

    const res = await change({ logementId: '013undo00002', newStatus: 'Refusé', motif: 'Dossier incomplet.' });
    expect((await stored('013undo00002')).statutDeLaDemande).toBe('Refusé');
    await live.until((t) => t.includes('"statutDeLaDemande":"Refusé"'));

    const undo = await annuler(res.json().data.annulation.id);
    expect(undo.statusCode).toBe(200);
    expect(undo.json().data).toEqual({ numeroUnique: '013undo00002', statutDeLaDemande: 'En attente des documents', updatedAt: expect.any(String) });
    expect(await stored('013undo00002')).toEqual(before);
    // The creation's own event (de: null) may reach the stream late on PostgreSQL (LISTEN/NOTIFY): only changes count.
    const changes = (t: string) =>
      [...t.matchAll(/event: statut\ndata: (.*)\n/gu)]
        .map((m) => JSON.parse(m[1]!) as Record<string, unknown>)
        .filter((e) => e.numeroUnique === '013undo00002' && e.de !== null);
    const heard = await live.until((t) => changes(t).length >= 2);
    expect(changes(heard).map((e) => [e.de, e.statutDeLaDemande])).toEqual([
      ['En attente des documents', 'Refusé'],
      ['Refusé', 'En attente des documents'],
    ]);
    live.close();

    for (const headers of [{}, { 'x-access-key': keys['013undo00002']! }, { cookie: manager.cookie }] as Record<string, string>[]) {
      expect((await history('013undo00002', headers)).map((h) => h.vers)).toEqual(['En attente des documents']);
    }
    // The managers' trace stays in the database.
    const trace = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', before.id).where('toStatus', '=', 'Refusé').executeTakeFirstOrThrow();
    expect(trace).toMatchObject({ undoneBy: manager.uid, motif: 'Dossier incomplet.' });
    expect(trace.undoneAt).not.toBeNull();

    // Past the window, the outbox having had its turn: still no e-mail about the status.
    await sleep(Date.parse(res.json().data.annulation.jusqua) - Date.now() + 600);
    expect(await statusMails('annule@example.org')).toEqual([]);
    expect(await mailsTo('annule@example.org')).toHaveLength(1);
    // Undoing again answers the same, and changes nothing.
    expect((await annuler(res.json().data.annulation.id)).json().data.statutDeLaDemande).toBe('En attente des documents');
  });

  it('refuses to undo after the window (409 TROP_TARD, in French): the status stays and its e-mail leaves', async () => {
    fenetre(300);
    await create(demande({ numeroUnique: '013undo00003', email: 'tard@example.org' }));
    const res = await change({ logementId: '013undo00003', newStatus: 'Attribué' });
    await sleep(Date.parse(res.json().data.annulation.jusqua) - Date.now() + 20);
    const late = await annuler(res.json().data.annulation.id);
    expect(late.statusCode).toBe(409);
    expect(late.json().error).toEqual({ code: 'TROP_TARD', message: "Trop tard pour annuler : l’e-mail est déjà parti." });
    expect(await stored('013undo00003')).toMatchObject({ statutDeLaDemande: 'Attribué', statutRang: 60 });
    expect((await history('013undo00003')).map((h) => h.vers)).toEqual(['En attente des documents', 'Attribué']);
    // The e-mail leaves when the window closes, by the outbox worker: on a loaded machine, a moment after the 409.
    await vi.waitFor(async () => expect(await statusMails('tard@example.org')).toHaveLength(1), { timeout: 5000, interval: 100 });
  });

  it('gives each of two quick changes its own e-mail; the first can no longer be undone once the second is made, the second can', async () => {
    fenetre(8000);
    await create(demande({ numeroUnique: '013undo00004', email: 'deux@example.org' }));
    const first = (await change({ logementId: '013undo00004', newStatus: 'Demande envoyée' })).json().data.annulation;
    const second = (await change({ logementId: '013undo00004', newStatus: 'Refusé' })).json().data.annulation;
    const refused = await annuler(first.id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('TROP_TARD');
    expect((await stored('013undo00004')).statutDeLaDemande).toBe('Refusé');
    expect((await annuler(second.id)).json().data.statutDeLaDemande).toBe('Demande envoyée');
    expect(await stored('013undo00004')).toMatchObject({ statutDeLaDemande: 'Demande envoyée', statutRang: 30 });
    await sleep(Date.parse(second.jusqua) - Date.now() + 50);
    await vi.waitFor(async () => expect(await statusMails('deux@example.org')).toHaveLength(1), { timeout: 5000, interval: 100 });
    const mails = await statusMails('deux@example.org');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Nouveau statut : Demande envoyée.');
  });

  it('answers 404 for an unknown change, and 400 for a body without id', async () => {
    const unknown = await annuler('8d3f2a52-1c1e-4d0c-9f43-2f6a5e0b7c11');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toEqual({ code: 'NOT_FOUND', message: "Ce changement de statut n’existe pas." });
    expect((await annuler('')).statusCode).toBe(400);
    expect((await annuler(undefined)).json().error.fields.id).toBe('id est obligatoire.');
  });

  it('keeps the reason of a refusal: in its e-mail, and in the history for the key holder, the owner and managers, never for anyone else', async () => {
    fenetre(0);
    const ownerCreated = await create(demande({ numeroUnique: '013undo00005', email: 'motif@example.org' }), owner.cookie);
    expect(ownerCreated.numeroUnique).toBe('013undo00005');
    const motif = "Revenus au-dessus du plafond\nPLUS pour un T3 (avis d'imposition 2025).";
    const res = await change({ logementId: '013undo00005', newStatus: 'Refusé', motif: `  ${motif}  ` });
    expect(res.statusCode).toBe(200);
    const row = await stored('013undo00005');
    const event = await ctx.app.deps.db.selectFrom('statusEvents').select('motif').where('housingRequestId', '=', row.id).where('toStatus', '=', 'Refusé').executeTakeFirstOrThrow();
    expect(event.motif).toBe(motif);

    for (const headers of [{ 'x-access-key': keys['013undo00005']! }, { cookie: owner.cookie }, { cookie: manager.cookie }] as Record<string, string>[]) {
      expect((await history('013undo00005', headers)).at(-1)).toMatchObject({ vers: 'Refusé', motif });
    }
    for (const headers of [{}, { cookie: habitant.cookie }, { 'x-access-key': keys['013list00000']! }] as Record<string, string>[]) {
      const last = (await history('013undo00005', headers)).at(-1)!;
      expect(last.vers).toBe('Refusé');
      expect(last).not.toHaveProperty('motif');
    }
    const mails = await statusMails('motif@example.org');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain('Nouveau statut : Refusé.');
    expect(mails[0]).toContain(motif);
  });

  it('refuses a reason with any status but « Refusé » (400, in French), and a reason over 1000 characters', async () => {
    await create(demande({ numeroUnique: '013undo00006' }));
    const attribue = await change({ logementId: '013undo00006', newStatus: 'Attribué', motif: 'Bravo' });
    expect(attribue.statusCode).toBe(400);
    expect(attribue.json().error.code).toBe('VALIDATION');
    expect(attribue.json().error.fields).toEqual({ motif: 'Un motif ne peut accompagner que les statuts « Refusé » et « Radiée ».' });
    const long = await change({ logementId: '013undo00006', newStatus: 'Refusé', motif: 'x'.repeat(1001) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.fields.motif).toBe('Le motif ne doit pas dépasser 1000 caractères.');
    expect((await stored('013undo00006')).statutDeLaDemande).toBe('En attente des documents');
    // A blank reason is no reason.
    expect((await change({ logementId: '013undo00006', newStatus: 'Attribué', motif: '   ' })).statusCode).toBe(200);
  });
});

describe('managers read everything', () => {
  it('opens the full detail and every document, and zips them all', async () => {
    const body = await multipart([
      { field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf },
      { field: 'identity', name: 'carte.png', content: SAMPLES.png },
    ]);
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/upload-files/013list00004', headers: { ...body.headers, 'x-access-key': keys['013list00004']! }, payload: body.payload });
    const detail = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00004', headers: { cookie: manager.cookie } });
    expect(detail.json().data.acces).toBe('complet');
    const doc = detail.json().data.documents.livret[0];
    const file = await ctx.app.inject({ method: 'GET', url: doc.fileUrl, headers: { cookie: manager.cookie } });
    expect(file.rawPayload.equals(SAMPLES.pdf)).toBe(true);

    const zip = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00004/documents.zip', headers: { cookie: manager.cookie } });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.rawPayload.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    const text = zip.rawPayload.toString('latin1');
    // Entries named in French, after the documents' categories.
    expect(text).toContain('livret-famille-1-livret.pdf');
    expect(text).toContain('piece-identite-1-carte.png');
    expect(text).not.toContain('identity-1-');
    // The stored (uncompressed) entries hold the files' own bytes.
    expect(zip.rawPayload.includes(SAMPLES.pdf)).toBe(true);

    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00004/documents.zip', headers: { cookie: habitant.cookie } })).statusCode).toBe(403);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013list00004/documents.zip' })).statusCode).toBe(403);
  });

  it('stops a zip whose file is gone from the storage with an error, instead of leaving the download waiting; the server carries on', async () => {
    await create(demande({ numeroUnique: '013zipko0001', email: 'zip@example.org' }));
    const body = await multipart([
      { field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf },
      { field: 'identity', name: 'carte.png', content: SAMPLES.png },
    ]);
    expect((await ctx.app.inject({ method: 'POST', url: '/app/api/logement/upload-files/013zipko0001', headers: { ...body.headers, 'x-access-key': keys['013zipko0001']! }, payload: body.payload })).statusCode).toBe(201);
    const row = await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013zipko0001').executeTakeFirstOrThrow();
    const perdu = await ctx.app.deps.db.selectFrom('documents').select('storageKey').where('housingRequestId', '=', row.id).where('category', '=', 'identity').executeTakeFirstOrThrow();
    await ctx.app.deps.storage.remove(perdu.storageKey);

    const controle = new AbortController();
    const garde = setTimeout(() => controle.abort(), 10_000);
    const issue = await fetch(`${await baseUrl()}/app/api/logement/013zipko0001/documents.zip`, { headers: { cookie: manager.cookie }, signal: controle.signal })
      .then((res) => res.arrayBuffer())
      .then(
        () => 'complet',
        (error: unknown) => (controle.signal.aborted ? 'en attente' : `interrompu: ${String(error)}`),
      );
    clearTimeout(garde);
    // Not a whole zip that silently lacks a document, and not a download left hanging: cut, so the browser says so.
    expect(issue).toMatch(/^interrompu/u);
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013zipko0001', headers: { cookie: manager.cookie } })).statusCode).toBe(200);
  });
});

describe('CSV export', () => {
  it('opens in French Excel: BOM, semicolons, dd/mm/yyyy, escaping of commas, semicolons, quotes and newlines', async () => {
    await create(demande({ numeroUnique: '013csv000001', prenom: 'Anne, Marie', nom: 'D\'Arc; "la Pucelle"', motivations: 'ligne 1\nligne 2', numeroDeTelephone: '=1+1' }));
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/export.csv?q=${encodeURIComponent('pucelle')}`, headers: { cookie: manager.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename="demandes-logement-\d{4}-\d{2}-\d{2}\.csv"$/u);
    const bytes = res.rawPayload;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    const [header, ...rest] = text.split('\r\n');
    // The columns and their labels come from the request's field table (src/domain/demande.ts).
    expect(header).toBe(
      "Numéro unique;Date d’enregistrement;Statut;Prénom;Nom;Adresse e-mail;Téléphone;Adresse;Complément d’adresse;Code postal;Ville;Nombre d’enfants;Type de logement souhaité;Motivations;Commentaires",
    );
    const record = rest.join('\r\n');
    expect(record).toMatch(/^013csv000001;\d{2}\/\d{2}\/\d{4};En attente des documents;"Anne, Marie";"D'Arc; ""la Pucelle""";/u);
    expect(record).toContain('"ligne 1\nligne 2"');
    expect(record).toContain(";'=1+1;");
  });

  it('exports the whole filtered list, in the list order', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/export.csv?sort=nom&order=asc', headers: { cookie: manager.cookie } });
    const lines = res.rawPayload.subarray(3).toString('utf8').trim().split('\r\n');
    const listed = numeros(await list('sort=nom&order=asc&pageSize=100'));
    expect(listed.length).toBeGreaterThanOrEqual(12);
    expect(lines.slice(1).map((l) => l.split(';')[0])).toEqual(listed);
    expect(lines[1]).toContain(';Benali;');
    const filtered = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/export.csv?q=zola', headers: { cookie: manager.cookie } });
    expect(filtered.rawPayload.subarray(3).toString('utf8').trim().split('\r\n').slice(1).map((l) => l.split(';')[0])).toEqual(['013list00003']);
  });
});

describe('live updates (Server-Sent Events)', () => {
  it('sends a status change to a manager’s list stream and to the detail page stream of that request only', async () => {
    const base = await baseUrl();
    const read = stream;
    const all = await read(`${base}/app/api/evenements`, manager.cookie);
    const one = await read(`${base}/app/api/evenements?numero=013list00008`);
    const other = await read(`${base}/app/api/evenements?numero=013list00009`);
    await all.until((t) => t.includes('retry:'));
    await one.until((t) => t.includes('retry:'));
    await other.until((t) => t.includes('retry:'));
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00008', newStatus: 'En attente' } });
    const seenAll = await all.until((t) => t.includes('event: statut'));
    const seenOne = await one.until((t) => t.includes('event: statut'));
    for (const seen of [seenAll, seenOne]) {
      const data = JSON.parse(/data: (.*)\n/u.exec(seen)![1]!);
      expect(data).toMatchObject({ numeroUnique: '013list00008', statutDeLaDemande: 'En attente', de: 'En attente des documents' });
    }
    // The other request's stream hears its own change, and only that one: the change of 013list00008
    // came first, so had it leaked it would be read before this one.
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00009', newStatus: 'Passage CAL' } });
    const seenOther = await other.until((t) => t.includes('event: statut'));
    expect(seenOther).toContain('"numeroUnique":"013list00009"');
    expect(seenOther).not.toContain('013list00008');
    expect(seenOther.match(/event: statut/gu)).toHaveLength(1);
    all.close();
    one.close();
    other.close();
  });

  it('tells managers’ streams that who follows a request changed; the request’s stream opened by anyone does not hear of it', async () => {
    const base = await baseUrl();
    const all = await stream(`${base}/app/api/evenements`, manager.cookie);
    const page = await stream(`${base}/app/api/evenements?numero=013list00010`, manager.cookie);
    const public_ = await stream(`${base}/app/api/evenements?numero=013list00010`);
    for (const s of [all, page, public_]) await s.until((t) => t.includes('retry:'));
    const suivre = await ctx.app.inject({ method: 'PUT', url: '/app/api/logement/013list00010/suivi', headers: { cookie: manager.cookie }, payload: { suivre: true } });
    expect(suivre.statusCode, suivre.body).toBe(200);
    for (const s of [all, page]) {
      const vu = await s.until((t) => t.includes('"quoi":"suivi"'));
      expect(JSON.parse(/event: statut\ndata: (.*"quoi":"suivi".*)\n/u.exec(vu)![1]!)).toMatchObject({ numeroUnique: '013list00010', quoi: 'suivi' });
    }
    // Then a status change, which the public stream hears: had the follower's change leaked, it would come first.
    const { statutDeLaDemande } = await ctx.app.deps.db.selectFrom('housingRequests').select('statutDeLaDemande').where('numeroUnique', '=', '013list00010').executeTakeFirstOrThrow();
    const newStatus = statutDeLaDemande === 'Passage CAL' ? 'En attente' : 'Passage CAL';
    await ctx.app.inject({ method: 'POST', url: '/app/api/logement/update/status', headers: { cookie: manager.cookie }, payload: { logementId: '013list00010', newStatus } });
    const vuPublic = await public_.until((t) => t.includes('event: statut'));
    expect(vuPublic).not.toContain('suivi');
    expect(vuPublic.match(/event: statut/gu)).toHaveLength(1);
    // Following it again changes nothing: nothing is sent.
    await ctx.app.inject({ method: 'PUT', url: '/app/api/logement/013list00010/suivi', headers: { cookie: manager.cookie }, payload: { suivre: true } });
    for (const s of [all, page, public_]) s.close();
  });

  it('tells the managers’ list stream of a new request, with no previous status', async () => {
    const all = await stream(`${await baseUrl()}/app/api/evenements`, manager.cookie);
    await all.until((t) => t.includes('retry:'));
    await create(demande({ numeroUnique: '013direct0001' }));
    const { dateDEnregistrement } = await ctx.app.deps.db.selectFrom('housingRequests').select('dateDEnregistrement').where('numeroUnique', '=', '013direct0001').executeTakeFirstOrThrow();
    const seen = await all.until((t) => t.includes('013direct0001'));
    const data = JSON.parse(/event: statut\ndata: (.*013direct0001.*)\n/u.exec(seen)![1]!);
    expect(data).toEqual({ numeroUnique: '013direct0001', statutDeLaDemande: 'En attente des documents', de: null, date: dateDEnregistrement });
    all.close();
  });
});
