import { createHash } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pointA } from '../src/domain/geometrie.js';
import { MESSAGES_OPEN311, OPEN311_SPECIFICATION } from '../src/domain/open311.js';
import { CATEGORIES_PAR_DEFAUT, HORS_PERIMETRE } from '../src/domain/signalements.js';
import { authSecret } from '../src/server/auth/secret.js';
import { SignalementsRepository } from '../src/server/features/signalements/repository.js';
import { SignalementsService } from '../src/server/features/signalements/service.js';
import { LocalStorage } from '../src/server/storage/index.js';
import { BAD_BODIES, BAD_PARAMS, BAD_QUERIES, send } from './generated-inputs.js';
import { createAccount, createTestApp, mailsTo, multipart, SANS_LIMITES_SIGNALEMENTS, surUnPort, type TestContext } from './helpers.js';

/**
 * Open311 GeoReport v2 (issue 14 point 6; docs/api.md « Open311 GeoReport v2 »): discovery, services, service
 * definitions, requests read with the standard filters, requests posted with an admin-issued api_key (form-encoded
 * and JSON), the specification's error format, CORS, rate limits, and the admins' keys. Every answer is compared
 * with the specification's own examples (field names and types). A real database per file (SQLite, or PostgreSQL
 * with DATABASE_URL).
 */

// --- The specification's examples ----------------------------------------------------------------------
// From open311/open311.github.io (commit d65f0b9): GeoReport/v2/index.md and Service_Discovery.md, the JSON tabs.
// The specification writes some codes as bare numbers with leading zeros (`"service_code":006`, not valid
// JSON): they are identifiers, written here as strings; `service_request_id` and `address_id`, numbers in the
// examples, are identifiers too (ours read `2026-00042`).

const EXEMPLE_DISCOVERY = {
  changeset: '2011-02-03 14:18',
  contact: 'You can email or call for assistance api@mycity.org +1 (555) 555-5555',
  key_service: 'You can request a key here: http://api.mycity.gov/api_key/request',
  endpoints: [
    { specification: 'http://wiki.open311.org/GeoReport_v2', url: 'http://open311.mycity.gov/v2', changeset: '2010-11-23 09:01', type: 'production', formats: ['text/xml'] },
    { specification: 'http://wiki.open311.org/GeoReport_v2', url: 'http://open311.mycity.gov/test/v2', changeset: '2010-10-02 09:01', type: 'test', formats: ['text/xml', 'application/json'] },
  ],
};

const EXEMPLE_SERVICES = [
  {
    service_code: '001',
    service_name: 'Cans left out 24x7',
    description: 'Garbage or recycling cans that have been left out for more than 24 hours after collection. Violators will be cited.',
    metadata: true,
    type: 'realtime',
    keywords: 'lorem, ipsum, dolor',
    group: 'sanitation',
  },
  {
    service_code: '002',
    metadata: true,
    type: 'realtime',
    keywords: 'lorem, ipsum, dolor',
    group: 'street',
    service_name: 'Construction plate shifted',
    description: 'Metal construction plate covering the street or sidewalk has been moved.',
  },
];

const EXEMPLE_DEFINITION = {
  service_code: 'DMV66',
  attributes: [
    {
      variable: true,
      code: 'WHISHETN',
      datatype: 'singlevaluelist',
      required: true,
      datatype_description: null,
      order: 1,
      description: 'What is the ticket/tag/DL number?',
      values: [
        { key: 123, name: 'Ford' },
        { key: 124, name: 'Chrysler' },
      ],
    },
  ],
};

/** The POST example's body, as the specification sends it (form-encoded), `api_key`, code and point to be replaced. */
const EXEMPLE_POST_CORPS =
  'api_key=xyz&jurisdiction_id=city.gov&service_code=001&lat=37.76524078&long=-122.4212043&address_string=1234+5th+street&email=smit333%40sfgov.edu&device_id=tt222111&account_id=123456&first_name=john&last_name=smith&phone=111111111&description=A+large+sinkhole+is+destroying+the+street&media_url=http%3A%2F%2Ffarm3.static.flickr.com%2F2002%2F2212426634_5ed477a060.jpg&attribute[WHISPAWN]=123456&attribute[WHISDORN]=COISL001';

const EXEMPLE_POST_REPONSE = [
  {
    service_request_id: 293944,
    service_notice:
      'The City will inspect and require the responsible party to correct within 24 hours and/or issue a Correction Notice or Notice of Violation of the Public Works Code',
    account_id: null,
  },
];

const EXEMPLE_REQUETES = [
  {
    service_request_id: 638344,
    status: 'closed',
    status_notes: 'Duplicate request.',
    service_name: 'Sidewalk and Curb Issues',
    service_code: '006',
    description: null,
    agency_responsible: null,
    service_notice: null,
    requested_datetime: '2010-04-14T06:37:38-08:00',
    updated_datetime: '2010-04-14T06:37:38-08:00',
    expected_datetime: '2010-04-15T06:37:38-08:00',
    address: '8TH AVE and JUDAH ST',
    address_id: 545483,
    zipcode: 94122,
    lat: 37.762221815,
    long: -122.4651145,
    media_url: 'http://city.gov.s3.amazonaws.com/requests/media/638344.jpg',
  },
];

const EXEMPLE_ERREURS = [{ code: 403, description: "Invalid api_key received -- can't proceed with create_request." }];

/** Fields the specification's examples write as numbers but that are identifiers: a string is as good. */
const IDENTIFIANTS = new Set(['service_request_id', 'service_code', 'address_id', 'zipcode', 'key']);
/** A W3C date-time with its time zone (http://www.w3.org/TR/NOTE-datetime), as every date must be. */
const W3C = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/u;

/**
 * Whether `ours` has the example's shape: the same field names (none missing, none added), and for each the
 * example's JSON type, or null where the example has null or the field is optional, or a string for an
 * identifier. Arrays are compared item by item with the example's first item.
 */
function memeForme(ours: unknown, exemple: unknown, chemin = '$', facultatifs: ReadonlySet<string> = new Set()): void {
  if (Array.isArray(exemple)) {
    expect(Array.isArray(ours), `${chemin} is an array`).toBe(true);
    if (exemple.length > 0) for (const [i, item] of (ours as unknown[]).entries()) memeForme(item, exemple[0], `${chemin}[${i}]`, facultatifs);
    return;
  }
  if (exemple !== null && typeof exemple === 'object') {
    expect(ours !== null && typeof ours === 'object' && !Array.isArray(ours), `${chemin} is an object`).toBe(true);
    expect(Object.keys(ours as object).sort(), `${chemin}'s fields`).toEqual(Object.keys(exemple).sort());
    for (const [cle, valeur] of Object.entries(exemple)) {
      const nom = `${chemin}.${cle}`;
      const notre = (ours as Record<string, unknown>)[cle];
      if (notre === null && (valeur === null || facultatifs.has(cle))) continue;
      if (valeur === null) expect(['string', 'number', 'boolean'], nom).toContain(typeof notre);
      else if (IDENTIFIANTS.has(cle) && typeof valeur === 'number') expect(typeof notre, nom).toBe('string');
      else if (typeof valeur === 'object') memeForme(notre, valeur, nom, facultatifs);
      else expect(typeof notre, nom).toBe(typeof valeur);
    }
  }
}

/** The GET request fields the specification says « may not be returned » (or that we may not know). */
const FACULTATIFS_REQUETE = new Set(['status_notes', 'description', 'agency_responsible', 'service_notice', 'expected_datetime', 'address', 'address_id', 'zipcode', 'media_url']);

// --- The app --------------------------------------------------------------------------------------------

let ctx: TestContext;
let admin: Awaited<ReturnType<typeof createAccount>>;
let manager: Awaited<ReturnType<typeof createAccount>>;
let habitant: Awaited<ReturnType<typeof createAccount>>;
let repository: SignalementsRepository;
let service: SignalementsService;
let apiKey: string;
const sansLog = { error: () => undefined, warn: () => undefined, info: () => undefined } as never;

const CENTRE = { lat: 43.529444, lon: 5.413889 };
let points = 0;
/** Far apart inside the district. */
const unPoint = () => {
  points += 1;
  return pointA(CENTRE, 120 + 90 * (points % 6), (points * 53) % 360);
};
const DEHORS = { lat: 43.6, lon: 5.5 };

const SANS_LIMITES = { ...SANS_LIMITES_SIGNALEMENTS, open311: false, open311Cle: false } as const;

const V2 = '/open311/v2';
const get = (url: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'GET', url: `${V2}${url}`, headers });
const FORM = { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' };
const posterForm = (body: string, headers: Record<string, string> = {}) => ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { ...FORM, ...headers }, payload: body });
const posterJson = (body: unknown) => ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, payload: body as Record<string, unknown> });

async function emettreCle(libelle = 'Logiciel de la voirie', cookie = admin.cookie) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/open311/cles', headers: { cookie }, payload: { libelle } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { cle: { id: string; libelle: string }; apiKey: string };
}

let compteur = 0;
/** A valid JSON body of POST requests.json; override any field. */
function corps(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  compteur += 1;
  const point = unPoint();
  return {
    api_key: apiKey,
    service_code: 'voirie',
    lat: point.lat,
    long: point.lon,
    address_string: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
    email: `open311-${compteur}@example.org`,
    first_name: 'Camille',
    last_name: 'Martin',
    phone: '0611223344',
    description: `Nid-de-poule n° ${compteur} devant l’école`,
    ...overrides,
  };
}

async function creer(overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await posterJson(corps(overrides));
  expect(res.statusCode, res.body).toBe(200);
  return res.json()[0].service_request_id as string;
}

/** Whether an answer is an Open311 error: an array of `{ code, description }`, `code` the HTTP status, French text. */
function expectErreur(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, description?: string | RegExp): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/u);
  const corpsErreur = JSON.parse(res.body) as { code: number; description: string }[];
  memeForme(corpsErreur, EXEMPLE_ERREURS);
  expect(corpsErreur.length).toBeGreaterThan(0);
  for (const e of corpsErreur) {
    expect(e.code).toBe(status);
    expect(e.description.length).toBeGreaterThan(10);
  }
  if (typeof description === 'string') expect(corpsErreur.map((e) => e.description)).toContain(description);
  else if (description) expect(corpsErreur.map((e) => e.description).join(' | ')).toMatch(description);
}

const compterSignalements = async () =>
  Number((await ctx.app.deps.db.selectFrom('signalements').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

beforeAll(async () => {
  ctx = await createTestApp({}, { rateLimits: SANS_LIMITES });
  const { db, dbKind, mailer, bus, config, territory, now } = ctx.app.deps;
  repository = new SignalementsRepository(db, dbKind);
  // The managers' side is another feature: their state changes and moderation go through the same service and repository.
  service = new SignalementsService({
    repository,
    storage: new LocalStorage(path.join(ctx.dataDir, 'photos-signalements')),
    mailer,
    bus,
    config,
    secret: authSecret(config),
    perimetre: territory.perimetre,
    now,
  });
  admin = await createAccount(ctx, 'admin');
  manager = await createAccount(ctx, 'manager');
  habitant = await createAccount(ctx, 'habitant');
  apiKey = (await emettreCle()).apiKey;
});
afterAll(async () => {
  await ctx.close();
});

describe('discovery', () => {
  it('answers the specification’s discovery document: our endpoint, JSON only, with CORS for any site', async () => {
    const res = await get('/discovery.json');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const d = res.json();
    memeForme(d, EXEMPLE_DISCOVERY);
    expect(d.endpoints).toEqual([{ specification: OPEN311_SPECIFICATION, url: 'http://quartier.test/open311/v2', changeset: d.changeset, type: 'production', formats: ['application/json'] }]);
    expect(d.contact).toContain('Jas de Bouffan');
    expect(d.key_service).toMatch(/clés d’API/u);
  });

  it('refuses another format with 400 « only JSON », and an unknown resource with 404, in the Open311 format', async () => {
    expectErreur(await get('/discovery.xml'), 400, MESSAGES_OPEN311.formatJsonSeulement);
    expectErreur(await get('/services.xml'), 400, MESSAGES_OPEN311.formatJsonSeulement);
    expectErreur(await get('/requests.xml'), 400, MESSAGES_OPEN311.formatJsonSeulement);
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.xml`, headers: FORM, payload: 'api_key=x' }), 400, MESSAGES_OPEN311.formatJsonSeulement);
    expectErreur(await get('/tokens/123.json'), 404, MESSAGES_OPEN311.ressourceIntrouvable);
    // A resource that exists, with a method it does not take: 405, with what it takes.
    const put = await ctx.app.inject({ method: 'PUT', url: `${V2}/requests.json`, headers: FORM, payload: 'api_key=x' });
    expectErreur(put, 405, MESSAGES_OPEN311.methodeNonProposee);
    expect(put.headers.allow).toBe('GET, HEAD, POST');
    const suppression = await ctx.app.inject({ method: 'DELETE', url: `${V2}/requests/2026-00001.json` });
    expectErreur(suppression, 405, MESSAGES_OPEN311.methodeNonProposee);
    expect(suppression.headers.allow).toBe('GET, HEAD');
    expectErreur(await get(''), 404);
    expectErreur(await get('/'), 404);
  });
});

describe('services', () => {
  it('lists the categories in use as services, in the specification’s shape', async () => {
    const res = await get('/services.json?jurisdiction_id=aixenprovence.fr');
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const services = res.json() as Record<string, unknown>[];
    memeForme(services, EXEMPLE_SERVICES);
    expect(services.map((s) => s.service_code)).toEqual(CATEGORIES_PAR_DEFAUT.map((c) => c.code));
    expect(services[0]).toEqual({
      service_code: 'voirie',
      service_name: 'Voirie',
      description: 'Chaussée ou trottoir abîmé, nid-de-poule, signalisation au sol',
      metadata: false,
      type: 'realtime',
      keywords: 'voirie, chaussée ou trottoir abîmé, nid-de-poule, signalisation au sol',
      group: 'Espace public',
    });
  });

  it('leaves out a category no longer offered, and gives it no definition', async () => {
    await ctx.app.deps.db.updateTable('signalementCategories').set({ active: 0 }).where('code', '=', 'autre').execute();
    try {
      expect((await get('/services.json')).json().map((s: { service_code: string }) => s.service_code)).not.toContain('autre');
      expectErreur(await get('/services/autre.json'), 404, MESSAGES_OPEN311.serviceInconnu);
    } finally {
      await ctx.app.deps.db.updateTable('signalementCategories').set({ active: 1 }).where('code', '=', 'autre').execute();
    }
  });

  it('defines a service with no attributes, in the specification’s shape; 404 for an unknown code, 400 for XML', async () => {
    const res = await get('/services/eclairage.json');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ service_code: 'eclairage', attributes: [] });
    memeForme(res.json(), EXEMPLE_DEFINITION);
    expectErreur(await get('/services/inconnu.json'), 404, MESSAGES_OPEN311.serviceInconnu);
    expectErreur(await get('/services/PAS%20UN%20CODE.json'), 404, MESSAGES_OPEN311.serviceInconnu);
    expectErreur(await get('/services/eclairage.xml'), 400, MESSAGES_OPEN311.formatJsonSeulement);
    expectErreur(await get('/services/eclairage'), 400, MESSAGES_OPEN311.formatJsonSeulement);
  });
});

describe('POST requests.json', () => {
  it('creates a report from the specification’s own form-encoded example (our key, code and point), answering its shape', async () => {
    const point = unPoint();
    const body = EXEMPLE_POST_CORPS.replace('api_key=xyz', `api_key=${encodeURIComponent(apiKey)}`)
      .replace('service_code=001', 'service_code=eclairage')
      .replace('lat=37.76524078', `lat=${point.lat}`)
      .replace('long=-122.4212043', `long=${point.lon}`);
    const avant = await compterSignalements();
    const res = await posterForm(body);
    expect(res.statusCode, res.body).toBe(200);
    memeForme(res.json(), EXEMPLE_POST_REPONSE);
    const [cree] = res.json() as { service_request_id: string; service_notice: string; account_id: null }[];
    expect(cree!.service_request_id).toMatch(/^\d{4}-\d{5}$/u);
    expect(cree!.account_id).toBeNull();
    expect(res.json()[0]).not.toHaveProperty('token');
    expect(cree!.service_notice).toContain(cree!.service_request_id);
    expect(await compterSignalements()).toBe(avant + 1);

    const row = (await repository.parNumero(cree!.service_request_id))!;
    expect(row).toMatchObject({
      categorie: 'eclairage',
      titre: 'A large sinkhole is destroying the street',
      adresse: '1234 5th street',
      email: 'smit333@sfgov.edu',
      nom: 'john smith',
      // Another tool asked the person nothing: the name is not shown publicly.
      nomMasque: 1,
      etat: 'nouveau',
      ownerUserId: null,
    });
    // media_url is kept as a link, never fetched; the phone, device and account ids are not kept.
    expect(row.description).toBe('A large sinkhole is destroying the street\n\nPhoto : http://farm3.static.flickr.com/2002/2212426634_5ed477a060.jpg');
    expect(row.lat).toBeCloseTo(point.lat, 9);
    expect(JSON.stringify(row)).not.toMatch(/111111111|tt222111|123456|WHIS|COISL001/u);
    // The same mails as a report from the site: the follow link to the reporter.
    const mails = await mailsTo(ctx, 'smit333@sfgov.edu');
    expect(mails).toHaveLength(1);
    expect(mails[0]).toContain(`/technique/${cree!.service_request_id}#cle=`);
  });

  it('creates a report from a JSON body too; the description’s first line makes its title', async () => {
    const longue = `${'Lampadaire éteint depuis trois semaines à l’angle de la rue, '.repeat(3)}\nDétails : il clignote la nuit.`;
    const res = await posterJson(corps({ service_code: 'eclairage', description: longue, attribute: { X: '1' }, jurisdiction_id: 'aixenprovence.fr' }));
    expect(res.statusCode, res.body).toBe(200);
    const row = (await repository.parNumero(res.json()[0].service_request_id))!;
    expect(row.titre.length).toBeLessThanOrEqual(80);
    expect(row.titre).toMatch(/^Lampadaire éteint depuis trois semaines.*…$/u);
    expect(row.description).toBe(longue.trim());
    // Without a description, the service’s name.
    const sans = (await repository.parNumero(await creer({ description: '', service_code: 'proprete' })))!;
    expect(sans).toMatchObject({ titre: 'Propreté', description: '' });
  });

  it('refuses a missing, wrong or revoked api_key with 403 before reading anything else, creating nothing', async () => {
    const avant = await compterSignalements();
    const { api_key: _cle, ...sansCle } = corps();
    expectErreur(await posterJson(sansCle), 403, MESSAGES_OPEN311.cleManquante);
    expectErreur(await posterJson({ ...sansCle, api_key: '' }), 403, MESSAGES_OPEN311.cleManquante);
    expectErreur(await posterJson({ ...sansCle, api_key: 'xyz' }), 403, MESSAGES_OPEN311.cleInvalide);
    expectErreur(await posterJson({ ...sansCle, api_key: `${apiKey}x` }), 403, MESSAGES_OPEN311.cleInvalide);
    expectErreur(await posterJson({ ...sansCle, api_key: 12 }), 403, MESSAGES_OPEN311.cleInvalide);
    expectErreur(await posterForm(`api_key=${encodeURIComponent(apiKey)}&api_key=${encodeURIComponent(apiKey)}&service_code=voirie`), 403, MESSAGES_OPEN311.cleInvalide);
    // A bad key is refused even when the rest is wrong too.
    expectErreur(await posterJson({ api_key: 'xyz', lat: 'nord' }), 403, MESSAGES_OPEN311.cleInvalide);
    expectErreur(await posterForm(''), 403, MESSAGES_OPEN311.cleManquante);

    const revoquee = await emettreCle('Clé à révoquer');
    expect((await posterJson(corps({ api_key: revoquee.apiKey }))).statusCode).toBe(200);
    const res = await ctx.app.inject({ method: 'POST', url: `/app/api/open311/cles/${revoquee.cle.id}/revoquer`, headers: { cookie: admin.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.revoqueeLe).not.toBeNull();
    expectErreur(await posterJson(corps({ api_key: revoquee.apiKey })), 403, MESSAGES_OPEN311.cleInvalide);
    expect(await compterSignalements()).toBe(avant + 1);
  });

  it('refuses missing or wrong fields with 400, one error per problem, in French', async () => {
    const avant = await compterSignalements();
    expectErreur(await posterJson(corps({ service_code: undefined })), 400, /service_code est obligatoire/u);
    expectErreur(await posterJson(corps({ service_code: 'Voirie !' })), 400, /service_code : un code de service/u);
    // Only an address: we need the point.
    expectErreur(await posterJson(corps({ lat: undefined, long: undefined })), 400, MESSAGES_OPEN311.positionObligatoire);
    expectErreur(await posterForm(`api_key=${encodeURIComponent(apiKey)}&service_code=voirie&address_string=1+avenue+Marcel-Pagnol&email=a%40b.fr`), 400, MESSAGES_OPEN311.positionObligatoire);
    expectErreur(await posterJson(corps({ lat: undefined, long: undefined, address_string: undefined, address_id: '545483' })), 400, MESSAGES_OPEN311.positionObligatoire);
    expectErreur(await posterJson(corps({ long: '' })), 400, MESSAGES_OPEN311.positionIncomplete);
    // Blank is missing too, not 0 (a point outside the district).
    expectErreur(await posterForm(`api_key=${encodeURIComponent(apiKey)}&service_code=voirie&lat=%20&long=5.413889&email=a%40b.fr`), 400, MESSAGES_OPEN311.positionIncomplete);
    expectErreur(await posterJson(corps({ lat: [43.529444] })), 400, 'lat doit être un nombre (degrés WGS 84).');
    expectErreur(await posterJson(corps({ lat: 'nord' })), 400, 'lat doit être un nombre (degrés WGS 84).');
    expectErreur(await posterJson(corps({ lat: 95 })), 400, 'lat est entre -90 et 90.');
    // The e-mail: required here (docs/decisions/0017-open311.md).
    expectErreur(await posterJson(corps({ email: undefined })), 400, MESSAGES_OPEN311.emailObligatoire);
    expectErreur(await posterJson(corps({ email: 'pas-une-adresse' })), 400, 'email : L’adresse e-mail n’est pas valable.');
    expectErreur(await posterJson(corps({ description: 'x'.repeat(2001) })), 400, /description dépasse 2000 caractères/u);
    // The link is kept after the description: the two together must fit, and the message says by how much to shorten.
    expectErreur(
      await posterJson(corps({ description: 'x'.repeat(1990), media_url: 'https://example.org/photo.jpg' })),
      400,
      'description : La description et le lien media_url, gardé à sa suite, dépassent ensemble 2000 caractères : raccourcissez la description de 29 caractères.',
    );
    expectErreur(await posterJson(corps({ media_url: 'javascript:alert(1)' })), 400, /media_url doit être une adresse web/u);
    expectErreur(await posterJson(corps({ first_name: 'x'.repeat(60), last_name: 'y'.repeat(60) })), 400, /first_name, last_name : Le nom dépasse 100 caractères/u);
    // Two wrong fields: two errors.
    const deux = await posterJson(corps({ lat: 'nord', email: 7 }));
    expectErreur(deux, 400);
    expect(deux.json()).toHaveLength(2);
    // Bodies Open311 does not speak.
    // A body no argument can be read from (a text, a JSON list): said as such, not as a missing key, key sent or not.
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { 'content-type': 'text/plain' }, payload: 'bonjour' }), 400, MESSAGES_OPEN311.corpsNonObjet);
    expectErreur(
      await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { 'content-type': 'text/plain' }, payload: `api_key=${encodeURIComponent(apiKey)}&service_code=voirie` }),
      400,
      MESSAGES_OPEN311.corpsNonObjet,
    );
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify([corps({})]) }), 400, MESSAGES_OPEN311.corpsNonObjet);
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { 'content-type': 'application/xml' }, payload: '<a/>' }), 400);
    const fichier = await multipart([{ field: 'media', name: 'photo.jpg', content: Buffer.from('x') }]);
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: fichier.headers, payload: fichier.payload }), 400, MESSAGES_OPEN311.multipart);
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { 'content-type': 'application/json' }, payload: '{"api_key":' }), 400);
    expectErreur(await posterForm(`api_key=${encodeURIComponent(apiKey)}&service_code=voirie%00`), 400);
    expect(await compterSignalements()).toBe(avant);
    // Exactly 2000 with the link passes.
    expect((await posterJson(corps({ description: 'x'.repeat(1961), media_url: 'https://example.org/photo.jpg' }))).statusCode).toBe(200);
    expect(await compterSignalements()).toBe(avant + 1);
  });

  it('refuses a point outside the district with the site’s message (400), and an unknown service with 404', async () => {
    const avant = await compterSignalements();
    const dehors = await posterJson(corps({ lat: DEHORS.lat, long: DEHORS.lon }));
    expectErreur(dehors, 400, HORS_PERIMETRE);
    expect(dehors.json()).toHaveLength(1);
    expectErreur(await posterJson(corps({ service_code: 'graffitis' })), 404, MESSAGES_OPEN311.serviceInconnu);
    expect(await compterSignalements()).toBe(avant);
  });

  it('gives no CORS to writes: a browser of another site may not post (preflight offers GET and HEAD only)', async () => {
    const res = await posterJson(corps());
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: `${V2}/requests.json`,
      headers: { origin: 'https://autre.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, HEAD');
    expect(String(preflight.headers['access-control-allow-headers'] ?? '')).not.toMatch(/content-type/iu);
    // The session cookie plays no part: a signed-in admin without a key is refused like anyone.
    expectErreur(await ctx.app.inject({ method: 'POST', url: `${V2}/requests.json`, headers: { cookie: admin.cookie }, payload: { ...corps(), api_key: undefined } }), 403);
  });
});

describe('GET requests.json and requests/{id}.json', () => {
  let ouvert: string;
  let ferme: string;
  let eclairage: string;
  let ancien: string;
  let modere: string;

  beforeAll(async () => {
    ouvert = await creer({ service_code: 'voirie' });
    ferme = await creer({ service_code: 'voirie' });
    eclairage = await creer({ service_code: 'eclairage' });
    ancien = await creer({ service_code: 'voirie' });
    modere = await creer({ service_code: 'proprete', description: 'Dépôt sauvage\nAppelez Jean Dupont au 06 12 34 56 78' });
    const id = async (numero: string) => (await repository.parNumero(numero))!.id;
    await service.publierMiseAJour(await id(ferme), { etat: 'en_cours', texte: 'Une équipe passe cette semaine.', par: 'mairie' }, sansLog);
    await service.publierMiseAJour(await id(ferme), { etat: 'resolu', texte: 'Trou rebouché le 12.', par: 'mairie' }, sansLog);
    const cent = new Date(Date.now() - 100 * 86_400_000).toISOString();
    await ctx.app.deps.db.updateTable('signalements').set({ creeLe: cent, misAJourLe: cent }).where('numero', '=', ancien).execute();
  });

  const requetes = async (query = '') => {
    const res = await get(`/requests.json${query}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const liste = res.json() as Record<string, unknown>[];
    memeForme(liste, EXEMPLE_REQUETES, '$', FACULTATIFS_REQUETE);
    return liste;
  };
  const ids = (liste: Record<string, unknown>[]) => liste.map((r) => r.service_request_id);

  it('answers the last 90 days, newest first, in the specification’s shape with W3C dates', async () => {
    const liste = await requetes();
    expect(ids(liste)).toEqual(expect.arrayContaining([ouvert, ferme, eclairage, modere]));
    expect(ids(liste)).not.toContain(ancien);
    const dates = liste.map((r) => String(r.requested_datetime));
    expect([...dates].sort().reverse()).toEqual(dates);
    for (const r of liste) {
      expect(r.requested_datetime).toMatch(W3C);
      expect(r.updated_datetime).toMatch(W3C);
    }
    const resolu = liste.find((r) => r.service_request_id === ferme)!;
    expect(resolu).toMatchObject({
      status: 'closed',
      status_notes: 'Trou rebouché le 12.',
      service_name: 'Voirie',
      service_code: 'voirie',
      agency_responsible: 'Ville d’Aix-en-Provence — mairie annexe du Jas de Bouffan',
      address: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
      zipcode: '13090',
      address_id: null,
      expected_datetime: null,
      media_url: null,
    });
    expect(resolu.service_notice).toMatch(/^Résolu : /u);
    expect(Date.parse(String(resolu.updated_datetime))).toBeGreaterThan(Date.parse(String(resolu.requested_datetime)) - 1000);
    expect(liste.find((r) => r.service_request_id === ouvert)).toMatchObject({ status: 'open', status_notes: null });
  });

  it('filters by service_code (one or a comma list), by status, by dates; ids override every other argument', async () => {
    expect(ids(await requetes('?service_code=eclairage'))).toEqual(expect.arrayContaining([eclairage]));
    expect((await requetes('?service_code=eclairage')).every((r) => r.service_code === 'eclairage')).toBe(true);
    const deux = await requetes('?service_code=eclairage,proprete');
    expect(ids(deux)).toEqual(expect.arrayContaining([eclairage, modere]));
    expect(deux.every((r) => r.service_code === 'eclairage' || r.service_code === 'proprete')).toBe(true);
    expect(await requetes('?service_code=inconnu')).toEqual([]);

    const fermes = await requetes('?status=closed');
    expect(ids(fermes)).toContain(ferme);
    expect(fermes.every((r) => r.status === 'closed')).toBe(true);
    const ouverts = await requetes('?status=open&service_code=voirie');
    expect(ids(ouverts)).toContain(ouvert);
    expect(ids(ouverts)).not.toContain(ferme);
    expect(ids(await requetes('?status=open,closed'))).toEqual(expect.arrayContaining([ouvert, ferme]));

    // The older report, found by a period around its date (with an offset written the W3C way).
    const cent = Date.now() - 100 * 86_400_000;
    const w3c = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/u, '+00:00');
    expect(ids(await requetes(`?start_date=${encodeURIComponent(w3c(cent - 86_400_000))}&end_date=${encodeURIComponent(w3c(cent + 86_400_000))}`))).toEqual([ancien]);
    expect(ids(await requetes(`?start_date=${encodeURIComponent(w3c(cent - 86_400_000))}`))).toContain(ancien);
    expect(ids(await requetes(`?end_date=${encodeURIComponent(w3c(cent + 86_400_000))}`))).toEqual([ancien]);
    const tout = await requetes(`?start_date=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`);
    expect(ids(tout)).not.toContain(ancien);

    // A list of ids: those reports, whatever the other arguments say (here: none would match).
    const choisis = await requetes(`?service_request_id=${ancien},${ferme}, 2020-99999&status=open&service_code=eclairage`);
    expect(ids(choisis).sort()).toEqual([ancien, ferme].sort());
  });

  it('refuses bad arguments with 400 in the Open311 format', async () => {
    expectErreur(await get('/requests.json?status=ouvert'), 400, /status vaut open ou closed/u);
    expectErreur(await get('/requests.json?status=open&status=closed'), 400);
    expectErreur(await get('/requests.json?start_date=2026-01-01'), 400, /start_date doit être une date au format W3C/u);
    expectErreur(await get('/requests.json?end_date=hier'), 400, /end_date doit être une date au format W3C/u);
    expectErreur(await get('/requests.json?start_date=2026-02-30T00:00:00Z'), 400, 'start_date n’est pas une date qui existe.');
    expectErreur(await get('/requests.json?end_date=2026-02-01T24:00:00Z'), 400, 'end_date n’est pas une date qui existe.');
    // A time zone that does not exist: a 400, not the 500 of an invalid date.
    for (const zone of ['%2B24:00', '-25:00', '%2B99:99', '%2B05:60']) {
      expectErreur(await get(`/requests.json?start_date=2026-05-01T00:00:00${zone}`), 400, 'start_date n’est pas une date qui existe.');
    }
    expect((await get('/requests.json?start_date=2026-05-01T00:00:00-23:59')).statusCode).toBe(200);
    expectErreur(await get('/requests.json?start_date=2026-01-01T00:00:00Z&end_date=2026-06-01T00:00:00Z'), 400, MESSAGES_OPEN311.periodeTropLongue);
    expectErreur(await get('/requests.json?start_date=2026-06-01T00:00:00Z&end_date=2026-05-01T00:00:00Z'), 400, MESSAGES_OPEN311.periodeInversee);
    expectErreur(await get('/requests.json?service_request_id=638344'), 400, /un numéro s’écrit comme 2026-00042/u);
    expectErreur(await get('/requests.json?service_code=Voirie'), 400);
    expectErreur(await get(`/requests.json?service_request_id=${Array.from({ length: 201 }, (_, i) => `2026-${String(i).padStart(5, '0')}`).join(',')}`), 400, /au plus 200 valeurs/u);
    expectErreur(await get('/requests.json?service_code=a%00b'), 400);
  });

  it('answers one report as an array of one; 404 for an unknown number, 400 for a malformed one or XML', async () => {
    const res = await get(`/requests/${ferme}.json?jurisdiction_id=aixenprovence.fr`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    memeForme(res.json(), EXEMPLE_REQUETES, '$', FACULTATIFS_REQUETE);
    expect(res.json()).toHaveLength(1);
    expect(res.json()[0]).toMatchObject({ service_request_id: ferme, status: 'closed' });
    expectErreur(await get('/requests/2020-99999.json'), 404, MESSAGES_OPEN311.requeteIntrouvable);
    expectErreur(await get('/requests/638344.json'), 400, MESSAGES_OPEN311.numeroInvalide);
    expectErreur(await get(`/requests/${ferme}.xml`), 400, MESSAGES_OPEN311.formatJsonSeulement);
    expectErreur(await get(`/requests/${ferme}`), 400, MESSAGES_OPEN311.formatJsonSeulement);
  });

  it('shows no personal data: no e-mail, name, phone, private key, account', async () => {
    const rows = await ctx.app.deps.db.selectFrom('signalements').selectAll().execute();
    const textes = [await get('/requests.json'), await get(`/requests/${ouvert}.json`), await get(`/requests.json?service_request_id=${rows.map((r) => r.numero).slice(0, 200).join(',')}`)].map((r) => r.body);
    for (const texte of textes) {
      for (const row of rows) {
        expect(texte).not.toContain(row.email);
        expect(texte).not.toContain(row.accessKeyHash);
        if (row.nom) expect(texte).not.toContain(row.nom);
      }
      expect(texte).not.toMatch(/Camille|Martin|0611223344|smit333|john smith/u);
      expect(texte).not.toContain(admin.uid);
    }
  });

  it('leaves out what moderation hid: title, description, photos, update texts', async () => {
    // A report from the site, with two photos and a public update.
    const point = unPoint();
    const site = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/technique/signalements',
      payload: { categorie: 'mobilier-urbain', titre: 'Banc cassé', description: 'Le dossier est arraché.', lat: point.lat, lon: point.lon, email: 'banc@example.org', nom: 'Léa' },
    });
    expect(site.statusCode, site.body).toBe(201);
    const { numero, cle } = site.json().data as { numero: string; cle: string };
    const photos: string[] = [];
    for (const couleur of [10, 200]) {
      const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: couleur, g: 40, b: 40 } } }).jpeg().toBuffer();
      const form = await multipart([{ field: 'photo', name: 'banc.jpg', content: jpeg, type: 'image/jpeg' }]);
      const envoi = await ctx.app.inject({ method: 'POST', url: `/app/api/technique/signalements/${numero}/photos`, headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
      expect(envoi.statusCode, envoi.body).toBe(201);
      photos.push(envoi.json().data.id as string);
    }
    const row = (await repository.parNumero(numero))!;
    await service.publierMiseAJour(row.id, { etat: 'planifie', texte: 'Remplacement prévu lundi.', par: 'mairie' }, sansLog);

    let [r] = (await get(`/requests/${numero}.json`)).json() as Record<string, unknown>[];
    expect(r).toMatchObject({
      description: 'Banc cassé\n\nLe dossier est arraché.',
      status_notes: 'Remplacement prévu lundi.',
      media_url: `http://quartier.test/app/api/technique/signalements/${numero}/photos/${photos[0]}`,
      zipcode: '13090',
      address: null,
    });
    // The photo's URL works, for anyone.
    const image = await ctx.app.inject({ method: 'GET', url: new URL(String(r!.media_url)).pathname });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/jpeg');

    // Moderation: the first photo, the title, the update's text.
    await repository.masquerPhoto(row.id, photos[0]!, true);
    await repository.moderer(row.id, { titre: true });
    const etapes = await repository.misesAJour(row.id);
    await repository.masquerMiseAJour(row.id, etapes.at(-1)!.id, true);
    [r] = (await get(`/requests/${numero}.json`)).json() as Record<string, unknown>[];
    expect(r).toMatchObject({ description: 'Le dossier est arraché.', status_notes: null, media_url: `http://quartier.test/app/api/technique/signalements/${numero}/photos/${photos[1]}` });
    expect(r!.service_notice).toMatch(/^Planifié : /u);

    await repository.masquerPhoto(row.id, photos[1]!, true);
    await repository.moderer(row.id, { description: true });
    const [apres] = (await get(`/requests.json?service_request_id=${numero}`)).json() as Record<string, unknown>[];
    expect(apres).toMatchObject({ description: null, status_notes: null, media_url: null });
    const texte = JSON.stringify(apres);
    for (const cache of ['Banc cassé', 'arraché', 'Remplacement prévu', photos[0]!, photos[1]!, 'Léa']) expect(texte).not.toContain(cache);

    // A report from Open311 whose description was hidden: nothing of it is left (its title came from it).
    await repository.moderer((await repository.parNumero(modere))!.id, { titre: true, description: true });
    const [m] = (await get(`/requests/${modere}.json`)).json() as Record<string, unknown>[];
    expect(m!.description).toBeNull();
    expect(JSON.stringify(m)).not.toMatch(/Dupont|06 12|Dépôt sauvage/u);
  });

  it('tells a duplicate’s original, and that a report outside the town hall’s remit has another agency', async () => {
    const original = await creer();
    const copie = await creer();
    const horsCompetence = await creer();
    await service.publierMiseAJour((await repository.parNumero(copie))!.id, { etat: 'doublon', doublonDe: original, par: 'mairie' }, sansLog);
    await service.publierMiseAJour((await repository.parNumero(horsCompetence))!.id, { etat: 'hors_competence', texte: 'Transmis à la Métropole.', par: 'mairie' }, sansLog);
    const liste = await requetes(`?service_request_id=${copie},${horsCompetence}`);
    expect(liste.find((r) => r.service_request_id === copie)).toMatchObject({ status: 'closed', status_notes: null });
    expect(String(liste.find((r) => r.service_request_id === copie)!.service_notice)).toContain(`Signalement d’origine : ${original}.`);
    expect(liste.find((r) => r.service_request_id === horsCompetence)).toMatchObject({ status: 'closed', status_notes: 'Transmis à la Métropole.', agency_responsible: null });
  });

  it('answers HEAD and keeps reads cacheable by anyone only briefly (requests revalidated)', async () => {
    expect((await ctx.app.inject({ method: 'HEAD', url: `${V2}/services.json` })).statusCode).toBe(200);
    expect((await get('/services.json')).headers['cache-control']).toBe('public, max-age=300');
    expect((await get('/requests.json')).headers['cache-control']).toBe('no-cache');
    expect((await get('/requests/2020-99999.json')).headers['cache-control']).toBe('no-store');
  });
});

describe('API keys (admins)', () => {
  const cles = (cookie?: string) => ctx.app.inject({ method: 'GET', url: '/app/api/open311/cles', headers: cookie ? { cookie } : {} });

  it('are issued, listed and revoked by admins only', async () => {
    for (const [qui, cookie, statut] of [
      ['anonymous', undefined, 401],
      ['resident', habitant.cookie, 403],
      ['manager', manager.cookie, 403],
    ] as const) {
      expect((await cles(cookie)).statusCode, qui).toBe(statut);
      const emise = await ctx.app.inject({ method: 'POST', url: '/app/api/open311/cles', headers: cookie ? { cookie } : {}, payload: { libelle: 'Pirate' } });
      expect(emise.statusCode, qui).toBe(statut);
      const revoquee = await ctx.app.inject({ method: 'POST', url: `/app/api/open311/cles/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/revoquer`, headers: cookie ? { cookie } : {} });
      expect(revoquee.statusCode, qui).toBe(statut);
    }
    const avant = (await cles(admin.cookie)).json().data as unknown[];
    const { cle, apiKey: nouvelle } = await emettreCle('  Outil   de la Métropole ');
    expect(nouvelle).toMatch(/^qv311_[A-Za-z0-9_-]{43}$/u);
    expect(cle).toMatchObject({ libelle: 'Outil de la Métropole', creePar: expect.stringContaining('Compte'), revoqueeLe: null, utiliseeLe: null });
    const liste = (await cles(admin.cookie)).json().data as Record<string, unknown>[];
    expect(liste).toHaveLength(avant.length + 1);
    expect(liste[0]).toEqual(cle);
    // Shown once: the list never holds a key.
    expect(JSON.stringify(liste)).not.toContain('qv311_');

    expect((await posterJson(corps({ api_key: nouvelle }))).statusCode).toBe(200);
    expect((await cles(admin.cookie)).json().data[0].utiliseeLe).not.toBeNull();

    const revoquer = (id: string) => ctx.app.inject({ method: 'POST', url: `/app/api/open311/cles/${id}/revoquer`, headers: { cookie: admin.cookie } });
    const une = await revoquer(cle.id);
    expect(une.statusCode).toBe(200);
    const deux = await revoquer(cle.id);
    expect(deux.json().data.revoqueeLe).toBe(une.json().data.revoqueeLe);
    expect((await revoquer(`${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)).statusCode).toBe(404);
    expect((await revoquer('pas-un-id')).statusCode).toBe(400);
    const vide = await ctx.app.inject({ method: 'POST', url: '/app/api/open311/cles', headers: { cookie: admin.cookie }, payload: { libelle: '  ' } });
    expect(vide.statusCode).toBe(400);
    expect(vide.json().error.fields.libelle).toMatch(/qui utilisera la clé/u);
  });

  it('are never stored in clear: the table holds each key’s SHA-256 only', async () => {
    const { cle, apiKey: nouvelle } = await emettreCle('Vérification du stockage');
    const rows = await ctx.app.deps.db.selectFrom('open311Cles').selectAll().execute();
    const texte = JSON.stringify(rows);
    expect(texte).not.toContain(nouvelle);
    expect(texte).not.toContain(nouvelle.slice('qv311_'.length, 30));
    expect(texte).not.toContain(apiKey.slice('qv311_'.length, 30));
    const row = rows.find((r) => r.id === cle.id)!;
    expect(Object.keys(row).sort()).toEqual(['cleHash', 'creeLe', 'creePar', 'id', 'libelle', 'revoqueeLe', 'revoqueePar', 'utiliseeLe']);
    expect(row.cleHash).toBe(createHash('sha256').update(nouvelle, 'utf8').digest('hex'));
  });
});

describe('the key a report came with', () => {
  const vueGestion = (numero: string) => ctx.app.inject({ method: 'GET', url: `/app/api/technique/gestion/signalements/${numero}`, headers: { cookie: manager.cookie } });

  it('is named on the managers’ view of a report posted through Open311, even once revoked; a report from the site has none', async () => {
    const { cle, apiKey: cleVoirie } = await emettreCle('Logiciel des services techniques');
    const numero = await creer({ api_key: cleVoirie });
    const vue = await vueGestion(numero);
    expect(vue.statusCode, vue.body).toBe(200);
    expect(vue.json().data.viaOpen311).toBe('Logiciel des services techniques');
    // Another key's report names its own key.
    expect((await vueGestion(await creer())).json().data.viaOpen311).toBe('Logiciel de la voirie');

    const revoquee = await ctx.app.inject({ method: 'POST', url: `/app/api/open311/cles/${cle.id}/revoquer`, headers: { cookie: admin.cookie } });
    expect(revoquee.statusCode).toBe(200);
    expect((await vueGestion(numero)).json().data.viaOpen311).toBe('Logiciel des services techniques');
    // Never in the public view, nor in Open311's own answer.
    const publique = await ctx.app.inject({ method: 'GET', url: `/app/api/technique/signalements/${numero}` });
    expect(publique.statusCode).toBe(200);
    expect(publique.body).not.toContain('Logiciel des services techniques');
    expect((await get(`/requests/${numero}.json`)).body).not.toContain('Logiciel des services techniques');

    const point = unPoint();
    const site = await ctx.app.inject({
      method: 'POST',
      url: '/app/api/technique/signalements',
      payload: {
        categorie: 'voirie',
        titre: 'Nid-de-poule signalé sur le site',
        description: 'Un trou profond au milieu de la chaussée.',
        lat: point.lat,
        lon: point.lon,
        adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
        email: 'site@example.org',
        nom: 'Camille Martin',
        nomMasque: false,
      },
    });
    expect(site.statusCode, site.body).toBe(201);
    const vueSite = await vueGestion(site.json().data.numero as string);
    expect(vueSite.statusCode, vueSite.body).toBe(200);
    expect(vueSite.json().data.viaOpen311).toBeNull();
  });
});

describe('rate limits and the log', () => {
  let limite: TestContext;
  const lignes: string[] = [];

  beforeAll(async () => {
    const journal = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lignes.push(chunk.toString('utf8'));
        done();
      },
    });
    limite = await createTestApp(
      {},
      {
        rateLimits: { ...SANS_LIMITES, open311: { max: 3, timeWindow: '1 minute' }, open311Cle: { max: 1, timeWindow: '1 minute' } },
        logger: { level: 'debug', stream: journal },
      },
    );
  });
  afterAll(async () => {
    await limite.close();
  });

  it('limit posts per key and per address (429, in French), and never write a key in the log', async () => {
    const chef = await createAccount(limite, 'admin');
    const emettre = async () => {
      const res = await limite.app.inject({ method: 'POST', url: '/app/api/open311/cles', headers: { cookie: chef.cookie }, payload: { libelle: 'Outil' } });
      return res.json().data.apiKey as string;
    };
    const [une, deux] = [await emettre(), await emettre()];
    const poster = (cle: string) => limite.app.inject({ method: 'POST', url: `${V2}/requests.json`, payload: { ...corps(), api_key: cle } });
    expect((await poster(une)).statusCode).toBe(200);
    // The key's own limit (1 a minute).
    const parCle = await poster(une);
    expectErreur(parCle, 429, MESSAGES_OPEN311.tropDeRequetesCle);
    expect(Number(parCle.headers['retry-after'])).toBeGreaterThan(0);
    // Another key from the same address passes, until the address's limit (3 a minute).
    expect((await poster(deux)).statusCode).toBe(200);
    const parAdresse = await poster(deux);
    expectErreur(parAdresse, 429, /Trop de tentatives en peu de temps/u);
    expect(parAdresse.headers['retry-after']).toBeDefined();
    // Reading is not limited.
    expect((await limite.app.inject({ method: 'GET', url: `${V2}/requests.json` })).statusCode).toBe(200);

    await limite.app.inject({ method: 'POST', url: `${V2}/requests.json`, payload: { api_key: `${une}faux` } });
    const journal = lignes.join('');
    expect(journal).toContain('clé d’API Open311 délivrée');
    for (const cle of [une, deux]) {
      expect(journal).not.toContain(cle);
      expect(journal).not.toContain(cle.slice(6, 26));
    }
  });
});

describe('hostile requests', () => {
  let base: string;
  beforeAll(async () => {
    base = (await surUnPort(ctx.app)).base;
  });

  const ROUTES = [
    ['GET', '/discovery.json'],
    ['GET', '/services.json'],
    ['GET', '/services/:p'],
    ['GET', '/requests.json'],
    ['GET', '/requests/:p'],
    ['POST', '/requests.json'],
  ] as const;

  /** Below 500, and every error in the Open311 format, a URL the router cannot decode too (frameworkErrors). */
  async function verifier(method: string, url: string, init: { headers?: Record<string, string>; body?: string } = {}) {
    const answer = await send(base, method, url, init);
    const what = `${method} ${url}${init.body !== undefined ? ` with ${init.body.slice(0, 40)}` : ''}`;
    expect(answer.status, `${what}: ${answer.body.slice(0, 200)}`).toBeLessThan(500);
    if (answer.status < 400) return;
    expect(answer.contentType, what).toMatch(/^application\/json/u);
    const corpsErreur = JSON.parse(answer.body) as unknown;
    expect(Array.isArray(corpsErreur), `${what}: ${answer.body.slice(0, 200)}`).toBe(true);
    for (const e of corpsErreur as { code: number; description: string }[]) {
      expect(e.code, what).toBe(answer.status);
      expect(e.description.length, what).toBeGreaterThan(10);
      expect(e.description, what).not.toMatch(/FST_|at .*\.js:\d+|statusCode/u);
    }
  }

  it('answers bad path parameters, queries and bodies with a documented 4xx, never a 5xx', { timeout: 120_000 }, async () => {
    for (const [method, route] of ROUTES) {
      const fill = (p: string) => `${V2}${route.replace(':p', p)}`;
      for (const bad of [...BAD_PARAMS, ...BAD_PARAMS.map((p) => `${p}.json`)]) if (route.includes(':p')) await verifier(method, fill(bad));
      for (const query of [...BAD_QUERIES, 'service_request_id=,,,', 'start_date[]=1', 'status=', 'end_date=9999-99-99T99:99:99Z']) {
        await verifier(method, `${fill('voirie.json')}?${query}`, method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {});
      }
      if (method !== 'POST') continue;
      for (const bad of BAD_BODIES) await verifier(method, fill(''), { headers: bad.type ? { 'content-type': bad.type } : {}, body: bad.body });
      for (const bad of BAD_BODIES.filter((b) => b.type === 'application/json' && b.body.startsWith('{'))) {
        // The same with a valid key: the arguments themselves are read.
        let valeurs: Record<string, unknown>;
        try {
          valeurs = JSON.parse(bad.body) as Record<string, unknown>;
        } catch {
          continue;
        }
        await verifier(method, fill(''), { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...valeurs, api_key: apiKey }) });
      }
      for (const champ of ['service_code', 'lat', 'long', 'email', 'description', 'media_url', 'address_string', 'first_name', 'attribute']) {
        for (const valeur of [{}, [], true, 1e308, -1, '\u0000', 'x'.repeat(5000), null]) {
          await verifier(method, fill(''), { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...corps(), [champ]: valeur }) });
        }
      }
    }
  });
});

describe('the cap of 1000 requests', () => {
  it('answers at most 1000 requests, the newest', { timeout: 120_000 }, async () => {
    // Copies of one real row (whatever columns the reports' table has), 1005 of them, one second apart.
    const modele = (await repository.parNumero(await creer({ service_code: 'autre' })))!;
    const base = Date.now() - 3_600_000;
    const rows = Array.from({ length: 1005 }, (_, i) => {
      const le = new Date(base + i * 1000).toISOString();
      const n = String(i + 1).padStart(5, '0');
      return { ...modele, id: `00000000-0000-4000-8000-${n.padStart(12, '0')}`, numero: `2000-${n}`, email: `masse${i}@example.org`, accessKeyHash: `hash-${i}`, creeLe: le, misAJourLe: le };
    });
    for (let i = 0; i < rows.length; i += 200) await ctx.app.deps.db.insertInto('signalements').values(rows.slice(i, i + 200) as never).execute();
    const res = await get('/requests.json?service_code=autre');
    expect(res.statusCode).toBe(200);
    const liste = res.json() as { service_request_id: string }[];
    expect(liste).toHaveLength(1000);
    expect(liste[0]!.service_request_id).toBe(modele.numero);
    expect(liste[1]!.service_request_id).toBe('2000-01005');
    expect(liste.at(-1)!.service_request_id).toBe('2000-00007');
  });
});
