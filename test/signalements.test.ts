import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceM, pointA } from '../src/domain/geometrie.js';
import { CATEGORIES_PAR_DEFAUT, HORS_PERIMETRE, PHOTO_COTE_MAX, type EvenementSignalement } from '../src/domain/signalements.js';
import { authSecret } from '../src/server/auth/secret.js';
import { LocalStorage } from '../src/server/storage/index.js';
import { SignalementsRepository } from '../src/server/features/signalements/repository.js';
import { SignalementsService, type Changement } from '../src/server/features/signalements/service.js';
import { createAccount, createTestApp, multipart, SAMPLES, SANS_LIMITES_SIGNALEMENTS, surUnPort, type TestContext } from './helpers.js';

/**
 * Technical reports (issue 14, server core): numbering, the district's boundary, the nearby search, the public
 * list and view, photos stripped of their metadata, « Toujours pas résolu », followers, area alerts, e-mails
 * through the outbox, live events, and who may do what. A real database per file (SQLite, or PostgreSQL with
 * DATABASE_URL).
 */
let ctx: TestContext;
let service: SignalementsService;
let repository: SignalementsRepository;
let manager: Awaited<ReturnType<typeof createAccount>>;
let admin: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let proprietaire: Awaited<ReturnType<typeof createAccount>>;
/** Moves the app's clock (AppOptions.now). */
let decalageMs = 0;

const CENTRE = { lat: 43.529444, lon: 5.413889 };
/** Far apart inside the district, so that the tests' reports do not meet in the nearby search. */
const QUELQUE_PART = (n: number) => pointA(CENTRE, 150 + 100 * (n % 5), (n * 47) % 360);
const VOIRIE = 'voirie@services.example.org';
const sansLog = { error: () => undefined, warn: () => undefined, info: () => undefined } as never;


beforeAll(async () => {
  ctx = await createTestApp({}, { rateLimits: SANS_LIMITES_SIGNALEMENTS, now: () => new Date(Date.now() + decalageMs) });
  const { db, dbKind, mailer, bus, config, territory } = ctx.app.deps;
  await db.updateTable('signalementCategories').set({ emailService: VOIRIE }).where('code', '=', 'voirie').execute();
  repository = new SignalementsRepository(db, dbKind);
  // The managers' side is not built yet: their state changes go through the same service, as their routes will.
  service = new SignalementsService({
    repository,
    storage: new LocalStorage(path.join(ctx.dataDir, 'photos-signalements')),
    mailer,
    bus,
    config,
    secret: authSecret(config),
    perimetre: territory.perimetre,
    now: () => new Date(Date.now() + decalageMs),
  });
  manager = await createAccount(ctx, 'manager');
  admin = await createAccount(ctx, 'admin');
  habitant = await createAccount(ctx, 'habitant');
  proprietaire = await createAccount(ctx, 'habitant');
});
afterAll(async () => {
  await ctx.close();
});

const api = (url: string) => `/app/api/technique${url}`;
let compteur = 0;
function saisie(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  compteur += 1;
  const point = QUELQUE_PART(compteur);
  return {
    categorie: 'voirie',
    titre: `Nid-de-poule n° ${compteur}`,
    description: 'Un trou profond au milieu de la chaussée, dangereux pour les vélos.',
    ...point,
    adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
    email: `signalant${compteur}@example.org`,
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
  return { numero, cle, email: String(body.email), body };
}

/**
 * Listens to the bus's report topic from now on: `jusqua` waits until an event that `attendu` accepts has come. On
 * PostgreSQL, events come back through LISTEN after their write has answered, so a test waits for them rather than
 * sleeping (a stream opened right after a creation could still hear the creation's event).
 */
function ecouter() {
  const entendus: EvenementSignalement[] = [];
  const attentes: Array<{ attendu: (e: EvenementSignalement) => boolean; resolve: () => void }> = [];
  const stop = ctx.app.deps.bus.subscribeSignalements((e) => {
    entendus.push(e);
    for (const a of attentes) if (a.attendu(e)) a.resolve();
  });
  const jusqua = (attendu: (e: EvenementSignalement) => boolean) =>
    entendus.some(attendu) ? Promise.resolve() : new Promise<void>((resolve) => attentes.push({ attendu, resolve }));
  return { entendus, jusqua, stop };
}

const voir = (numero: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url: api(`/signalements/${numero}`), headers });
const ligne = async (numero: string) => (await repository.parNumero(numero))!;
const changer = async (numero: string, changement: Changement) => service.publierMiseAJour((await ligne(numero)).id, changement, sansLog);

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
const jetonDans = (mail: string, page: string) => new RegExp(`/technique/${page}#jeton=([A-Za-z0-9_-]+)`, 'u').exec(mail)?.[1];

/** A JPEG as a phone takes it: rotated by its EXIF orientation, with a GPS position, a camera model, an ICC profile and XMP. */
async function photoDeTelephone(largeur = 2400, hauteur = 1200): Promise<Buffer> {
  return sharp({ create: { width: largeur, height: hauteur, channels: 3, background: { r: 180, g: 40, b: 40 } } })
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: 'PhoneTest', Model: 'Modele 12' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '43/1 31/1 46/1', GPSLongitudeRef: 'E', GPSLongitude: '5/1 24/1 50/1' },
    })
    .withIccProfile('p3')
    .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="43,31.77N"/></rdf:RDF></x:xmpmeta>')
    .toBuffer();
}

async function envoyerPhoto(numero: string, headers: Record<string, string>, fichier: { name: string; content: Buffer; type?: string }) {
  const form = await multipart([{ field: 'photo', ...fichier }]);
  return ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...form.headers, ...headers }, payload: form.payload });
}

describe('the district and the categories', () => {
  it('gives the map the district’s boundary, marked approximate, with its centre inside', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: api('/perimetre') });
    expect(res.statusCode).toBe(200);
    const { perimetre, centre, approximatif } = res.json().data;
    expect(perimetre.type).toBe('Polygon');
    expect(perimetre.coordinates[0].length).toBeGreaterThanOrEqual(4);
    expect(perimetre.coordinates[0][0]).toEqual(perimetre.coordinates[0].at(-1));
    expect(centre).toEqual(CENTRE);
    expect(approximatif).toBe(true);
    expect(res.headers['cache-control']).toBe('private, no-store');
  });

  it('lists the categories in use, in order; a category no longer offered is refused for a new report (400 CATEGORIE_INCONNUE)', async () => {
    const codes = async () => (await ctx.app.inject({ method: 'GET', url: api('/categories') })).json().data.map((c: { code: string }) => c.code);
    expect(await codes()).toEqual(CATEGORIES_PAR_DEFAUT.map((c) => c.code));
    await ctx.app.deps.db.updateTable('signalementCategories').set({ active: 0 }).where('code', '=', 'mobilier-urbain').execute();
    try {
      expect(await codes()).not.toContain('mobilier-urbain');
      for (const categorie of ['mobilier-urbain', 'inconnue']) {
        const res = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie({ categorie }) });
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'CATEGORIE_INCONNUE', fields: { categorie: expect.stringContaining('n’existe pas ou n’est plus proposée') } });
      }
    } finally {
      await ctx.app.deps.db.updateTable('signalementCategories').set({ active: 1 }).where('code', '=', 'mobilier-urbain').execute();
    }
  });
});

describe('a new report', () => {
  it('answers its number and, once, its private key; e-mails the follow link to the reporter and the report to the category’s service', async () => {
    const { numero, cle, email } = await signaler({ titre: '  Trou\n dans  la chaussée ', nom: 'Zoé Bernard' });
    expect(numero).toMatch(/^\d{4}-\d{5}$/u);
    expect(numero.slice(0, 4)).toBe(new Intl.DateTimeFormat('en', { year: 'numeric', timeZone: 'Europe/Paris' }).format(new Date()));
    expect(cle.length).toBeGreaterThanOrEqual(43);
    const row = await ligne(numero);
    // Only the key's hash is stored; the title as one line; the reporter follows.
    expect(row.accessKeyHash).not.toContain(cle);
    expect(row).toMatchObject({ titre: 'Trou dans la chaussée', etat: 'nouveau', ouvert: 1, email, ownerUserId: null });
    expect(await repository.suiveurs(row.id)).toEqual([expect.objectContaining({ email })]);
    const [recu] = await mailsTo(email);
    expect(recu).toContain(`http://quartier.test/technique/${numero}#cle=${cle}`);
    expect(recu).toContain('Bonjour Zoé Bernard,');
    expect(jetonDans(recu!, 'desabonnement')).toBeTruthy();
    const service = (await mailsTo(VOIRIE)).find((m) => m.includes(numero));
    expect(service).toContain('Un trou profond au milieu de la chaussée');
    expect(service).toContain(email);
    expect(service).toContain(`http://quartier.test/technique/${numero}`);
    expect(service).not.toContain(cle);
  });

  it('sends no service e-mail for a category without a service address', async () => {
    const avant = (await mailsTo(VOIRIE)).length;
    await signaler({ categorie: 'proprete' });
    expect(await mailsTo(VOIRIE)).toHaveLength(avant);
  });

  it('refuses a point outside the district (400 HORS_PERIMETRE, in French) and stores nothing', async () => {
    const avant = await ctx.app.deps.db.selectFrom('signalements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    // The Cours Mirabeau (town centre), and just south of the A8.
    for (const point of [{ lat: 43.5263, lon: 5.4474 }, { lat: 43.519, lon: 5.412 }]) {
      const res = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie(point) });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'HORS_PERIMETRE', message: HORS_PERIMETRE });
      expect(res.json().error.message).toMatch(/^Ce point est hors du quartier du Jas de Bouffan/u);
    }
    const apres = await ctx.app.deps.db.selectFrom('signalements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(apres.n)).toBe(Number(avant.n));
  });

  it('refuses a report without e-mail or title with per-field French messages', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie({ email: '', titre: ' a ' }) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('VALIDATION');
    expect(res.json().error.fields).toMatchObject({
      email: 'L’adresse e-mail est obligatoire : elle sert à vous tenir au courant.',
      titre: 'Le titre est trop court : dites le problème en quelques mots.',
    });
  });

  it('gives 20 reports made at once 20 distinct numbers that follow each other', async () => {
    const reponses = await Promise.all(
      Array.from({ length: 20 }, () => ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie() })),
    );
    expect(reponses.map((r) => r.statusCode)).toEqual(Array(20).fill(201));
    const numeros = reponses.map((r) => r.json().data.numero as string);
    expect(new Set(numeros).size).toBe(20);
    const rangs = numeros.map((n) => Number(n.slice(5))).sort((a, b) => a - b);
    expect(rangs.at(-1)! - rangs[0]!).toBe(19);
  });

  it('belongs to the signed-in account that made it', async () => {
    const { numero } = await signaler({}, { cookie: proprietaire.cookie });
    expect((await ligne(numero)).ownerUserId).toBe(proprietaire.uid);
    expect((await voir(numero, { cookie: proprietaire.cookie })).json().data.estSignalant).toBe(true);
  });

  it('publishes a live event on the bus’s report topic, which the housing topic never hears', async () => {
    const { entendus, jusqua, stop } = ecouter();
    const logement: unknown[] = [];
    const stopLogement = ctx.app.deps.bus.subscribe((e) => logement.push(e));
    try {
      const { numero } = await signaler();
      await changer(numero, { etat: 'planifie', texte: 'Intervention prévue mardi.', par: 'mairie' });
      await changer(numero, { texte: 'Le chantier a pris du retard.', par: 'mairie' });
      await jusqua((e) => e.numero === numero && e.quoi === 'mise-a-jour');
      expect(entendus.filter((e) => e.numero === numero)).toEqual([
        { numero, etat: 'nouveau', de: null, date: expect.any(String) },
        { numero, etat: 'planifie', de: 'nouveau', date: expect.any(String) },
        { numero, etat: 'planifie', de: 'planifie', date: expect.any(String), quoi: 'mise-a-jour' },
      ]);
      expect(logement).toEqual([]);
    } finally {
      stop();
      stopLogement();
    }
  });
});

describe('reports near a point', () => {
  it('finds an open report 40 m away and not one 60 m away, nearest first, with the distance', async () => {
    const ici = pointA(CENTRE, 500, 200);
    const a40 = pointA(ici, 40, 30);
    // Diagonal: inside the search's box of ±50 m, outside its 50 m circle.
    const a60 = pointA(ici, 60, 45);
    const a10 = pointA(ici, 10, 300);
    expect(distanceM(ici, a40)).toBeCloseTo(40, 3);
    const loin = await signaler({ ...a60 });
    const pres = await signaler({ ...a40 });
    const tout = await signaler({ ...a10 });
    const ferme = await signaler({ ...pointA(ici, 20, 0) });
    await changer(ferme.numero, { etat: 'resolu', par: 'mairie' });
    const res = await ctx.app.inject({ method: 'GET', url: api(`/signalements/proches?lat=${ici.lat}&lon=${ici.lon}`) });
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { numero: string; distanceM: number; etat: string }[];
    expect(data.map((d) => d.numero)).toEqual([tout.numero, pres.numero]);
    expect(data[1]!.distanceM).toBeCloseTo(40, 0);
    expect(data.map((d) => d.numero)).not.toContain(loin.numero);
    expect(data.map((d) => d.numero)).not.toContain(ferme.numero);
    // The public summary: no e-mail, no name.
    expect(JSON.stringify(data)).not.toContain('@');
  });

  it('refuses a point that is not one (400)', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: api('/signalements/proches?lat=abc&lon=5.41') });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.fields.lat).toBe('La latitude doit être un nombre.');
    // Empty, they are missing, not the point 0, 0.
    const vides = await ctx.app.inject({ method: 'GET', url: api('/signalements/proches?lat=&lon=%20') });
    expect(vides.statusCode).toBe(400);
    expect(vides.json().error.fields).toMatchObject({ lat: 'La latitude doit être un nombre.', lon: 'La longitude doit être un nombre.' });
  });

  it('refuses coordinates that are no number (null, empty, a list) as such, not as a point outside the district, and stores nothing', async () => {
    const avant = await ctx.app.deps.db.selectFrom('signalements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const [point, champ, message] of [
      [{ lat: null, lon: '' }, 'lat', 'La latitude doit être un nombre.'],
      [{ lat: [43.529444], lon: 5.413889 }, 'lat', 'La latitude doit être un nombre.'],
      [{ lat: 43.529444, lon: true }, 'lon', 'La longitude doit être un nombre.'],
    ] as const) {
      const res = await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie(point) });
      expect(res.statusCode, JSON.stringify(point)).toBe(400);
      expect(res.json().error.code).toBe('VALIDATION');
      expect(res.json().error.fields[champ]).toBe(message);
    }
    // A number written as text (a form) is still one.
    expect((await ctx.app.inject({ method: 'POST', url: api('/signalements'), payload: saisie({ lat: '43.529444', lon: '5.413889' }) })).statusCode).toBe(201);
    const apres = await ctx.app.deps.db.selectFrom('signalements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(apres.n)).toBe(Number(avant.n) + 1);
  });
});

describe('the public list', () => {
  it('filters by category, open or closed, one state and age, newest first, in bounded pages with a total', async () => {
    const liste = async (query: string) => {
      const res = await ctx.app.inject({ method: 'GET', url: api(`/signalements?${query}`) });
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: { numero: string; etat: string; categorie: { code: string; libelle: string } }[]; total: number; totalExact: boolean; page: number; parPage: number };
    };
    const vert1 = await signaler({ categorie: 'espaces-verts' });
    const vert2 = await signaler({ categorie: 'espaces-verts' });
    const vert3 = await signaler({ categorie: 'espaces-verts' });
    await changer(vert2.numero, { etat: 'ferme', par: 'mairie' });
    await changer(vert3.numero, { etat: 'en_cours', par: 'mairie' });
    const verts = await liste('categorie=espaces-verts');
    expect(verts.data.map((d) => d.numero)).toEqual([vert3.numero, vert2.numero, vert1.numero]);
    expect(verts).toMatchObject({ total: 3, totalExact: true, page: 1, parPage: 50 });
    expect(verts.data[0]!.categorie).toEqual({ code: 'espaces-verts', libelle: 'Espaces verts' });
    expect((await liste('categorie=espaces-verts&etat=ouverts')).data.map((d) => d.numero)).toEqual([vert3.numero, vert1.numero]);
    expect((await liste('categorie=espaces-verts&etat=fermes')).data.map((d) => d.numero)).toEqual([vert2.numero]);
    expect((await liste('categorie=espaces-verts&etat=en_cours')).data.map((d) => d.numero)).toEqual([vert3.numero]);
    const page2 = await liste('categorie=espaces-verts&parPage=2&page=2');
    expect(page2).toMatchObject({ total: 3, page: 2, parPage: 2 });
    expect(page2.data.map((d) => d.numero)).toEqual([vert1.numero]);
    expect((await liste('categorie=espaces-verts&page=9')).data).toEqual([]);
    // « depuis »: a report made 10 days ago (the clock moved back for its creation) is left out of the last 7 days.
    decalageMs = -10 * 86_400_000;
    const ancien = await signaler({ categorie: 'espaces-verts' });
    decalageMs = 0;
    expect((await liste('categorie=espaces-verts')).total).toBe(4);
    expect((await liste('categorie=espaces-verts&depuis=7')).data.map((d) => d.numero)).not.toContain(ancien.numero);
    expect((await liste('categorie=espaces-verts&depuis=30')).data.map((d) => d.numero)).toContain(ancien.numero);
    const tout = await liste('');
    expect(tout.total).toBeGreaterThan(20);
    expect(JSON.stringify(tout)).not.toMatch(/@example\.org|Camille/u);
  });

  it('refuses unknown filters and a page too large in French (400)', async () => {
    for (const [query, champ] of [
      ['etat=perdu', 'etat'],
      ['parPage=500', 'parPage'],
      ['depuis=0', 'depuis'],
      ['categorie=Pas%20un%20code', 'categorie'],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url: api(`/signalements?${query}`) });
      expect(res.statusCode, query).toBe(400);
      expect(Object.keys(res.json().error.fields), query).toEqual([champ]);
    }
  });
});

describe('a report’s page', () => {
  it('shows the public view: no e-mail, the name unless hidden, the history; the reporter’s key adds estSignalant', async () => {
    const { numero, cle, email } = await signaler({ nom: 'Ali Benali', nomMasque: true });
    const anonyme = await voir(numero);
    expect(anonyme.statusCode).toBe(200);
    expect(anonyme.headers['cache-control']).toBe('private, no-store');
    const data = anonyme.json().data;
    expect(data).toMatchObject({ numero, etat: 'nouveau', auteur: null, estSignalant: false, peutAjouterPhotos: false, suiveurs: 1, doublonDe: null });
    expect(data.miseAJours).toEqual([{ le: data.creeLe, etat: 'nouveau', texte: null, par: 'signalant' }]);
    expect(anonyme.body).not.toContain(email);
    expect(anonyme.body).not.toContain('Ali Benali');
    const signalant = (await voir(numero, { 'x-access-key': cle })).json().data;
    expect(signalant).toMatchObject({ estSignalant: true, peutAjouterPhotos: true, auteur: null });
    expect((await voir(numero, { 'x-access-key': `${cle.slice(0, -1)}x` })).json().data.estSignalant).toBe(false);
    const visible = await signaler({ nom: 'Inès Moreau' });
    expect((await voir(visible.numero)).json().data.auteur).toBe('Inès Moreau');
  });

  it('leaves out moderated text, hidden photos and hidden updates', async () => {
    const { numero, cle } = await signaler({ titre: 'Un titre injurieux', description: 'Une description injurieuse' });
    const photo = await envoyerPhoto(numero, { 'x-access-key': cle }, { name: 'trou.png', content: SAMPLES.png, type: 'image/png' });
    expect(photo.statusCode).toBe(201);
    await changer(numero, { texte: 'Un texte à retirer', par: 'mairie' });
    const row = await ligne(numero);
    await repository.moderer(row.id, { titre: true, description: true });
    await repository.masquerPhoto(row.id, photo.json().data.id, true);
    const maj = (await repository.misesAJour(row.id)).find((m) => m.texte === 'Un texte à retirer')!;
    await repository.masquerMiseAJour(row.id, maj.id, true);
    const res = await voir(numero);
    expect(res.body).not.toMatch(/injurieu|à retirer/u);
    expect(res.json().data).toMatchObject({ titre: 'Voirie', description: '', titreMasque: true, descriptionMasquee: true, photos: [] });
    expect((await ctx.app.inject({ method: 'GET', url: photo.json().data.url })).statusCode).toBe(404);
    const liste = await ctx.app.inject({ method: 'GET', url: api('/signalements?parPage=200') });
    expect(liste.body).not.toContain('Un titre injurieux');
  });

  it('answers 404 in French for an unknown number and 400 for a malformed one', async () => {
    const inconnu = await voir('2020-99999');
    expect(inconnu.statusCode).toBe(404);
    expect(inconnu.json().error).toEqual({ code: 'NOT_FOUND', message: 'Il n’existe pas de signalement sous ce numéro.' });
    const mal = await voir('42');
    expect(mal.statusCode).toBe(400);
    expect(mal.json().error.message).toBe('Un numéro de signalement s’écrit comme 2026-00042 (l’année, un tiret, cinq chiffres).');
  });
});

describe('photos', () => {
  it('stores a phone’s JPEG upright, resized, with no EXIF, GPS, XMP or ICC left (read back from storage), and serves it', async () => {
    const { numero, cle } = await signaler();
    const original = await photoDeTelephone();
    const avant = await sharp(original).metadata();
    expect(avant).toMatchObject({ width: 2400, height: 1200, orientation: 6 });
    expect(avant.exif!.includes(Buffer.from([0x25, 0x88])) || avant.exif!.includes(Buffer.from([0x88, 0x25]))).toBe(true);
    expect(avant.exif!.toString('latin1')).toContain('PhoneTest');
    expect(avant.icc).toBeDefined();
    expect(avant.xmp).toBeDefined();

    const res = await envoyerPhoto(numero, { 'x-access-key': cle }, { name: 'IMG_2024.JPG', content: original, type: 'image/jpeg' });
    expect(res.statusCode, res.body).toBe(201);
    const photo = res.json().data as { id: string; url: string; largeur: number; hauteur: number };
    // Turned upright by its orientation (portrait now), its longest side brought to PHOTO_COTE_MAX.
    expect(photo).toMatchObject({ largeur: 800, hauteur: PHOTO_COTE_MAX, url: `/app/api/technique/signalements/${numero}/photos/${photo.id}` });

    const row = (await repository.photo((await ligne(numero)).id, photo.id))!;
    const stocke = fs.readFileSync(path.join(ctx.dataDir, 'photos-signalements', row.storageKey));
    const apres = await sharp(stocke).metadata();
    expect(apres).toMatchObject({ format: 'jpeg', width: 800, height: PHOTO_COTE_MAX });
    expect(apres.exif).toBeUndefined();
    expect(apres.icc).toBeUndefined();
    expect(apres.xmp).toBeUndefined();
    expect(apres.iptc).toBeUndefined();
    expect(apres.orientation).toBeUndefined();
    expect(stocke.includes(Buffer.from('Exif\0\0'))).toBe(false);
    expect(stocke.includes(Buffer.from('PhoneTest'))).toBe(false);
    expect(stocke.includes(Buffer.from('GPSLatitude'))).toBe(false);

    const servie = await ctx.app.inject({ method: 'GET', url: photo.url });
    expect(servie.statusCode).toBe(200);
    expect(servie.headers).toMatchObject({
      'content-type': 'image/jpeg',
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      'content-security-policy': "sandbox; default-src 'none'; frame-ancestors 'none'",
      // Public, and handed out by Open311 as media_url: another site may show it.
      'cross-origin-resource-policy': 'cross-origin',
    });
    expect(servie.rawPayload.equals(stocke)).toBe(true);
    expect((await voir(numero)).json().data.photos).toEqual([photo]);
  });

  it('accepts a PNG (stored as JPEG) and refuses what is not a JPEG or PNG by its content, or whose content and name disagree (415)', async () => {
    const { numero, cle } = await signaler();
    const png = await sharp({ create: { width: 30, height: 20, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).png().toBuffer();
    const ok = await envoyerPhoto(numero, { 'x-access-key': cle }, { name: 'capture.png', content: png, type: 'image/png' });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().data).toMatchObject({ largeur: 30, hauteur: 20 });
    const refus = [
      [{ name: 'document.pdf', content: SAMPLES.pdf }, 'UNSUPPORTED_FILE_TYPE'],
      [{ name: 'photo.jpg', content: SAMPLES.pdf }, 'UNSUPPORTED_FILE_TYPE'],
      [{ name: 'photo.jpg', content: SAMPLES.exe }, 'UNSUPPORTED_FILE_TYPE'],
      [{ name: 'photo.png', content: SAMPLES.jpeg }, 'FILE_TYPE_MISMATCH'],
      [{ name: 'photo.jpg', content: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1, 2, 3]) }, 'UNREADABLE_IMAGE'],
      [{ name: 'vide.jpg', content: Buffer.alloc(0) }, 'EMPTY_FILE'],
    ] as const;
    for (const [fichier, code] of refus) {
      const res = await envoyerPhoto(numero, { 'x-access-key': cle }, { ...fichier });
      expect(res.json().error.code, fichier.name).toBe(code);
      expect(res.statusCode).toBe(code === 'EMPTY_FILE' ? 400 : 415);
    }
    const json = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { 'x-access-key': cle }, payload: {} });
    expect(json.statusCode).toBe(415);
    expect((await voir(numero)).json().data.photos).toHaveLength(1);
  });

  it('takes at most 3 photos a report (413), one a call', async () => {
    const { numero, cle } = await signaler();
    const deux = await multipart([
      { field: 'photo', name: 'a.png', content: SAMPLES.png, type: 'image/png' },
      { field: 'photo', name: 'b.png', content: SAMPLES.png, type: 'image/png' },
    ]);
    const res = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...deux.headers, 'x-access-key': cle }, payload: deux.payload });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('TOO_MANY_FILES');
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await envoyerPhoto(numero, { 'x-access-key': cle }, { name: `p${i}.png`, content: SAMPLES.png })).statusCode);
    expect(codes).toEqual([201, 201, 201, 413]);
    const quatrieme = await envoyerPhoto(numero, { 'x-access-key': cle }, { name: 'p.png', content: SAMPLES.png });
    expect(quatrieme.json().error).toEqual({ code: 'PHOTOS_MAX_ATTEINT', message: 'Ce signalement a déjà 3 photos, le maximum : aucune autre ne peut être ajoutée.' });
    expect((await voir(numero, { 'x-access-key': cle })).json().data.peutAjouterPhotos).toBe(false);
  });

  it('lets two photos sent at once past the limit only up to it', async () => {
    const { numero, cle } = await signaler();
    const codes = await Promise.all(
      Array.from({ length: 5 }, async (_, i) => (await envoyerPhoto(numero, { 'x-access-key': cle }, { name: `p${i}.png`, content: SAMPLES.png })).statusCode),
    );
    expect(codes.filter((c) => c === 201)).toHaveLength(3);
    expect(await repository.compterPhotos((await ligne(numero)).id)).toBe(3);
  });

  it('closes photos an hour after the report once the town hall examined it (409), not while it is « nouveau »', async () => {
    const { numero, cle } = await signaler();
    const png = { name: 'p.png', content: SAMPLES.png };
    decalageMs = 2 * 3600_000;
    try {
      expect((await envoyerPhoto(numero, { 'x-access-key': cle }, png)).statusCode).toBe(201);
      await changer(numero, { etat: 'confirme', par: 'mairie' });
      const res = await envoyerPhoto(numero, { 'x-access-key': cle }, png);
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('PHOTOS_FERMEES');
      expect(res.json().error.message).toMatch(/^Les photos s’ajoutent dans l’heure qui suit le signalement/u);
      expect((await voir(numero, { 'x-access-key': cle })).json().data.peutAjouterPhotos).toBe(false);
    } finally {
      decalageMs = 0;
    }
    // Within the hour, a confirmed report still takes photos.
    const recent = await signaler();
    await changer(recent.numero, { etat: 'confirme', par: 'mairie' });
    expect((await envoyerPhoto(recent.numero, { 'x-access-key': recent.cle }, png)).statusCode).toBe(201);
  });
});

describe('« Toujours pas résolu »', () => {
  it('reopens a resolved report for its reporter, records it as the reporter’s, and tells the service and the followers', async () => {
    const { numero, cle, email } = await signaler();
    await changer(numero, { etat: 'resolu', texte: 'Le trou a été rebouché.', par: 'mairie' });
    const voisin = 'voisine.resolu@example.org';
    expect((await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/suivre`), payload: { email: voisin } })).statusCode).toBe(200);
    const mailsSignalant = (await mailsTo(email)).length;
    const res = await ctx.app.inject({
      method: 'POST',
      url: api(`/signalements/${numero}/toujours-pas-resolu`),
      headers: { 'x-access-key': cle },
      payload: { texte: 'Le trou est revenu après la pluie.' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.etat).toBe('confirme');
    expect(data.miseAJours.map((m: { etat: string | null; par: string }) => [m.etat, m.par])).toEqual([
      ['nouveau', 'signalant'],
      ['resolu', 'mairie'],
      ['confirme', 'signalant'],
    ]);
    expect(data.miseAJours.at(-1).texte).toBe('Le trou est revenu après la pluie.');
    expect((await ligne(numero)).ouvert).toBe(1);
    const auService = (await mailsTo(VOIRIE)).filter((m) => m.includes(numero) && m.includes('toujours pas résolu'));
    expect(auService).toHaveLength(1);
    expect(auService[0]).toContain('Le trou est revenu après la pluie.');
    expect((await mailsTo(voisin)).filter((m) => m.includes('Le trou est revenu après la pluie.'))).toHaveLength(1);
    // The reporter, who did it, is not e-mailed about it.
    expect(await mailsTo(email)).toHaveLength(mailsSignalant);
  });

  it('is refused on a report that is not resolved (409 ETAT_INCOMPATIBLE), whatever its state', async () => {
    const { numero, cle } = await signaler();
    for (const etat of ['nouveau', 'en_cours', 'ferme', 'impossible', 'hors_competence'] as const) {
      if (etat !== 'nouveau') await changer(numero, { etat, par: 'mairie' });
      const res = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/toujours-pas-resolu`), headers: { 'x-access-key': cle }, payload: {} });
      expect(res.statusCode, etat).toBe(409);
      expect(res.json().error.code).toBe('ETAT_INCOMPATIBLE');
      expect((await ligne(numero)).etat).toBe(etat);
    }
    // Without a body at all, on a resolved report: reopened, no text.
    await changer(numero, { etat: 'resolu', par: 'mairie' });
    const sansCorps = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/toujours-pas-resolu`), headers: { 'x-access-key': cle } });
    expect(sansCorps.statusCode, sansCorps.body).toBe(200);
    expect(sansCorps.json().data.miseAJours.at(-1)).toMatchObject({ etat: 'confirme', texte: null, par: 'signalant' });
  });
});

describe('followers', () => {
  it('e-mails a new follower, then each public update with a link that stops them; the link works once', async () => {
    const { numero } = await signaler();
    const voisin = 'voisin.suivi@example.org';
    const suivre = () => ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/suivre`), payload: { email: ' Voisin.Suivi@Example.ORG ' } });
    expect((await suivre()).json()).toEqual({ data: { suivi: true } });
    // Following again changes nothing and sends nothing.
    expect((await suivre()).statusCode).toBe(200);
    const confirmations = await mailsTo(voisin);
    expect(confirmations).toHaveLength(1);
    expect(confirmations[0]).toContain(`Vous suivez désormais le signalement n° ${numero}`);
    expect((await voir(numero)).json().data.suiveurs).toBe(2);

    await changer(numero, { etat: 'planifie', texte: 'Intervention le 12 mars.', par: 'mairie' });
    const [, miseAJour] = await mailsTo(voisin);
    expect(miseAJour).toContain('Nouvel état : Planifié.');
    expect(miseAJour).toContain('Intervention le 12 mars.');
    const jeton = jetonDans(miseAJour!, 'desabonnement')!;
    expect(jeton).toBe(jetonDans(confirmations[0]!, 'desabonnement'));
    // Only the token's hash is stored.
    const stockes = await ctx.app.deps.db.selectFrom('signalementSuiveurs').select('jetonHash').execute();
    expect(stockes.some((s) => s.jetonHash.includes(jeton))).toBe(false);

    const stop = await ctx.app.inject({ method: 'POST', url: api('/desabonnement'), payload: { jeton } });
    expect(stop.json()).toEqual({ data: { quoi: 'suivi', numero } });
    await changer(numero, { etat: 'en_cours', par: 'mairie' });
    expect(await mailsTo(voisin)).toHaveLength(2);
    const encore = await ctx.app.inject({ method: 'POST', url: api('/desabonnement'), payload: { jeton } });
    expect(encore.statusCode).toBe(404);
    expect(encore.json().error.message).toMatch(/^Ce lien n’est pas \(ou plus\) valable/u);
    const faux = await ctx.app.inject({ method: 'POST', url: api('/desabonnement'), payload: { jeton: 'x'.repeat(43) } });
    expect(faux.statusCode).toBe(404);
  });

  it('moves a duplicate’s followers to the original, telling them', async () => {
    const original = await signaler();
    const doublon = await signaler();
    const voisin = 'voisin.doublon@example.org';
    await ctx.app.inject({ method: 'POST', url: api(`/signalements/${doublon.numero}/suivre`), payload: { email: voisin } });
    await changer(doublon.numero, { etat: 'doublon', doublonDe: original.numero, par: 'mairie' });
    expect((await voir(doublon.numero)).json().data).toMatchObject({ etat: 'doublon', doublonDe: original.numero });
    const courriels = (await repository.suiveurs((await ligne(original.numero)).id)).map((s) => s.email).sort();
    expect(courriels).toEqual([doublon.email, original.email, voisin].sort());
    expect((await mailsTo(voisin)).at(-1)).toContain(`http://quartier.test/technique/${original.numero}`);
    await expect(changer(original.numero, { etat: 'doublon', doublonDe: original.numero, par: 'mairie' })).rejects.toMatchObject({ statusCode: 400 });
  });
});

describe('area alerts', () => {
  it('are confirmed by an e-mailed link before any alert leaves, then e-mail each new report with a link that stops them', async () => {
    const email = 'alerte.quartier@example.org';
    const demander = () => ctx.app.inject({ method: 'POST', url: api('/alertes'), payload: { email } });
    const res = await demander();
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ data: { envoye: true } });
    // Asked again at once: the same answer, no second e-mail.
    expect((await demander()).statusCode).toBe(202);
    const [confirmation] = await mailsTo(email);
    expect(await mailsTo(email)).toHaveLength(1);
    const jeton = jetonDans(confirmation!, 'alertes/confirmation')!;
    expect(jeton).toBeTruthy();

    const avant = await signaler({ titre: 'Avant la confirmation' });
    expect((await mailsTo(email)).some((m) => m.includes(avant.numero))).toBe(false);

    expect((await ctx.app.inject({ method: 'POST', url: api('/alertes/confirmer'), payload: { jeton } })).json()).toEqual({ data: { confirme: true } });
    expect((await ctx.app.inject({ method: 'POST', url: api('/alertes/confirmer'), payload: { jeton } })).statusCode).toBe(200);
    const apres = await signaler({ titre: 'Lampadaire éteint', categorie: 'eclairage' });
    const alerte = (await mailsTo(email)).find((m) => m.includes(apres.numero));
    expect(alerte).toContain('Lampadaire éteint');
    expect(alerte).toContain(`http://quartier.test/technique/${apres.numero}`);
    expect(alerte).not.toContain(apres.email);
    // The reporter's own alert does not tell them of their own report.
    const propre = await signaler({ email });
    expect((await mailsTo(email)).filter((m) => m.includes(propre.numero) && m.includes('Nouveau signalement'))).toHaveLength(0);

    const stop = jetonDans(alerte!, 'desabonnement')!;
    expect((await ctx.app.inject({ method: 'POST', url: api('/desabonnement'), payload: { jeton: stop } })).json()).toEqual({ data: { quoi: 'alerte', numero: null } });
    const nombre = (await mailsTo(email)).length;
    await signaler();
    expect(await mailsTo(email)).toHaveLength(nombre);
  });

  it('leave through the outbox, written in the creation’s transaction', async () => {
    const email = 'alerte.outbox@example.org';
    await ctx.app.inject({ method: 'POST', url: api('/alertes'), payload: { email } });
    const jeton = jetonDans((await mailsTo(email))[0]!, 'alertes/confirmation')!;
    await ctx.app.inject({ method: 'POST', url: api('/alertes/confirmer'), payload: { jeton } });
    const { numero } = await signaler();
    const rows = await ctx.app.deps.db.selectFrom('mailOutbox').select(['recipient', 'subject', 'sentAt']).where('recipient', '=', email).execute();
    expect(rows.filter((r) => r.subject.includes('Nouveau signalement'))).toHaveLength(1);
    await mailsTo(email);
    const envoyes = await ctx.app.deps.db.selectFrom('mailOutbox').select(['sentAt']).where('recipient', '=', email).execute();
    expect(envoyes.every((r) => r.sentAt !== null)).toBe(true);
    expect((await mailsTo(email)).some((m) => m.includes(numero))).toBe(true);
  });
});

describe('who may do what', () => {
  it('lets only the reporter (private key or owning account) add photos and say « Toujours pas résolu »; anyone reads and follows', async () => {
    const { numero, cle } = await signaler({}, { cookie: proprietaire.cookie });
    const qui: [string, Record<string, string>, boolean][] = [
      ['anonymous', {}, false],
      ['another resident', { cookie: habitant.cookie }, false],
      ['a manager', { cookie: manager.cookie }, false],
      ['an admin', { cookie: admin.cookie }, false],
      ['a wrong key', { 'x-access-key': 'a'.repeat(43) }, false],
      ['the key', { 'x-access-key': cle }, true],
      ['the owning account', { cookie: proprietaire.cookie }, true],
    ];
    const matrice: Record<string, Record<string, number>> = {};
    for (const [label, headers, signalant] of qui) {
      await changer(numero, { etat: 'resolu', par: 'mairie' });
      const ligneMatrice = (matrice[label] = {} as Record<string, number>);
      ligneMatrice.voir = (await voir(numero, headers)).statusCode;
      expect((await voir(numero, headers)).json().data.estSignalant, label).toBe(signalant);
      ligneMatrice.liste = (await ctx.app.inject({ method: 'GET', url: api('/signalements'), headers })).statusCode;
      ligneMatrice.proches = (await ctx.app.inject({ method: 'GET', url: api(`/signalements/proches?lat=${CENTRE.lat}&lon=${CENTRE.lon}`), headers })).statusCode;
      ligneMatrice.photo = (await envoyerPhoto(numero, headers, { name: 'p.png', content: SAMPLES.png })).statusCode;
      ligneMatrice.nonResolu = (await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/toujours-pas-resolu`), headers, payload: {} })).statusCode;
      ligneMatrice.suivre = (await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/suivre`), headers, payload: { email: 'matrice@example.org' } })).statusCode;
      // Photos are capped at 3: the photos of this matrix are taken back after each caller.
      const row = await ligne(numero);
      await ctx.app.deps.db.deleteFrom('signalementPhotos').where('signalementId', '=', row.id).execute();
    }
    const attendu = (signalant: boolean) => ({ voir: 200, liste: 200, proches: 200, photo: signalant ? 201 : 403, nonResolu: signalant ? 200 : 403, suivre: 200 });
    expect(matrice).toEqual(Object.fromEntries(qui.map(([label, , signalant]) => [label, attendu(signalant)])));
    const refus = await envoyerPhoto(numero, { cookie: habitant.cookie }, { name: 'p.png', content: SAMPLES.png });
    expect(refus.json().error).toEqual({
      code: 'FORBIDDEN',
      message: 'Seule la personne qui a fait le signalement peut faire cela : ouvrez le lien de suivi reçu par e-mail lors du signalement, ou connectez-vous avec le compte qui l’a fait.',
    });
  });
});

describe('live events over HTTP', () => {
  it('streams a report’s changes on /technique/evenements?numero=, and refuses an unknown number (404)', async () => {
    const base = (await surUnPort(ctx.app)).base;
    expect((await fetch(`${base}/app/api/technique/evenements?numero=2020-99999`)).status).toBe(404);
    const ecoute = ecouter();
    const { numero } = await signaler();
    await ecoute.jusqua((e) => e.numero === numero);
    ecoute.stop();
    const controller = new AbortController();
    const res = await fetch(`${base}/app/api/technique/evenements?numero=${numero}`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-store, no-transform');
    const reader = res.body!.getReader();
    let texte = '';
    const lire = async (jusqua: (t: string) => boolean) => {
      while (!jusqua(texte)) {
        const { value, done } = await reader.read();
        if (done) break;
        texte += new TextDecoder().decode(value);
      }
    };
    await lire((t) => t.includes('retry:'));
    await signaler();
    await changer(numero, { etat: 'en_cours', par: 'mairie' });
    await lire((t) => t.includes('en_cours'));
    controller.abort();
    const evenements = texte.split('\n\n').filter((b) => b.startsWith('event: signalement'));
    expect(evenements).toHaveLength(1);
    expect(JSON.parse(evenements[0]!.split('data: ')[1]!)).toMatchObject({ numero, etat: 'en_cours', de: 'nouveau' });
  });
});
