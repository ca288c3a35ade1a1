// Benchmark of the technical reports' public reads (issue 14). Prints figures; asserts nothing.
//   npx tsx bench/signalements.ts                                   SQLite (default)
//   DATABASE_URL=postgres://… npx tsx bench/signalements.ts         PostgreSQL
//   … bench/signalements.ts --quick                                 5,000 reports, few samples (checks that it runs)
// 50,000 reports (BENCH_SIGNALEMENTS) are written straight into a fresh database, spread uniformly over the
// district's boundary (data/territory/aix-en-provence.json), over two years, every category, every state (older
// reports mostly closed), with titles, descriptions, streets and reporters' names drawn from French word lists
// (names Zipf-like: « Martin » is common, most are rare; 0.5 % with moderated content), then:
// 1. the nearby search (GET /technique/signalements/proches: open reports within 50 m, the (lat, lon) index's
//    box then the exact distance) at 200 points drawn over the district;
// 2. the public list and map (GET /technique/signalements), each filter of the page: none, open, closed, one
//    state, one category, category and state, the last 7/30/90 days, a map page of 200, the last counted page.
// 3. the managers' list (GET /technique/gestion/signalements, as a manager): the whole list, each sort both ways,
//    its last page, a one-letter search, common and rare words (a name, a title word, an e-mail, a number, an
//    apostrophe), filters (open, one state, category + open, hidden content, a month, a sort with a filter), a
//    search with a filter, and the worst case: a two-letter word that matches nothing.
// Each case: over HTTP to a server process started from this checkout (dist/ when it is built with the managers'
// side, else the sources through tsx) and, interleaved, the same repository call (SignalementsRepository or
// GestionSignalementsRepository: the same SQL) run directly on the database from this process. Target: p95 <= 20 ms.
// On PostgreSQL after VACUUM ANALYZE (what autovacuum does in a running installation); on SQLite without ANALYZE
// (the app never runs it). The query plans are printed: each read must use an index of migrations 0019-0020.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql, type CompiledQuery } from 'kysely';
import { boiteDuPolygone, dansPolygone, type Coordonnees } from '../src/domain/geometrie.js';
import {
  CATEGORIES_PAR_DEFAUT,
  DISTANCE_DOUBLON_M,
  estOuvert,
  formatNumeroSignalement,
  listeGestionSignalementsQuerySchema,
  listeSignalementsQuerySchema,
  PROCHES_MAX,
  rangEtat,
  texteDeRechercheSignalement,
  type EtatSignalement,
} from '../src/domain/signalements.js';
import { migrate, natif, openDatabase, type Db, type DbKind } from '../src/server/db/index.js';
import type { SignalementRow } from '../src/server/db/schema.js';
import { SignalementsRepository } from '../src/server/features/signalements/repository.js';
import { GestionSignalementsRepository } from '../src/server/features/signalements/repository-gestion.js';
import { loadTerritory } from '../src/server/territory.js';
import { freshDatabaseUrl } from '../test/db.js';
import { drapeauxNode } from '../scripts/drapeaux-node.mjs';
import { freePorts, stopServer, waitFor } from './server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const QUICK = process.argv.includes('--quick');
const REPORTS = QUICK ? 5_000 : Number(process.env.BENCH_SIGNALEMENTS ?? 50_000);
const WARMUP = QUICK ? 2 : 5;
const SAMPLES = QUICK ? 10 : 50;
const POINTS = QUICK ? 40 : 200;
const TARGET_MS = 20;

// ---------------------------------------------------------------------------------------------------
// Figures

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

function summary(values: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? NaN };
}

const ms = (n: number) => `${n.toFixed(2)} ms`;
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** A deterministic generator (mulberry32): the same seed, the same district. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(r: () => number, choices: readonly [T, number][]): T {
  const total = choices.reduce((n, [, w]) => n + w, 0);
  let roll = r() * total;
  for (const [value, weight] of choices) {
    roll -= weight;
    if (roll < 0) return value;
  }
  return choices.at(-1)![0];
}

// ---------------------------------------------------------------------------------------------------
// Seed

const territory = loadTerritory();

/** A point drawn uniformly over the district (rejection sampling in its box). */
function pointDansLeQuartier(r: () => number): Coordonnees {
  const b = boiteDuPolygone(territory.perimetre);
  for (;;) {
    const p = { lat: b.latMin + r() * (b.latMax - b.latMin), lon: b.lonMin + r() * (b.lonMax - b.lonMin) };
    if (dansPolygone(p, territory.perimetre)) return p;
  }
}

const CATEGORIES: [string, number][] = [
  ['voirie', 30],
  ['eclairage', 20],
  ['proprete', 25],
  ['espaces-verts', 10],
  ['mobilier-urbain', 10],
  ['autre', 5],
];
const RECENTS: [EtatSignalement, number][] = [
  ['nouveau', 25],
  ['confirme', 20],
  ['planifie', 15],
  ['en_cours', 15],
  ['resolu', 15],
  ['ferme', 4],
  ['impossible', 2],
  ['hors_competence', 2],
  ['doublon', 2],
];
const ANCIENS: [EtatSignalement, number][] = [
  ['nouveau', 2],
  ['confirme', 3],
  ['planifie', 3],
  ['en_cours', 4],
  ['resolu', 55],
  ['ferme', 15],
  ['impossible', 6],
  ['hors_competence', 7],
  ['doublon', 5],
];

const TITRES: Record<string, string[]> = {
  voirie: ['Nid-de-poule', 'Trottoir abîmé', 'Chaussée fissurée', 'Bordure cassée', 'Marquage effacé', 'Plaque d’égout descellée'],
  eclairage: ['Lampadaire éteint', 'Lampadaire allumé le jour', 'Candélabre penché', 'Éclairage qui clignote'],
  proprete: ['Dépôt sauvage', 'Encombrants sur le trottoir', 'Tags sur un mur', 'Poubelle débordante', 'Déchets verts abandonnés'],
  'espaces-verts': ['Arbre dangereux', 'Haie envahissante', 'Pelouse non tondue', 'Aire de jeux abîmée'],
  'mobilier-urbain': ['Banc cassé', 'Abribus vandalisé', 'Potelet arraché', 'Corbeille manquante'],
  autre: ['Panneau tombé', 'Fuite d’eau sur la voie', 'Problème à signaler'],
};
const PHRASES = [
  'Devant l’entrée de l’immeuble.',
  'Près de l’école, les enfants passent par là tous les jours.',
  'Dangereux pour les piétons et les poussettes.',
  'Cela dure depuis plusieurs semaines.',
  'Déjà signalé par téléphone, sans suite.',
  'Au coin de la rue, à côté de l’arrêt de bus.',
  'La nuit on ne voit rien.',
  'Merci d’intervenir rapidement.',
  'Un voisin a failli tomber hier soir.',
  'Visible depuis le parking.',
];
const RUES = [
  'Avenue Marcel-Pagnol',
  'Boulevard du Château-Double',
  'Avenue des Jardins-d’Estelle',
  'Boulevard de la Grande-Thumine',
  'Rue Paul-Cézanne',
  'Avenue Jean-Monnet',
  'Boulevard des Deux-Ormes',
  'Allée d’Ornano',
  'Place Romée-de-Villeneuve',
  'Chemin de la Côte-Rousse',
  'Avenue du Clos-Gabriel',
  'Rue Émile-Zola',
];
/** Last names, most frequent first (drawn Zipf-like), accents and apostrophes as people write them. */
const NOMS = ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Lefèvre', 'García', 'Benali', 'N’Diaye', 'Traoré', 'Haddad', 'Bensaïd', 'Nguyen', 'Le Goff', 'D’Angelo', 'Ouédraogo', 'Ferreira', 'Da Silva', 'Öztürk', 'Kowalski', 'Saïdi', 'Camara', 'Chérif', 'Rivière', 'Noël'];
const PRENOMS = ['Camille', 'Léa', 'Hugo', 'Inès', 'Mohamed', 'Aïcha', 'Lucas', 'Chloé', 'Youssef', 'Zoé', 'Nathan', 'Fatoumata', 'Éric', 'Sophie', 'Jean-Marc'];
/** An e-mail's local part from a name: folded, letters only. */
const foldAscii = (texte: string) => texte.normalize('NFD').replace(/[^A-Za-z]/gu, '').toLowerCase();
const zipf = <T>(r: () => number, values: readonly T[]): T => values[Math.min(values.length - 1, Math.floor(values.length ** r() - 1))]!;

async function seed(db: Db, count: number): Promise<number> {
  const started = performance.now();
  const r = random(14);
  const now = Date.now();
  const DEUX_ANS = 730 * 86_400_000;
  // Oldest first, so that each year's numbers follow creation.
  const instants = Array.from({ length: count }, () => now - Math.floor(r() * DEUX_ANS)).sort((a, b) => a - b);
  const rangs = new Map<number, number>();
  const rows: SignalementRow[] = instants.map((t, i) => {
    const creeLe = new Date(t).toISOString();
    const annee = new Date(t).getUTCFullYear();
    const rang = (rangs.get(annee) ?? 0) + 1;
    rangs.set(annee, rang);
    const etat = weighted(r, now - t < 90 * 86_400_000 ? RECENTS : ANCIENS);
    const point = pointDansLeQuartier(r);
    const categorie = weighted(r, CATEGORIES);
    const titres = TITRES[categorie] ?? [CATEGORIES_PAR_DEFAUT.find((c) => c.code === categorie)!.libelle];
    const prenom = zipf(r, PRENOMS);
    const nomFamille = zipf(r, NOMS);
    const masque = r() < 0.005;
    // Changed some time after it was made (closed reports were), never in the future.
    const misAJourLe = estOuvert(etat) && etat === 'nouveau' ? creeLe : new Date(Math.min(now, t + Math.floor(r() * 30 * 86_400_000))).toISOString();
    const anonyme = !estOuvert(etat) && now - Date.parse(misAJourLe) > 366 * 86_400_000;
    const row = {
      id: randomUUID(),
      numero: formatNumeroSignalement(annee, rang),
      categorie,
      titre: `${titres[Math.floor(r() * titres.length)]!}${r() < 0.3 ? ` ${RUES[Math.floor(r() * RUES.length)]!.split(' ').slice(1).join(' ')}` : ''}`,
      description: `${PHRASES[Math.floor(r() * PHRASES.length)]!} ${PHRASES[Math.floor(r() * PHRASES.length)]!}`,
      lat: point.lat,
      lon: point.lon,
      adresse: r() < 0.1 ? '' : `${1 + Math.floor(r() * 60)} ${RUES[Math.floor(r() * RUES.length)]!}, 13090 Aix-en-Provence`,
      // Closed for more than a year: the reporter's address and name already erased, as the reports' retention
      // (the server's daily job, features/compte: CONSERVATION_SIGNALANT_MOIS, 12) leaves them.
      email: anonyme ? '' : `${foldAscii(prenom)}.${foldAscii(nomFamille)}${i}@example.org`,
      nom: anonyme || i % 3 === 0 ? '' : `${prenom} ${nomFamille}`,
      nomMasque: i % 4 === 0 ? 1 : 0,
      etat,
      ouvert: estOuvert(etat) ? 1 : 0,
      doublonDe: null,
      accessKeyHash: '0'.repeat(64),
      ownerUserId: null,
      creeLe,
      misAJourLe,
      titreMasque: masque ? 1 : 0,
      descriptionMasquee: 0,
      open311CleId: null,
    };
    return { ...row, recherche: texteDeRechercheSignalement(row), etatRang: rangEtat(etat), contenuMasque: masque ? 1 : 0 };
  });
  const BATCH = 500;
  for (let i = 0; i < rows.length; i += BATCH * 20) {
    await db.transaction().execute(async (trx) => {
      for (let j = i; j < Math.min(rows.length, i + BATCH * 20); j += BATCH) await trx.insertInto('signalements').values(rows.slice(j, j + BATCH)).execute();
    });
  }
  for (const [annee, dernier] of rangs) {
    await db.insertInto('signalementCompteurs').values({ annee, dernier }).onConflict((oc) => oc.column('annee').doUpdateSet({ dernier })).execute();
  }
  return (performance.now() - started) / 1000;
}

// ---------------------------------------------------------------------------------------------------
// Query plans

async function plans(db: Db): Promise<void> {
  const n = natif(db);
  const centre = territory.centre;
  const d = 0.00045;
  const cases: [string, { sql: string; parameters: readonly unknown[] }][] = [
    [
      'nearby (box of ±50 m)',
      db
        .selectFrom('signalements')
        .select(['id', 'numero', 'lat', 'lon', 'ouvert'])
        .where('lat', '>=', centre.lat - d)
        .where('lat', '<=', centre.lat + d)
        .where('lon', '>=', centre.lon - d)
        .where('lon', '<=', centre.lon + d)
        .compile(),
    ],
    ['list, open, newest first', db.selectFrom('signalements').select(['id', 'numero']).where('ouvert', '=', 1).orderBy('creeLe', 'desc').orderBy('id', 'desc').limit(50).compile()],
    [
      'list, category + open',
      db.selectFrom('signalements').select(['id', 'numero']).where('categorie', '=', 'voirie').where('ouvert', '=', 1).orderBy('creeLe', 'desc').orderBy('id', 'desc').limit(50).compile(),
    ],
    ['list, one state', db.selectFrom('signalements').select(['id', 'numero']).where('etat', '=', 'en_cours').orderBy('creeLe', 'desc').orderBy('id', 'desc').limit(50).compile()],
  ];
  console.log('query plans:');
  for (const [label, compiled] of cases) {
    let plan: string[];
    if (n?.kind === 'sqlite') {
      plan = (n.sqlite.prepare(`explain query plan ${compiled.sql}`).all(...compiled.parameters) as { detail: string }[]).map((p) => p.detail);
    } else if (n?.kind === 'postgres') {
      plan = (await n.pool.query<{ 'QUERY PLAN': string }>(`explain ${compiled.sql}`, compiled.parameters as unknown[])).rows.map((p) => p['QUERY PLAN'].trim());
    } else plan = ['?'];
    console.log(`  ${label}: ${plan.join(' | ')}`);
  }
}

/** The plans of the statements the managers' list really sends (captured from GestionSignalementsRepository.page). */
async function plansGestion(db: Db, kind: DbKind, cas: [string, string][]): Promise<void> {
  const n = natif(db);
  const captures: CompiledQuery[] = [];
  const espion = db.withPlugin({
    transformQuery: (args) => {
      captures.push(db.getExecutor().compileQuery(args.node, args.queryId));
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  const gestion = new GestionSignalementsRepository(espion, kind);
  console.log('query plans of the managers’ list (count, then page):');
  for (const [label, query] of cas) {
    captures.length = 0;
    await gestion.page(listeGestionSignalementsQuerySchema.parse(Object.fromEntries(new URLSearchParams(query))));
    for (const compiled of captures.filter((c) => /^select/iu.test(c.sql) && !/"id", "numero" from "signalements" where "id" in/u.test(c.sql))) {
      let plan: string[];
      if (n?.kind === 'sqlite') plan = (n.sqlite.prepare(`explain query plan ${compiled.sql}`).all(...compiled.parameters) as { detail: string }[]).map((p) => p.detail);
      else if (n?.kind === 'postgres') plan = (await n.pool.query<{ 'QUERY PLAN': string }>(`explain ${compiled.sql}`, compiled.parameters as unknown[])).rows.map((p) => p['QUERY PLAN'].trim());
      else plan = ['?'];
      console.log(`  ${label}: ${plan.join(' | ')}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Server

/** The server from dist/ when it was built with the managers' side, else from the sources through tsx; Node's options of `npm start`. */
function startServer(env: Record<string, string>): ChildProcess {
  const dist = path.join(ROOT, 'dist/server/main.js');
  const built = fs.existsSync(path.join(ROOT, 'dist/server/features/signalements/routes-gestion.js'));
  const args = [...drapeauxNode(ROOT), ...(built ? [dist] : ['--import', 'tsx', path.join(ROOT, 'src/server/main.ts')])];
  return spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

// ---------------------------------------------------------------------------------------------------
// A manager's session, for the managers' list

async function gestionnaire(base: string, db: Db): Promise<string> {
  const email = `gestion.banc.${randomBytes(3).toString('hex')}@example.org`;
  const res = await fetch(`${base}/app/api/user/inscription`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ nom: 'Banc', prenom: 'Gestion', birthday: '1980-01-01', residence: 'Mairie', rue: 'Avenue Marcel-Pagnol', email, password: 'une phrase de passe assez longue' }),
  });
  if (res.status !== 201) throw new Error(`sign-up failed: HTTP ${res.status} ${await res.text()}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] ?? '')
    .filter((c) => c.startsWith('qv.session_token='))
    .join('; ');
  await db.updateTable('user').set({ userType: 'manager' }).where('email', '=', email).execute();
  return cookie;
}

// ---------------------------------------------------------------------------------------------------
// Measures

async function mesurer(label: string, http: () => Promise<Response>, direct: () => Promise<unknown>, samples = SAMPLES): Promise<boolean> {
  const h: number[] = [];
  const d: number[] = [];
  let errors = 0;
  for (let i = 0; i < WARMUP + samples; i += 1) {
    let started = performance.now();
    const res = await http();
    await res.arrayBuffer();
    const elapsed = performance.now() - started;
    started = performance.now();
    await direct();
    const directElapsed = performance.now() - started;
    if (i < WARMUP) continue;
    if (res.status !== 200) errors += 1;
    h.push(elapsed);
    d.push(directElapsed);
  }
  const hs = summary(h);
  const ds = summary(d);
  const ok = hs.p95 <= TARGET_MS && errors === 0;
  console.log(
    `  ${label.padEnd(40)} ${ms(hs.p50).padStart(9)} ${ms(hs.p95).padStart(9)}   ${ms(ds.p50).padStart(9)} ${ms(ds.p95).padStart(9)}${errors ? `  (${errors} errors)` : ''}  p95 ${verdict(ok)}`,
  );
  return ok;
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'qv-bench-signalements-'));
  const database = await freshDatabaseUrl('qv_bench');
  const kind = database.url ? 'PostgreSQL' : 'SQLite';
  const { db, kind: dbKind } = openDatabase({ databaseUrl: database.url, dataDir });
  let server: ChildProcess | undefined;
  try {
    await migrate(db);
    if (dbKind === 'postgres') {
      // What the app does at start (optimiseSearch, then the feature's index.ts), before the seed.
      await sql`create extension if not exists pg_trgm`.execute(db);
      await sql`create index if not exists signalements_recherche_trgm_idx on signalements using gin (recherche gin_trgm_ops)`.execute(db);
    }
    const seconds = await seed(db, REPORTS);
    if (dbKind === 'postgres') await sql`vacuum analyze signalements`.execute(db);
    const ouverts = await db.selectFrom('signalements').select((eb) => eb.fn.countAll<number | string>().as('n')).where('ouvert', '=', 1).executeTakeFirstOrThrow();
    console.log(`database: ${kind}, ${REPORTS} reports seeded in ${seconds.toFixed(1)} s (${Number(ouverts.n)} open)${QUICK ? ' (--quick)' : ''}`);
    await plans(db);
    await plansGestion(db, dbKind, [
      ['all, newest first', ''],
      ['sort etat asc', 'tri=etat&ordre=asc'],
      ['last page', `page=${Math.ceil(REPORTS / 50)}`],
      ['« a »', 'q=a'],
      ['« lampadaire »', 'q=lampadaire'],
      ['« ozturk »', 'q=ozturk'],
      ['open, sort misAJourLe', 'etat=ouverts&tri=misAJourLe'],
      ['hidden content', 'masque=oui'],
    ]);

    const [port] = await freePorts(1);
    const base = `http://127.0.0.1:${port}`;
    server = startServer({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: base,
      ADRESSE_API_URL: 'http://127.0.0.1:9/',
      RATE_LIMIT_MULTIPLIER: '1000',
      ...(database.url ? { DATABASE_URL: database.url } : {}),
    });
    await waitFor(`${base}/app/api/technique/categories`, server, 120_000);
    const repository = new SignalementsRepository(db, dbKind);

    console.log(`\nHTTP (server process) and direct (SignalementsRepository in this process), ${WARMUP} warm-up then ${SAMPLES} sequential samples each; target p95 <= ${TARGET_MS} ms`);
    console.log(`  ${'case'.padEnd(40)} ${'HTTP p50'.padStart(9)} ${'p95'.padStart(9)}   ${'direct p50'.padStart(9)} ${'p95'.padStart(9)}`);
    let met = 0;
    let cases = 0;

    // 1. Nearby, at POINTS points over the district, each sample another point.
    const r = random(2026);
    const points = Array.from({ length: WARMUP + POINTS }, () => pointDansLeQuartier(r));
    let trouves = 0;
    let k = 0;
    let kd = 0;
    const ok = await mesurer(
      `nearby ${DISTANCE_DOUBLON_M} m (${POINTS} points)`,
      async () => {
        const p = points[k++ % points.length]!;
        const res = await fetch(`${base}/app/api/technique/signalements/proches?lat=${p.lat}&lon=${p.lon}`);
        return res;
      },
      async () => {
        const p = points[kd++ % points.length]!;
        trouves += (await repository.proches(p, DISTANCE_DOUBLON_M, PROCHES_MAX)).length;
      },
      POINTS,
    );
    cases += 1;
    if (ok) met += 1;
    console.log(`    (${(trouves / (WARMUP + POINTS)).toFixed(1)} open reports found within ${DISTANCE_DOUBLON_M} m on average)`);

    // 2. The public list.
    const listes: [string, string][] = [
      ['list: all, newest first', ''],
      ['list: open', 'etat=ouverts'],
      ['list: closed', 'etat=fermes'],
      ['list: state en_cours', 'etat=en_cours'],
      ['list: state nouveau', 'etat=nouveau'],
      ['list: category voirie', 'categorie=voirie'],
      ['list: voirie + open', 'categorie=voirie&etat=ouverts'],
      ['list: eclairage + resolu', 'categorie=eclairage&etat=resolu'],
      ['list: last 7 days', 'depuis=7'],
      ['list: last 30 days, open', 'depuis=30&etat=ouverts'],
      ['list: proprete, last 90 days', 'categorie=proprete&depuis=90'],
      ['map: open, 200 a page', 'etat=ouverts&parPage=200'],
      ['list: page 200 (offset 9,950)', 'page=200'],
    ];
    for (const [label, query] of listes) {
      const q = listeSignalementsQuerySchema.parse(Object.fromEntries(new URLSearchParams(query)));
      const first = (await (await fetch(`${base}/app/api/technique/signalements?${query}`)).json()) as { total: number; totalExact: boolean; data: unknown[] };
      const ok = await mesurer(
        `${label} (${first.totalExact ? '' : '> '}${first.total})`,
        () => fetch(`${base}/app/api/technique/signalements?${query}`),
        () => repository.page(q, new Date()),
      );
      cases += 1;
      if (ok) met += 1;
    }
    // 3. The managers' list, as a manager.
    const cookie = await gestionnaire(base, db);
    const gestion = new GestionSignalementsRepository(db, dbKind);
    const total = ((await (await fetch(`${base}/app/api/technique/gestion/signalements?parPage=50`, { headers: { cookie } })).json()) as { total: number }).total;
    // A recent report's address (the server's daily job has blanked those of reports closed long ago).
    const { email: unEmail } = await db.selectFrom('signalements').select('email').where('email', '<>', '').orderBy('creeLe', 'desc').offset(100).limit(1).executeTakeFirstOrThrow();
    const jour = (decalageJours: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Paris' }).format(new Date(Date.now() - decalageJours * 86_400_000));
    const gestionCas: [string, string][] = [
      ['managers: all, newest first', ''],
      ...(['numero', 'creeLe', 'misAJourLe', 'etat', 'categorie'] as const).flatMap((tri): [string, string][] => [
        [`managers: sort ${tri} asc`, `tri=${tri}&ordre=asc`],
        [`managers: sort ${tri} desc`, `tri=${tri}&ordre=desc`],
      ]),
      [`managers: last page (${Math.ceil(total / 50)})`, `page=${Math.ceil(total / 50)}`],
      ['managers: middle page', `page=${Math.ceil(total / 100)}`],
      ['managers: one letter « a »', 'q=a'],
      ['managers: one letter « a », sort etat', 'q=a&tri=etat&ordre=asc'],
      ['managers: one rarer letter « k »', 'q=k'],
      ['managers: one rarer letter « w »', 'q=w'],
      ['managers: common name « martin »', 'q=martin'],
      ['managers: common word « lampadaire »', 'q=lampadaire'],
      ['managers: « lampadaire » sort misAJourLe', 'q=lampadaire&tri=misAJourLe'],
      ['managers: two words « trottoir abime »', 'q=trottoir%20abime'],
      ['managers: apostrophe « d’ornano »', `q=${encodeURIComponent('d’ornano')}`],
      ['managers: rare name « ozturk »', 'q=ozturk'],
      ['managers: an e-mail', `q=${encodeURIComponent(unEmail)}`],
      ['managers: a number', `q=${formatNumeroSignalement(new Date().getUTCFullYear() - 1, 1234)}`],
      ['managers: open', 'etat=ouverts'],
      ['managers: state en_cours', 'etat=en_cours'],
      ['managers: voirie + open', 'categorie=voirie&etat=ouverts'],
      ['managers: open, sort misAJourLe', 'etat=ouverts&tri=misAJourLe'],
      ['managers: proprete, sort etat', 'categorie=proprete&tri=etat&ordre=asc'],
      ['managers: hidden content', 'masque=oui'],
      ['managers: last 30 days', `du=${jour(30)}&au=${jour(0)}`],
      ['managers: « lampadaire » + open', 'q=lampadaire&etat=ouverts'],
      ['managers: « martin » + closed, page 3', 'q=martin&etat=fermes&page=3'],
      ['managers: no match « zq » (worst case)', 'q=zq'],
    ];
    for (const [label, query] of gestionCas) {
      const q = listeGestionSignalementsQuerySchema.parse(Object.fromEntries(new URLSearchParams(query)));
      const first = (await (await fetch(`${base}/app/api/technique/gestion/signalements?${query}`, { headers: { cookie } })).json()) as { total: number; totalExact: boolean };
      const ok = await mesurer(
        `${label} (${first.totalExact ? '' : '> '}${first.total})`,
        () => fetch(`${base}/app/api/technique/gestion/signalements?${query}`, { headers: { cookie } }),
        () => gestion.page(q),
      );
      cases += 1;
      if (ok) met += 1;
    }
    console.log(`  ${met}/${cases} cases with p95 <= ${TARGET_MS} ms (${kind}, ${REPORTS} reports)`);
  } finally {
    if (server) await stopServer(server);
    await db.destroy();
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
