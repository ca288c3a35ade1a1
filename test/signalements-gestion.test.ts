import type { LightMyRequestResponse } from 'fastify';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { pointA } from '../src/domain/geometrie.js';
import {
  ETATS_SIGNALEMENT,
  formatNumeroSignalement,
  rangEtat,
  TOTAL_GESTION_SIGNALEMENTS_BORNE,
  type EtatSignalement,
  type EvenementSignalement,
} from '../src/domain/signalements.js';
import { SignalementsRepository } from '../src/server/features/signalements/repository.js';
import { createAccount, createTestApp, multipart, SAMPLES, SANS_LIMITES_SIGNALEMENTS, surUnPort, type TestContext } from './helpers.js';

/**
 * Technical reports, the town hall's side (issue 14 point 4): the managers' list (search folded, sorts, filters,
 * pages, a bounded count), a report seen in full, public updates and state changes with their e-mails, duplicates
 * merged, private notes, moderation and its log, every photo, the managers' stream, and the admins' categories —
 * with who may do what. A real database per file (SQLite, or PostgreSQL with DATABASE_URL).
 */
let ctx: TestContext;
let repository: SignalementsRepository;
let manager: Awaited<ReturnType<typeof createAccount>>;
let admin: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let proprietaire: Awaited<ReturnType<typeof createAccount>>;
/** Moves the app's clock (AppOptions.now). */
let decalageMs = 0;

const CENTRE = { lat: 43.529444, lon: 5.413889 };
const QUELQUE_PART = (n: number) => pointA(CENTRE, 150 + 100 * (n % 5), (n * 47) % 360);
const VOIRIE = 'voirie.gestion@services.example.org';

beforeAll(async () => {
  ctx = await createTestApp({}, { rateLimits: SANS_LIMITES_SIGNALEMENTS, now: () => new Date(Date.now() + decalageMs) });
  const { db, dbKind } = ctx.app.deps;
  await db.updateTable('signalementCategories').set({ emailService: VOIRIE }).where('code', '=', 'voirie').execute();
  repository = new SignalementsRepository(db, dbKind);
  manager = await createAccount(ctx, 'manager', { prenom: 'Mireille', nom: 'Gestion' });
  admin = await createAccount(ctx, 'admin');
  habitant = await createAccount(ctx, 'habitant');
  proprietaire = await createAccount(ctx, 'habitant');
});
afterAll(async () => {
  await ctx.close();
});

const api = (url: string) => `/app/api/technique${url}`;
const gestion = (url: string) => api(`/gestion/signalements${url}`);
let compteur = 0;

function saisie(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  compteur += 1;
  return {
    categorie: 'voirie',
    titre: `Nid-de-poule n° ${compteur}`,
    description: 'Un trou au milieu de la chaussée.',
    ...QUELQUE_PART(compteur),
    adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
    email: `gestion${compteur}@example.org`,
    nom: 'Camille Martin',
    nomMasque: false,
    ...overrides,
  };
}

async function signaler(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const body = saisie(overrides);
  const res = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: body, headers });
  expect(res.statusCode, res.body).toBe(201);
  const { numero, cle } = res.json().data as { numero: string; cle: string };
  return { numero, cle, email: String(body.email) };
}

const get = (url: string, headers: Record<string, string> = { cookie: manager.cookie }) => ctx.app.inject({ method: 'GET', url, headers });
const post = (url: string, payload: unknown, headers: Record<string, string> = { cookie: manager.cookie }) => ctx.app.inject({ method: 'POST', url, payload: payload as object, headers });
const ligne = async (numero: string) => (await repository.parNumero(numero))!;

interface Ligne {
  numero: string;
  titre: string;
  etat: EtatSignalement;
  categorie: { code: string; libelle: string };
  creeLe: string;
  misAJourLe: string;
  email: string;
  nom: string;
  contenuMasque: boolean;
  doublonDe: string | null;
}
interface Liste {
  data: Ligne[];
  total: number;
  totalExact: boolean;
  page: number;
  parPage: number;
}
async function liste(query: string): Promise<Liste> {
  const res = await get(gestion(`?${query}`));
  expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
  return res.json() as Liste;
}
const numerosDe = async (query: string) => (await liste(query)).data.map((d) => d.numero);

/** The e-mails written for an address (DATA_DIR/mail, after the outbox delivered them), soft line breaks and accents decoded. */
async function mailsTo(email: string): Promise<string[]> {
  await ctx.app.deps.mailer.idle();
  const dir = path.join(ctx.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  const decode = (raw: string) =>
    Buffer.from(raw.replace(/=\r?\n/gu, '').replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => decode(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((m) => m.includes(`To: ${email}`));
}

async function envoyerPhoto(numero: string, cle: string) {
  const form = await multipart([{ field: 'photo', name: 'trou.png', content: SAMPLES.png, type: 'image/png' }]);
  const res = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; url: string };
}

const mettreAJour = (numero: string, body: Record<string, unknown>) => post(gestion(`/${numero}/mises-a-jour`), body);

describe('who may do what', () => {
  it('opens the managers’ routes to managers and admins, the categories’ administration to admins only, with French refusals', async () => {
    const { numero, cle } = await signaler({}, { cookie: proprietaire.cookie });
    const photo = await envoyerPhoto(numero, cle);
    const categorie = (await post(api('/categories/admin'), { libelle: `Matrice ${randomUUID().slice(0, 8)}` }, { cookie: admin.cookie })).json().data.code as string;
    const qui: [string, Record<string, string>][] = [
      ['anonymous', {}],
      ['resident', { cookie: habitant.cookie }],
      ['reporter (key)', { 'x-access-key': cle }],
      ['reporter (account)', { cookie: proprietaire.cookie }],
      ['manager', { cookie: manager.cookie }],
      ['admin', { cookie: admin.cookie }],
    ];
    const routes: [string, string, string, unknown?][] = [
      ['liste', 'GET', gestion('')],
      ['vue', 'GET', gestion(`/${numero}`)],
      ['miseAJour', 'POST', gestion(`/${numero}/mises-a-jour`), { texte: 'Un message de la mairie.' }],
      ['note', 'POST', gestion(`/${numero}/notes`), { texte: 'Note privée.' }],
      ['moderation', 'POST', gestion(`/${numero}/moderation`), { cible: 'titre', masquer: false }],
      ['photo', 'GET', gestion(`/${numero}/photos/${photo.id}`)],
      ['categories', 'GET', api('/categories/admin')],
      ['nouvelleCategorie', 'POST', api('/categories/admin'), { libelle: 'Sera refusée' }],
      ['modifierCategorie', 'PUT', api(`/categories/admin/${categorie}`), { description: 'Décrite.' }],
      ['supprimerCategorie', 'DELETE', api('/categories/admin/pas-de-categorie')],
    ];
    const matrice: Record<string, Record<string, number>> = {};
    const messages = new Set<string>();
    for (const [label, headers] of qui) {
      matrice[label] = {};
      for (const [nom, method, url, payload] of routes) {
        // Creating a category as an admin would succeed: a name of its own each time.
        const corps = nom === 'nouvelleCategorie' && label === 'admin' ? { libelle: `Admise ${randomUUID().slice(0, 8)}` } : payload;
        const res = await ctx.app.inject({ method: method as 'GET', url, headers, ...(corps === undefined ? {} : { payload: corps as object }) });
        matrice[label]![nom] = res.statusCode;
        if (res.statusCode >= 400 && res.statusCode !== 404) messages.add(`${res.statusCode} ${res.json().error.message}`);
        if (res.statusCode < 300 && method === 'GET' && nom !== 'photo') expect(res.headers['cache-control'], `${label} ${nom}`).toBe('private, no-store');
      }
    }
    const gestionnaire = (code: number) => ({ liste: code, vue: code, miseAJour: code, note: code, moderation: code, photo: code });
    const administration = (code: number, supprimer = code) => ({ categories: code, nouvelleCategorie: code, modifierCategorie: code, supprimerCategorie: supprimer });
    expect(matrice).toEqual({
      anonymous: { ...gestionnaire(401), ...administration(401) },
      resident: { ...gestionnaire(403), ...administration(403) },
      'reporter (key)': { ...gestionnaire(401), ...administration(401) },
      'reporter (account)': { ...gestionnaire(403), ...administration(403) },
      manager: { ...gestionnaire(200), note: 201, ...administration(403) },
      // The last one names a category that does not exist.
      admin: { ...gestionnaire(200), note: 201, categories: 200, nouvelleCategorie: 201, modifierCategorie: 200, supprimerCategorie: 404 },
    });
    expect([...messages].sort()).toEqual([
      '401 Connectez-vous avec un compte de gestionnaire.',
      '401 Connectez-vous pour continuer.',
      '403 Accès réservé aux administrateurs.',
      '403 Accès réservé aux gestionnaires de la mairie annexe.',
    ]);
  });

  it('refuses the managers’ stream to anyone but managers and admins', async () => {
    for (const [headers, code] of [
      [{}, 401],
      [{ cookie: habitant.cookie }, 403],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url: api('/gestion/evenements'), headers });
      expect(res.statusCode).toBe(code);
    }
  });
});

describe('the managers’ list: search', () => {
  it('folds accents, case and apostrophes, and searches the number, title, description, address, e-mail and name', async () => {
    const cote = await signaler({ titre: 'Trottoir abîmé montée de la Côte', adresse: 'Allée d’Ornano, 13090 Aix-en-Provence', nom: 'Aïcha N’Diaye', email: 'aicha.recherche@example.org' });
    const autre = await signaler({ titre: 'Lampadaire éteint', description: 'Plus de lumière depuis lundi, côté parking.', adresse: "Rue d'Ornano" });
    const cherche = async (q: string) => numerosDe(`q=${encodeURIComponent(q)}&parPage=200`);
    expect(await cherche('cote')).toEqual(expect.arrayContaining([cote.numero, autre.numero]));
    expect(await cherche('CÔTE montée')).toEqual([cote.numero]);
    for (const q of ['d’ornano', "d'ornano", 'D‘ORNANO', 'dornano']) expect(await cherche(q), q).toEqual(expect.arrayContaining([cote.numero, autre.numero]));
    expect(await cherche('d’ornano lampadaire')).toEqual([autre.numero]);
    expect(await cherche('ndiaye')).toEqual([cote.numero]);
    expect(await cherche('n’diaye aïcha')).toEqual([cote.numero]);
    expect(await cherche('aicha.recherche@')).toEqual([cote.numero]);
    expect(await cherche(cote.numero)).toEqual([cote.numero]);
    // Words shorter than three letters go another way (no trigram): still folded, still all required.
    expect(await cherche('ô lampadaire')).toEqual([autre.numero]);
    const rien = await liste('q=introuvablezzz');
    expect(rien).toMatchObject({ data: [], total: 0, totalExact: true });
    // What the full-text engine would read as its own syntax is searched as text.
    for (const q of ['"lampadaire', 'lampadaire" OR "x', 'NEAR(a b)', '***', '%_\\', 'a AND', '(côte)', "''' ’’’"]) {
      const res = await get(gestion(`?q=${encodeURIComponent(q)}`));
      expect(res.statusCode, q).toBe(200);
    }
    expect(await cherche('(côte)')).toEqual([]);
    expect(await cherche('%')).toEqual([]);
    // Managers see the reporter's contact, even a hidden name.
    const masque = await signaler({ titre: 'Banc cassé contactable', nom: 'Nom Masqué', nomMasque: true });
    const [row] = (await liste(`q=${encodeURIComponent('contactable')}`)).data;
    expect(row).toMatchObject({ numero: masque.numero, email: masque.email, nom: 'Nom Masqué', titre: 'Banc cassé contactable', contenuMasque: false, doublonDe: null });
  });

  it('finds words of two letters anywhere in a word, folded, all required; at the end of a text, none when no text has them (by an index: SQLite’s trigrams and texts’ ends, PostgreSQL’s pairs)', async () => {
    const kz = await signaler({ titre: 'Borne KZ-Ökw renversée', adresse: 'Allée d’Ornano, 13090 Aix-en-Provence' });
    const fin = await signaler({ titre: 'Poubelle débordante', description: 'Au coin de la rue, près du kiosque qx' });
    expect(await numerosDe('q=kz&parPage=200')).toEqual([kz.numero]);
    expect(await numerosDe(`q=${encodeURIComponent('ÖK')}&parPage=200`)).toEqual([kz.numero]);
    expect(await numerosDe('q=qx&parPage=200')).toEqual([fin.numero]);
    expect(await numerosDe(`q=${encodeURIComponent('qx ki')}&parPage=200`)).toEqual([fin.numero]);
    expect(await numerosDe(`q=${encodeURIComponent('qx kz')}&parPage=200`)).toEqual([]);
    expect(await liste('q=zq')).toMatchObject({ data: [], total: 0, totalExact: true });
    // At the very end of a text (SQLite: in no trigram, found by migration 0030's index of the texts' ends)…
    const bout = await signaler({ titre: 'Banc descellé', adresse: 'Pagnol', nom: 'Camillevw' });
    expect(await numerosDe('q=vw&parPage=200')).toEqual([bout.numero]);
    expect(await numerosDe(`q=${encodeURIComponent('vw banc')}&parPage=200`)).toEqual([bout.numero]);
    // …and both at the end of one text and inside another.
    const dedans = await signaler({ titre: 'Borne vwa tordue' });
    expect((await numerosDe('q=vw&parPage=200')).sort()).toEqual([bout.numero, dedans.numero].sort());
    expect(await numerosDe(`q=${encodeURIComponent('vw tordue')}&parPage=200`)).toEqual([dedans.numero]);
  });

  it('finds one letter as LIKE on every text would, a rare one by the index of characters on PostgreSQL, a letter alone between spaces included', async () => {
    // « ø », in these two reports only: rare (PostgreSQL reads it from the index); « w » and « k » are in others too.
    const seul = await signaler({ titre: 'Borne ø w renversée' });
    const dedans = await signaler({ titre: 'Kiwi écrasé chez Søren' });
    for (let i = 0; i < 10; i += 1) await signaler({ titre: `Nid de poule numéro ${i}` });
    // PostgreSQL: the statistics autovacuum would keep, from which a rare letter is searched by its index (migration 0037).
    if (ctx.app.deps.dbKind === 'postgres') await sql`analyze signalements`.execute(ctx.app.deps.db);
    const lisant = async (lettre: string) =>
      (await ctx.app.deps.db.selectFrom('signalements').select('numero').where(sql<boolean>`recherche like ${`%${lettre}%`}`).execute()).map((r) => r.numero).sort();
    expect(await lisant('ø')).toEqual([seul.numero, dedans.numero].sort());
    for (const q of ['ø', 'w', 'k', 'a', 'ø w', 'ø kiwi', 'w k']) {
      const attendu = (await Promise.all(q.split(' ').map(lisant))).reduce((a, b) => a.filter((n) => b.includes(n)));
      expect((await numerosDe(`q=${encodeURIComponent(q)}&parPage=200`)).sort(), q).toEqual(attendu);
    }
  });

  it('finds the new report, and a report by its new text after an erasure written elsewhere (no stale address left in the search)', async () => {
    const { numero } = await signaler({ email: 'efface.moi@example.org', nom: 'Gaston Effacé', titre: 'DÉPÔT sauvage effacetout', adresse: 'Allée d’Ornano' });
    expect(await numerosDe('q=efface.moi')).toEqual([numero]);
    expect(await numerosDe('q=gaston')).toEqual([numero]);
    // An erasure that writes the table without the repository (the reports' retention does): the database's guard
    // rewrites the search text from the new values, folded in SQL, so the erased address and name are no longer found
    // while the rest still is, accents and apostrophes aside.
    await ctx.app.deps.db.updateTable('signalements').set({ email: '', nom: '' }).where('numero', '=', numero).execute();
    expect(await numerosDe('q=efface.moi')).toEqual([]);
    expect(await numerosDe('q=gaston')).toEqual([]);
    expect(await numerosDe(`q=${encodeURIComponent("depot effacetout d'ornano")}`)).toEqual([numero]);
    expect((await ligne(numero)).recherche).toBe(`${numero} depot sauvage effacetout un trou au milieu de la chaussee. allee d'ornano  `);
  });
});

describe('the managers’ list: sorts, filters and pages', () => {
  /** Six reports of one search word, a minute apart, in two categories and several states. */
  const mot = `tri${randomUUID().slice(0, 6)}`;
  const faits: { numero: string; cle: string; email: string }[] = [];

  beforeAll(async () => {
    const plan: [string, EtatSignalement][] = [
      ['voirie', 'nouveau'],
      ['eclairage', 'resolu'],
      ['voirie', 'en_cours'],
      ['proprete', 'ferme'],
      ['eclairage', 'confirme'],
      ['voirie', 'doublon'],
    ];
    const depart = -3 * 86_400_000;
    for (const [i, [categorie]] of plan.entries()) {
      decalageMs = depart + i * 60_000;
      faits.push(await signaler({ categorie, titre: `Problème ${mot} ${i}` }));
    }
    // Updated in another order than made: the last one made first, then the others.
    for (const [i, [, etat]] of [...plan.entries()].reverse()) {
      decalageMs = depart + 3600_000 + (plan.length - i) * 60_000;
      if (etat !== 'nouveau') await mettreAJour(faits[i]!.numero, etat === 'doublon' ? { etat, doublonDe: faits[0]!.numero } : { etat });
    }
    decalageMs = 0;
  });

  const cles = async (): Promise<Ligne[]> => (await liste(`q=${mot}&parPage=200`)).data;

  it('sorts by number, date, last change, state and category, both ways, ties broken the same way', async () => {
    const toutes = await cles();
    expect(toutes).toHaveLength(6);
    const par = (cle: (l: Ligne) => string | number) => [...toutes].sort((a, b) => (cle(a) < cle(b) ? -1 : cle(a) > cle(b) ? 1 : a.creeLe < b.creeLe ? -1 : a.creeLe > b.creeLe ? 1 : 0)).map((l) => l.numero);
    const attendus: Record<string, string[]> = {
      numero: par((l) => l.numero),
      creeLe: par((l) => l.creeLe),
      misAJourLe: par((l) => l.misAJourLe),
      etat: par((l) => rangEtat(l.etat)),
      categorie: par((l) => l.categorie.code),
    };
    // The test's data make each order distinct from creation's.
    expect(attendus.misAJourLe).not.toEqual(attendus.creeLe);
    expect(attendus.etat).not.toEqual(attendus.creeLe);
    expect(attendus.etat!.map((n) => toutes.find((l) => l.numero === n)!.etat)).toEqual(['nouveau', 'confirme', 'en_cours', 'resolu', 'ferme', 'doublon']);
    for (const [tri, ordre] of Object.entries(attendus)) {
      expect(await numerosDe(`q=${mot}&tri=${tri}&ordre=asc`), `${tri} asc`).toEqual(ordre);
      expect(await numerosDe(`q=${mot}&tri=${tri}&ordre=desc`), `${tri} desc`).toEqual([...ordre].reverse());
    }
    // Newest first by default; the original of a duplicate named.
    expect(await numerosDe(`q=${mot}`)).toEqual([...attendus.creeLe!].reverse());
    expect(toutes.find((l) => l.etat === 'doublon')!.doublonDe).toBe(faits[0]!.numero);
  });

  it('filters by state (open, closed, one), category, hidden content and period', async () => {
    const etats = async (query: string) => (await liste(`q=${mot}&${query}&parPage=200`)).data.map((l) => l.etat).sort();
    expect(await etats('etat=ouverts')).toEqual(['confirme', 'en_cours', 'nouveau']);
    expect(await etats('etat=fermes')).toEqual(['doublon', 'ferme', 'resolu']);
    expect(await etats('etat=resolu')).toEqual(['resolu']);
    expect(await etats('etat=ouverts&tri=etat')).toEqual(['confirme', 'en_cours', 'nouveau']);
    expect(await etats('etat=fermes&tri=etat&ordre=asc')).toEqual(['doublon', 'ferme', 'resolu']);
    expect(await etats('categorie=eclairage')).toEqual(['confirme', 'resolu']);
    expect(await etats('categorie=voirie&etat=ouverts')).toEqual(['en_cours', 'nouveau']);
    expect(await numerosDe(`q=${mot}&masque=oui`)).toEqual([]);
    await post(gestion(`/${faits[2]!.numero}/moderation`), { cible: 'description', masquer: true });
    expect(await numerosDe(`q=${mot}&masque=oui`)).toEqual([faits[2]!.numero]);
    expect(await numerosDe(`q=${mot}&masque=non&parPage=200`)).toHaveLength(5);
    // Made three days ago (Paris days): in a period that holds that day, not in one that ends the day before.
    const jour = (decalage: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris' }).format(new Date(Date.now() + decalage));
    const jourDe = async (n: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris' }).format(new Date((await ligne(faits[n]!.numero)).creeLe));
    expect(await numerosDe(`q=${mot}&du=${await jourDe(0)}&au=${await jourDe(5)}&parPage=200`)).toHaveLength(6);
    expect(await numerosDe(`q=${mot}&du=${jour(-10 * 86_400_000)}&au=${jour(-5 * 86_400_000)}`)).toEqual([]);
    expect(await numerosDe(`q=${mot}&du=${jour(86_400_000)}`)).toEqual([]);
    const refus = await get(gestion(`?du=${jour(0)}&au=${jour(-86_400_000)}`));
    expect(refus.statusCode).toBe(400);
    expect(refus.json().error.fields).toEqual({ au: 'La date de fin précède la date de début.' });
  });

  it('pages an exactly counted list (deep pages read from the other end) and refuses bad queries in French', async () => {
    for (const tri of ['numero', 'creeLe', 'misAJourLe', 'etat', 'categorie']) {
      const entier = await numerosDe(`q=${mot}&tri=${tri}&ordre=asc`);
      const pages: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const p = await liste(`q=${mot}&tri=${tri}&ordre=asc&parPage=2&page=${page}`);
        expect(p).toMatchObject({ total: 6, totalExact: true, page, parPage: 2 });
        pages.push(...p.data.map((d) => d.numero));
      }
      expect(pages, tri).toEqual(entier);
      expect((await liste(`q=${mot}&tri=${tri}&parPage=2&page=4`)).data).toEqual([]);
    }
    // The whole list: an exact total, its last page read from the other end, joining the pages before it.
    const tout = await liste('parPage=200&tri=numero&ordre=asc');
    expect(tout.totalExact).toBe(true);
    const n = tout.total;
    expect(n).toBeGreaterThan(6);
    expect(n).toBe(tout.data.length);
    const derniere = await liste(`tri=numero&ordre=asc&parPage=5&page=${Math.ceil(n / 5)}`);
    expect(derniere.data.map((d) => d.numero)).toEqual(tout.data.slice(5 * (Math.ceil(n / 5) - 1)).map((d) => d.numero));
    for (const [query, champ] of [
      ['tri=motdepasse', 'tri'],
      ['ordre=haut', 'ordre'],
      ['etat=perdu', 'etat'],
      ['masque=peut-etre', 'masque'],
      ['du=31/03/2026', 'du'],
      ['au=2026-02-30', 'au'],
      ['parPage=201', 'parPage'],
      ['page=0', 'page'],
    ] as const) {
      const res = await get(gestion(`?${query}`));
      expect(res.statusCode, query).toBe(400);
      expect(Object.keys(res.json().error.fields), query).toEqual([champ]);
    }
  });
});

describe('the managers’ list past its bound', () => {
  const mot = `borne${randomUUID().slice(0, 6)}`;
  const nombre = 3 * TOTAL_GESTION_SIGNALEMENTS_BORNE;

  beforeAll(async () => {
    // Written through the repository (the same search text and rank as a report made through the API), at once.
    const annee = 1999;
    const base = Date.parse('2025-01-01T00:00:00Z');
    await repository.transaction(async (trx) => {
      for (let i = 0; i < nombre; i += 1) {
        const etat = ETATS_SIGNALEMENT[i % ETATS_SIGNALEMENT.length]!;
        const le = new Date(base + (i % 97) * 3_600_000 + i).toISOString();
        await repository.inserer(
          {
            id: randomUUID(),
            numero: formatNumeroSignalement(annee, i + 1),
            categorie: i % 3 === 0 ? 'eclairage' : 'voirie',
            // One in ten does not hold the word: a search that the walk forgot would list them.
            titre: i % 10 === 0 ? 'Borne sans le mot' : `Borne ${mot}`,
            description: '',
            lat: CENTRE.lat,
            lon: CENTRE.lon,
            adresse: '',
            email: `borne${i}@example.org`,
            nom: '',
            nomMasque: 0,
            etat,
            ouvert: ['nouveau', 'confirme', 'planifie', 'en_cours'].includes(etat) ? 1 : 0,
            doublonDe: null,
            accessKeyHash: '0'.repeat(64),
            ownerUserId: null,
            creeLe: le,
            misAJourLe: new Date(base + ((i * 7919) % nombre) * 1000).toISOString(),
            titreMasque: 0,
            descriptionMasquee: 0,
          },
          trx,
        );
      }
    });
  });

  /** Every page of 200 until one comes short (past the bound the last page is not known in advance). */
  async function tousLes(query: string): Promise<string[]> {
    const lus: string[] = [];
    for (let page = 1; ; page += 1) {
      const p = await liste(`${query}&parPage=200&page=${page}`);
      expect(p).toMatchObject({ total: TOTAL_GESTION_SIGNALEMENTS_BORNE, totalExact: false });
      lus.push(...p.data.map((d) => d.numero));
      if (p.data.length < 200) return lus;
    }
  }

  it('counts to 1,000, then walks each sort’s index: the pages still join into the whole order', async () => {
    const premiere = await liste(`q=${mot}&parPage=200`);
    expect(premiere).toMatchObject({ total: TOTAL_GESTION_SIGNALEMENTS_BORNE, totalExact: false });
    // Every match, in the database's own order, to compare with.
    const lignes = await ctx.app.deps.db.selectFrom('signalements').select(['numero', 'creeLe', 'misAJourLe', 'etat', 'categorie', 'id']).where('titre', '=', `Borne ${mot}`).execute();
    expect(lignes).toHaveLength(nombre - nombre / 10);
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    const ordres: Record<string, (a: (typeof lignes)[number], b: (typeof lignes)[number]) => number> = {
      numero: (a, b) => cmp(a.numero, b.numero),
      creeLe: (a, b) => cmp(a.creeLe, b.creeLe) || cmp(a.id, b.id),
      misAJourLe: (a, b) => cmp(a.misAJourLe, b.misAJourLe) || cmp(a.id, b.id),
      etat: (a, b) => cmp(rangEtat(a.etat as EtatSignalement), rangEtat(b.etat as EtatSignalement)) || cmp(a.creeLe, b.creeLe) || cmp(a.id, b.id),
      categorie: (a, b) => cmp(a.categorie, b.categorie) || cmp(a.creeLe, b.creeLe) || cmp(a.id, b.id),
    };
    for (const [tri, ordre] of Object.entries(ordres)) {
      for (const sens of ['asc', 'desc'] as const) {
        const attendu = [...lignes].sort((a, b) => (sens === 'asc' ? ordre(a, b) : -ordre(a, b))).map((l) => l.numero);
        expect(await tousLes(`q=${mot}&tri=${tri}&ordre=${sens}`), `${tri} ${sens}`).toEqual(attendu);
      }
    }
  });

  it('walks with filters too: one category sorted by last change, open reports sorted by state, closed ones by category', async () => {
    const lignes = await ctx.app.deps.db.selectFrom('signalements').select(['numero', 'misAJourLe', 'creeLe', 'id', 'ouvert', 'categorie', 'etat']).where('titre', '=', `Borne ${mot}`).execute();
    const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);
    const voirie = lignes.filter((l) => l.categorie === 'voirie').sort((a, b) => -(cmp(a.misAJourLe, b.misAJourLe) || cmp(a.id, b.id)));
    expect(voirie.length).toBeGreaterThan(TOTAL_GESTION_SIGNALEMENTS_BORNE);
    expect(await tousLes(`q=${mot}&categorie=voirie&tri=misAJourLe`)).toEqual(voirie.map((l) => l.numero));
    const rang = (l: (typeof lignes)[number]) => rangEtat(l.etat as EtatSignalement);
    const ouverts = lignes.filter((l) => l.ouvert === 1).sort((a, b) => cmp(rang(a), rang(b)) || cmp(a.creeLe, b.creeLe) || cmp(a.id, b.id));
    expect(ouverts.length).toBeGreaterThan(TOTAL_GESTION_SIGNALEMENTS_BORNE);
    expect(await tousLes(`q=${mot}&etat=ouverts&tri=etat&ordre=asc`)).toEqual(ouverts.map((l) => l.numero));
    const fermes = lignes.filter((l) => l.ouvert === 0).sort((a, b) => -(cmp(a.categorie, b.categorie) || cmp(a.creeLe, b.creeLe) || cmp(a.id, b.id)));
    expect(fermes.length).toBeGreaterThan(TOTAL_GESTION_SIGNALEMENTS_BORNE);
    expect(await tousLes(`q=${mot}&etat=fermes&tri=categorie`)).toEqual(fermes.map((l) => l.numero));
    // A one-letter word over the whole list: past the bound, the first page full.
    expect(await liste('q=e&parPage=50')).toMatchObject({ total: TOTAL_GESTION_SIGNALEMENTS_BORNE, totalExact: false, data: expect.any(Array) });
    expect((await liste('q=e&parPage=50')).data).toHaveLength(50);
  });
});

describe('public updates and states', () => {
  it('changes the state with a public text, e-mails each follower through the outbox, records who did it, and is heard live', async () => {
    // A category without a service address: only the followers are e-mailed.
    const { numero, email } = await signaler({ categorie: 'proprete' });
    const voisin = `voisin.${randomUUID().slice(0, 6)}@example.org`;
    expect((await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/suivre`), payload: { email: voisin } })).statusCode).toBe(200);
    const entendus: EvenementSignalement[] = [];
    const stop = ctx.app.deps.bus.subscribeSignalements((e) => entendus.push(e));
    try {
      const res = await mettreAJour(numero, { etat: 'planifie', texte: 'Intervention prévue mardi matin.' });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      expect(data).toMatchObject({ numero, etat: 'planifie', email, suiveurs: 2 });
      expect(data.miseAJours.at(-1)).toMatchObject({ etat: 'planifie', texte: 'Intervention prévue mardi matin.', par: 'mairie', auteur: 'Mireille Gestion', masquee: false });
      const rows = await ctx.app.deps.db.selectFrom('mailOutbox').select(['recipient', 'subject']).where('subject', 'like', `%${numero}%Planifié%`).execute();
      expect(rows.map((r) => r.recipient).sort()).toEqual([email, voisin].sort());
      for (const a of [email, voisin]) {
        const recu = (await mailsTo(a)).at(-1)!;
        expect(recu).toContain('Nouvel état : Planifié.');
        expect(recu).toContain('Intervention prévue mardi matin.');
      }
      // A text alone keeps the state; the same state without text changes nothing and tells no one.
      const texte = await mettreAJour(numero, { texte: 'Le matériel est commandé.' });
      expect(texte.json().data).toMatchObject({ etat: 'planifie' });
      expect((await mailsTo(voisin)).at(-1)).toContain('Le matériel est commandé.');
      const avant = (await mailsTo(voisin)).length;
      expect((await mettreAJour(numero, { etat: 'planifie' })).statusCode).toBe(200);
      expect(await mailsTo(voisin)).toHaveLength(avant);
      // PostgreSQL's NOTIFY reaches the bus a moment after the commit: the report's own creation (« nouveau », from
      // nothing), published before the subscription, may still be heard after it. The changes are the others.
      const changements = () => entendus.filter((e) => e.numero === numero && e.de !== null);
      await vi.waitFor(() => expect(changements()).toHaveLength(2), { timeout: 5000 });
      await new Promise((r) => setTimeout(r, 100));
      expect(changements().map((e) => [e.etat, e.de, e.quoi ?? null])).toEqual([
        ['planifie', 'nouveau', null],
        ['planifie', 'planifie', 'mise-a-jour'],
      ]);
    } finally {
      stop();
    }
    // The public page shows the update, never who wrote it.
    const publique = await get(api(`/signalements/${numero}`), {});
    expect(publique.json().data.miseAJours.at(-1)).toEqual({ le: expect.any(String), etat: null, texte: 'Le matériel est commandé.', par: 'mairie' });
    expect(publique.body).not.toContain('Mireille');
  });

  it('e-mails the category’s service when the town hall confirms a report or reopens a closed one, not for its own steps', async () => {
    const { numero } = await signaler();
    const auService = async () => (await mailsTo(VOIRIE)).filter((m) => m.includes(numero)).length;
    const creation = await auService();
    expect(creation).toBe(1);
    await mettreAJour(numero, { etat: 'confirme', texte: 'Vu sur place.' });
    const confirmation = (await mailsTo(VOIRIE)).filter((m) => m.includes(numero)).at(-1)!;
    expect(confirmation).toContain(`La mairie annexe a examiné le signalement n° ${numero} (Voirie), que votre service a reçu à sa création, et le confirme. Son état : Confirmé.`);
    expect(confirmation).toContain('Vu sur place.');
    await mettreAJour(numero, { etat: 'planifie' });
    await mettreAJour(numero, { etat: 'resolu' });
    expect(await auService()).toBe(2);
    await mettreAJour(numero, { etat: 'en_cours', texte: 'Le problème est revenu.' });
    expect(await auService()).toBe(3);
    expect((await mailsTo(VOIRIE)).filter((m) => m.includes(numero)).at(-1)).toContain(`La mairie annexe a rouvert le signalement n° ${numero} (Voirie), qui était «\u00a0Résolu\u00a0». Son état : En cours.`);
    // « Toujours pas résolu » from the reporter still reaches the service.
    const autre = await signaler();
    await mettreAJour(autre.numero, { etat: 'resolu' });
    const avant = (await mailsTo(VOIRIE)).length;
    expect((await post(api(`/signalements/${autre.numero}/toujours-pas-resolu`), { texte: 'Toujours là.' }, { 'x-access-key': autre.cle })).statusCode).toBe(200);
    expect((await mailsTo(VOIRIE)).slice(avant).filter((m) => m.includes('toujours pas résolu'))).toHaveLength(1);
  });

  it('refuses an update with neither state nor text, and a duplicate without its original, in French (400)', async () => {
    const { numero } = await signaler();
    for (const [body, champ, message] of [
      [{}, '_', 'Indiquez un nouvel état, un message public, ou les deux.'],
      [{ texte: '   ' }, '_', 'Indiquez un nouvel état, un message public, ou les deux.'],
      [{ etat: 'doublon' }, 'doublonDe', 'Indiquez le numéro du signalement d’origine.'],
      [{ etat: 'resolu', doublonDe: numero }, 'doublonDe', 'Le numéro d’origine ne sert que pour l’état « Doublon ».'],
      [{ etat: 'perdu' }, 'etat', expect.stringContaining('L’état doit être l’un de')],
    ] as const) {
      const res = await mettreAJour(numero, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.fields, JSON.stringify(body)).toEqual({ [champ]: message });
    }
    expect((await ligne(numero)).etat).toBe('nouveau');
    expect((await mettreAJour('2020-99999', { texte: 'x' })).statusCode).toBe(404);
  });
});

describe('duplicates', () => {
  it('merges a duplicate into its original: followers moved and told, both linked', async () => {
    const original = await signaler();
    const doublon = await signaler();
    const voisin = `voisin.doublon.${randomUUID().slice(0, 6)}@example.org`;
    await ctx.app.inject({ method: 'POST', url: api(`/signalements/${doublon.numero}/suivre`), payload: { email: voisin } });
    const res = await mettreAJour(doublon.numero, { etat: 'doublon', doublonDe: original.numero, texte: 'Déjà signalé.' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ etat: 'doublon', doublonDe: original.numero, suiveurs: 0 });
    const vueOriginal = (await get(gestion(`/${original.numero}`))).json().data;
    expect(vueOriginal).toMatchObject({ doublons: [doublon.numero], suiveurs: 3 });
    expect((await repository.suiveurs((await ligne(original.numero)).id)).map((s) => s.email).sort()).toEqual([original.email, doublon.email, voisin].sort());
    expect((await mailsTo(voisin)).at(-1)).toContain(`http://quartier.test/technique/${original.numero}`);
    expect((await get(api(`/signalements/${doublon.numero}`), {})).json().data).toMatchObject({ etat: 'doublon', doublonDe: original.numero });
  });

  it('follows the original when one asks to follow a duplicate (its news are the original’s)', async () => {
    const original = await signaler();
    const doublon = await signaler();
    expect((await mettreAJour(doublon.numero, { etat: 'doublon', doublonDe: original.numero })).statusCode).toBe(200);
    const voisin = `voisin.tard.${randomUUID().slice(0, 6)}@example.org`;
    expect((await ctx.app.inject({ method: 'POST', url: api(`/signalements/${doublon.numero}/suivre`), payload: { email: voisin } })).statusCode).toBe(200);
    expect((await repository.suiveurs((await ligne(original.numero)).id)).map((s) => s.email)).toContain(voisin);
    expect((await repository.suiveurs((await ligne(doublon.numero)).id)).map((s) => s.email)).not.toContain(voisin);
    expect((await mailsTo(voisin)).at(-1)).toContain(`http://quartier.test/technique/${original.numero}`);
    // The original's news reach this follower.
    expect((await mettreAJour(original.numero, { etat: 'resolu', texte: 'Réparé.' })).statusCode).toBe(200);
    await vi.waitFor(async () => expect((await mailsTo(voisin)).some((m) => m.includes('Réparé.'))).toBe(true));
  });

  it('refuses itself, an unknown number, a duplicate as original, and a loop, naming what to do', async () => {
    const a = await signaler();
    const b = await signaler();
    const c = await signaler();
    expect((await mettreAJour(b.numero, { etat: 'doublon', doublonDe: a.numero })).statusCode).toBe(200);
    const refus = async (numero: string, doublonDe: string) => {
      const res = await mettreAJour(numero, { etat: 'doublon', doublonDe });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION');
      return res.json().error.fields.doublonDe as string;
    };
    expect(await refus(c.numero, c.numero)).toBe('Un signalement ne peut pas être le doublon de lui-même : indiquez le numéro d’un autre signalement.');
    expect(await refus(c.numero, '2020-99999')).toBe('Il n’existe pas de signalement n° 2020-99999 : vérifiez le numéro du signalement d’origine.');
    expect(await refus(c.numero, b.numero)).toBe(`Le signalement n° ${b.numero} est lui-même un doublon de n° ${a.numero} : indiquez n° ${a.numero}.`);
    expect(await refus(a.numero, b.numero)).toMatch(new RegExp(`^Le signalement n° ${b.numero} est lui-même un doublon de celui-ci : les relier dans l’autre sens ferait une boucle`, 'u'));
    expect((await ligne(a.numero)).etat).toBe('nouveau');
    expect((await ligne(c.numero)).etat).toBe('nouveau');
  });

  it('moves the duplicates of a report that becomes a duplicate to the new original (no chain), and re-points a duplicate', async () => {
    const e = await signaler();
    const f = await signaler();
    const g = await signaler();
    const h = await signaler();
    await mettreAJour(e.numero, { etat: 'doublon', doublonDe: f.numero });
    await mettreAJour(f.numero, { etat: 'doublon', doublonDe: g.numero });
    expect((await get(gestion(`/${e.numero}`))).json().data.doublonDe).toBe(g.numero);
    expect((await get(gestion(`/${g.numero}`))).json().data.doublons).toEqual([e.numero, f.numero]);
    expect((await repository.suiveurs((await ligne(g.numero)).id)).map((s) => s.email).sort()).toEqual([e.email, f.email, g.email].sort());
    // « Doublon » again with another original is a change: linked and followed there.
    const res = await mettreAJour(e.numero, { etat: 'doublon', doublonDe: h.numero });
    expect(res.json().data).toMatchObject({ etat: 'doublon', doublonDe: h.numero });
    expect(res.json().data.miseAJours.at(-1)).toMatchObject({ etat: 'doublon', par: 'mairie' });
  });
});

describe('private notes', () => {
  it('are kept for managers with their author, never shown publicly, never e-mailed', async () => {
    const { numero, email } = await signaler();
    const mails = (await mailsTo(email)).length;
    const res = await post(gestion(`/${numero}/notes`), { texte: '  Voisin pénible, déjà venu trois fois.  ' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toEqual({ id: expect.any(String), texte: 'Voisin pénible, déjà venu trois fois.', auteur: 'Mireille Gestion', le: expect.any(String) });
    expect((await get(gestion(`/${numero}`))).json().data.notes).toEqual([res.json().data]);
    const publique = await get(api(`/signalements/${numero}`), {});
    expect(publique.body).not.toContain('pénible');
    const signalant = await get(api(`/signalements/${numero}`), { cookie: habitant.cookie });
    expect(signalant.body).not.toContain('pénible');
    expect(await mailsTo(email)).toHaveLength(mails);
    const outbox = await ctx.app.deps.db.selectFrom('mailOutbox').select('body').execute();
    expect(outbox.some((m) => m.body.includes('pénible'))).toBe(false);
    expect(fs.readdirSync(path.join(ctx.dataDir, 'mail')).some((f) => fs.readFileSync(path.join(ctx.dataDir, 'mail', f), 'utf8').includes('nible'))).toBe(false);
    for (const texte of ['', '   ', 'x'.repeat(4001)]) expect((await post(gestion(`/${numero}/notes`), { texte })).statusCode).toBe(400);
  });
});

describe('moderation', () => {
  it('hides the title, the description, a photo and an update from the public view and the public photo route, logs each act, and shows them again', async () => {
    const { numero, cle } = await signaler({ titre: 'Un titre injurieux', description: 'Une description injurieuse' });
    const photo = await envoyerPhoto(numero, cle);
    await mettreAJour(numero, { etat: 'confirme', texte: 'Un message à retirer' });
    const vue = (await get(gestion(`/${numero}`))).json().data;
    const maj = vue.miseAJours.find((m: { texte: string | null }) => m.texte === 'Un message à retirer');
    const moderer = (body: Record<string, unknown>) => post(gestion(`/${numero}/moderation`), body);
    for (const body of [
      { cible: 'titre', masquer: true, motif: 'Propos injurieux' },
      { cible: 'description', masquer: true },
      { cible: 'photo', id: photo.id, masquer: true, motif: 'Visage reconnaissable' },
      { cible: 'mise-a-jour', id: maj.id, masquer: true },
    ]) {
      const res = await moderer(body);
      expect(res.statusCode, res.body).toBe(200);
    }
    const publique = await get(api(`/signalements/${numero}`), {});
    expect(publique.body).not.toMatch(/injurieu|à retirer/u);
    expect(publique.json().data).toMatchObject({ titre: 'Voirie', description: '', titreMasque: true, descriptionMasquee: true, photos: [] });
    // The hidden update's change of state stays in the public history, without its text.
    expect(publique.json().data.miseAJours.map((m: { etat: string | null; texte: string | null }) => [m.etat, m.texte])).toEqual([
      ['nouveau', null],
      ['confirme', null],
    ]);
    expect((await get(photo.url, {})).statusCode).toBe(404);
    expect((await get(api(`/signalements?parPage=200`), {})).body).not.toContain('Un titre injurieux');
    // Managers see everything, marked, and the hidden photo through their own route.
    const apres = (await get(gestion(`/${numero}`))).json().data;
    expect(apres).toMatchObject({ titre: 'Un titre injurieux', description: 'Une description injurieuse', titreMasque: true, descriptionMasquee: true, contenuMasque: true });
    expect(apres.photos).toEqual([{ id: photo.id, url: `/app/api/technique/gestion/signalements/${numero}/photos/${photo.id}`, largeur: 1, hauteur: 1, masquee: true }]);
    expect(apres.miseAJours.find((m: { id: string }) => m.id === maj.id)).toMatchObject({ texte: 'Un message à retirer', masquee: true });
    const servie = await get(apres.photos[0].url);
    expect(servie.statusCode).toBe(200);
    expect(servie.headers).toMatchObject({ 'content-type': 'image/jpeg', 'cache-control': 'private, no-store', 'x-content-type-options': 'nosniff' });
    expect(apres.moderation.map((e: Record<string, unknown>) => [e.action, e.cible, e.cibleId, e.motif, e.par])).toEqual([
      ['masquer', 'titre', null, 'Propos injurieux', 'Mireille Gestion'],
      ['masquer', 'description', null, null, 'Mireille Gestion'],
      ['masquer', 'photo', photo.id, 'Visage reconnaissable', 'Mireille Gestion'],
      ['masquer', 'mise-a-jour', maj.id, null, 'Mireille Gestion'],
    ]);
    expect(await numerosDe(`q=${numero}&masque=oui`)).toEqual([numero]);

    // Hiding what is hidden changes nothing and logs nothing; showing again is logged.
    await moderer({ cible: 'titre', masquer: true });
    expect((await get(gestion(`/${numero}`))).json().data.moderation).toHaveLength(4);
    await moderer({ cible: 'titre', masquer: false, motif: 'Reformulé par téléphone' });
    await moderer({ cible: 'description', masquer: false });
    await moderer({ cible: 'photo', id: photo.id, masquer: false });
    await moderer({ cible: 'mise-a-jour', id: maj.id, masquer: false });
    const retour = (await get(gestion(`/${numero}`))).json().data;
    expect(retour.moderation.slice(4).map((e: Record<string, unknown>) => [e.action, e.cible, e.motif])).toEqual([
      ['afficher', 'titre', 'Reformulé par téléphone'],
      ['afficher', 'description', null],
      ['afficher', 'photo', null],
      ['afficher', 'mise-a-jour', null],
    ]);
    expect(retour.contenuMasque).toBe(false);
    expect((await get(photo.url, {})).statusCode).toBe(200);
    expect((await get(api(`/signalements/${numero}`), {})).json().data.titre).toBe('Un titre injurieux');
    expect(await numerosDe(`q=${numero}&masque=oui`)).toEqual([]);
  });

  it('refuses a photo or an update of another report (404) and an incomplete act (400), in French', async () => {
    const a = await signaler();
    const b = await signaler();
    const photo = await envoyerPhoto(b.numero, b.cle);
    const autre = await post(gestion(`/${a.numero}/moderation`), { cible: 'photo', id: photo.id, masquer: true });
    expect(autre.statusCode).toBe(404);
    expect(autre.json().error.message).toBe('Cette photo n’existe pas pour ce signalement.');
    expect((await post(gestion(`/${a.numero}/moderation`), { cible: 'mise-a-jour', id: randomUUID(), masquer: true })).json().error.message).toBe(
      'Cette mise à jour n’existe pas pour ce signalement.',
    );
    for (const [body, champ] of [
      [{ cible: 'photo', masquer: true }, 'id'],
      [{ cible: 'titre', id: photo.id, masquer: true }, 'id'],
      [{ cible: 'nom', masquer: true }, 'cible'],
      [{ cible: 'titre' }, 'masquer'],
    ] as const) {
      const res = await post(gestion(`/${a.numero}/moderation`), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json().error.fields), JSON.stringify(body)).toEqual([champ]);
    }
    expect((await get(gestion(`/${a.numero}/photos/${photo.id}`))).statusCode).toBe(404);
    expect((await get(gestion(`/${a.numero}`))).json().data.moderation).toEqual([]);
  });
});

describe('categories, for admins', () => {
  const adminReq = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    ctx.app.inject({ method, url: api(url), headers: { cookie: admin.cookie }, ...(payload === undefined ? {} : { payload: payload as object }) });
  const proposees = async () => ((await get(api('/categories'), {})).json().data as { code: string; libelle: string }[]).map((c) => c.code);

  it('creates a category with a code made from its name, routes its reports to its service, renames it keeping the code', async () => {
    const res = await adminReq('POST', '/categories/admin', { libelle: '  Nids-de-poule   et ornières ', description: 'Chaussée creusée', emailService: ' Routes@Services.Example.ORG ' });
    expect(res.statusCode, res.body).toBe(201);
    const cree = res.json().data;
    expect(cree).toMatchObject({ code: 'nids-de-poule-et-ornieres', libelle: 'Nids-de-poule et ornières', emailService: 'routes@services.example.org', active: true, signalements: 0 });
    const toutes = (await adminReq('GET', '/categories/admin')).json().data as { code: string; rang: number }[];
    expect(toutes.at(-1)!.code).toBe(cree.code);
    expect(await proposees()).toContain(cree.code);
    // Its service receives its new reports.
    const { numero } = await signaler({ categorie: cree.code });
    expect((await mailsTo('routes@services.example.org')).some((m) => m.includes(numero) && m.includes('Nids-de-poule et ornières'))).toBe(true);
    // The same name but for case, accents, spaces and punctuation is refused.
    const meme = await adminReq('POST', '/categories/admin', { libelle: 'NIDS DE POULE, ET ORNIÈRES !' });
    expect(meme.statusCode).toBe(409);
    expect(meme.json().error).toMatchObject({ code: 'DUPLICATE', message: 'Une catégorie porte déjà ce nom.', fields: { libelle: 'Une catégorie porte déjà ce nom.' } });
    // Renamed, described, ordered first: the code stays, the reports follow.
    const renomme = await adminReq('PUT', `/categories/admin/${cree.code}`, { libelle: 'Chaussée abîmée', rang: 0, emailService: '' });
    expect(renomme.json().data).toMatchObject({ code: cree.code, libelle: 'Chaussée abîmée', rang: 0, emailService: null, signalements: 1 });
    expect((await proposees())[0]).toBe(cree.code);
    expect((await get(api(`/signalements/${numero}`), {})).json().data.categorie).toEqual({ code: cree.code, libelle: 'Chaussée abîmée' });
    // The old name is free again; its code is taken: the new category gets the next one.
    const reprise = await adminReq('POST', '/categories/admin', { libelle: 'Nids-de-poule et ornières' });
    expect(reprise.json().data.code).toBe('nids-de-poule-et-ornieres-2');
    expect((await adminReq('PUT', `/categories/admin/${reprise.json().data.code}`, { libelle: 'chaussée ABIMEE' })).statusCode).toBe(409);
  });

  it('withdraws a category from the form (older reports keep it), refuses to delete one in use, deletes an unused one', async () => {
    const { code } = (await adminReq('POST', '/categories/admin', { libelle: `Retirable ${randomUUID().slice(0, 6)}` })).json().data;
    const inutile = (await adminReq('POST', '/categories/admin', { libelle: `Inutile ${randomUUID().slice(0, 6)}` })).json().data.code;
    const { numero } = await signaler({ categorie: code });
    const retiree = await adminReq('PUT', `/categories/admin/${code}`, { active: false });
    expect(retiree.json().data).toMatchObject({ code, active: false, signalements: 1 });
    expect(await proposees()).not.toContain(code);
    const refus = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie({ categorie: code }) });
    expect(refus.statusCode).toBe(400);
    expect(refus.json().error.code).toBe('CATEGORIE_INCONNUE');
    expect((await get(gestion(`/${numero}`))).json().data.categorie.code).toBe(code);
    const utilisee = await adminReq('DELETE', `/categories/admin/${code}`);
    expect(utilisee.statusCode).toBe(409);
    expect(utilisee.json().error).toEqual({
      code: 'CATEGORIE_UTILISEE',
      message: 'Des signalements utilisent cette catégorie : elle ne peut pas être supprimée. Retirez-la plutôt de la liste proposée (« active » à false) ; les anciens signalements la gardent.',
    });
    expect((await adminReq('DELETE', `/categories/admin/${inutile}`)).statusCode).toBe(204);
    expect(((await adminReq('GET', '/categories/admin')).json().data as { code: string }[]).map((c) => c.code)).not.toContain(inutile);
    expect((await adminReq('PUT', `/categories/admin/${inutile}`, { active: true })).statusCode).toBe(404);
    await adminReq('PUT', `/categories/admin/${code}`, { active: true });
    expect(await proposees()).toContain(code);
  });

  it('never lets a report land in a category deleted at the same moment (PostgreSQL: the deletion holds the categories)', async (test) => {
    if (ctx.app.deps.dbKind !== 'postgres') test.skip();
    const { code } = (await adminReq('POST', '/categories/admin', { libelle: `Éphémère ${randomUUID().slice(0, 6)}` })).json().data;
    // An admin's deletion under way: the categories locked as the service locks them, the row deleted, not committed.
    let envoi: Promise<LightMyRequestResponse> | undefined;
    await ctx.app.deps.db.transaction().execute(async (trx) => {
      await trx.selectFrom('signalementCategories').select('code').forUpdate().execute();
      // The resident's report starts now: its first look still sees the category (the deletion is not committed).
      envoi = ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie({ categorie: code }) });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await trx.deleteFrom('signalementCategories').where('code', '=', code).execute();
    });
    const res = await envoi!;
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('CATEGORIE_INCONNUE');
    expect(await ctx.app.deps.db.selectFrom('signalements').select('id').where('categorie', '=', code).execute()).toEqual([]);
  });

  it('keeps at least one category offered, and refuses bad input in French', async () => {
    const actives = await proposees();
    const [garde, ...autres] = actives;
    await ctx.app.deps.db.updateTable('signalementCategories').set({ active: 0 }).where('code', 'in', autres).execute();
    try {
      const res = await adminReq('PUT', `/categories/admin/${garde}`, { active: false });
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toEqual({ code: 'DERNIERE_CATEGORIE', message: 'C’est la dernière catégorie proposée aux habitants : ajoutez-en ou réactivez-en une autre avant de la retirer.' });
    } finally {
      await ctx.app.deps.db.updateTable('signalementCategories').set({ active: 1 }).where('code', 'in', autres).execute();
    }
    for (const [method, url, body, champ] of [
      ['POST', '/categories/admin', { libelle: '' }, 'libelle'],
      ['POST', '/categories/admin', { libelle: 'x'.repeat(61) }, 'libelle'],
      ['POST', '/categories/admin', { libelle: 'Correcte', emailService: 'pas-une-adresse' }, 'emailService'],
      ['POST', '/categories/admin', { libelle: 'Correcte', rang: -1 }, 'rang'],
      ['PUT', '/categories/admin/voirie', {}, '_'],
      ['PUT', '/categories/admin/voirie', { active: 'non' }, 'active'],
    ] as const) {
      const res = await adminReq(method, url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json().error.fields), JSON.stringify(body)).toEqual([champ]);
    }
    expect((await adminReq('PUT', '/categories/admin/Pas%20un%20code', { active: true })).statusCode).toBe(400);
  });
});

describe('live events', () => {
  it('streams new reports and changes to the managers’ stream, notes included; the public stream never hears a note', async () => {
    const base = (await surUnPort(ctx.app)).base;
    const ouvrir = async (url: string, headers: Record<string, string>) => {
      const controller = new AbortController();
      const res = await fetch(`${base}${url}`, { headers, signal: controller.signal });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('private, no-store, no-transform');
      const reader = res.body!.getReader();
      const flux = { texte: '', controller };
      const lire = async (jusqua: (t: string) => boolean) => {
        while (!jusqua(flux.texte)) {
          const { value, done } = await reader.read();
          if (done) break;
          flux.texte += new TextDecoder().decode(value);
        }
      };
      await lire((t) => t.includes('retry:'));
      return { flux, lire };
    };
    const gestionnaire = await ouvrir('/app/api/technique/gestion/evenements', { cookie: manager.cookie });
    const publique = await ouvrir('/app/api/technique/evenements', {});
    const { numero } = await signaler();
    await post(gestion(`/${numero}/notes`), { texte: 'Note en direct.' });
    await mettreAJour(numero, { etat: 'en_cours' });
    await gestionnaire.lire((t) => t.includes('en_cours'));
    await publique.lire((t) => t.includes('en_cours'));
    gestionnaire.flux.controller.abort();
    publique.flux.controller.abort();
    const evenements = (texte: string) =>
      texte
        .split('\n\n')
        .filter((b) => b.startsWith('event: signalement'))
        .map((b) => JSON.parse(b.split('data: ')[1]!) as EvenementSignalement)
        .filter((e) => e.numero === numero)
        .map((e) => [e.etat, e.quoi ?? null]);
    expect(evenements(gestionnaire.flux.texte)).toEqual([
      ['nouveau', null],
      ['nouveau', 'note'],
      ['en_cours', null],
    ]);
    expect(evenements(publique.flux.texte)).toEqual([
      ['nouveau', null],
      ['en_cours', null],
    ]);
    expect(gestionnaire.flux.texte).not.toContain('Note en direct');
    expect(gestionnaire.flux.texte).not.toContain('@');
  });
});
