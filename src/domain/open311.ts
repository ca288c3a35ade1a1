/**
 * Open311 GeoReport v2 (issue 14 point 6; docs/api.md « Open311 GeoReport v2 », docs/decisions/0017-open311.md):
 * the standard API through which a council's other tools read the district's technical reports and send new
 * ones. Its field names are the specification's (snake_case, English), not ours: this module holds the
 * answers' schemas, the argument rules and the API keys' contract for the admins' screens.
 * Specification: http://wiki.open311.org/GeoReport_v2 (and /Service_Discovery).
 */
import { DESCRIPTION_MAX, nombre, NUMERO_SIGNALEMENT } from './signalements.js';
import { z } from './zod.js';

/** The specification's token, as service discovery names it. */
export const OPEN311_SPECIFICATION = 'http://wiki.open311.org/GeoReport_v2';
/** Where the endpoint lives, under the site's public address. */
export const OPEN311_CHEMIN = '/open311/v2';
/**
 * The endpoint's changeset (sortable): the date this implementation's answers last changed shape. Raise it
 * when the service list's form or the service definitions change.
 */
export const OPEN311_CHANGESET = '2026-11-26T00:00:00Z';
/** The specification's default window and cap of GET requests: the last 90 days, at most 1000 requests. */
export const OPEN311_JOURS = 90;
export const OPEN311_MAX_REQUESTS = 1000;
/** At most this many ids in one `service_request_id` list. */
export const OPEN311_MAX_IDS = 200;
/** The only format served. */
export const OPEN311_FORMATS = ['application/json'] as const;

// --- Answers ----------------------------------------------------------------------------------------

/** Service discovery (/discovery.json): every field is required by the specification. */
export const discoverySchema = z.object({
  changeset: z.string(),
  contact: z.string(),
  key_service: z.string(),
  endpoints: z.array(
    z.object({
      specification: z.string(),
      url: z.string(),
      changeset: z.string(),
      type: z.enum(['production', 'test']),
      formats: z.array(z.string()),
    }),
  ),
});
export type Discovery = z.infer<typeof discoverySchema>;

/** One service (a category of technical reports) of /services.json. */
export const serviceSchema = z.object({
  service_code: z.string(),
  service_name: z.string(),
  description: z.string(),
  /** Always false: no service has attributes, so no client needs its definition before posting. */
  metadata: z.boolean(),
  /** Always `realtime`: the request's id is answered at once. */
  type: z.enum(['realtime', 'batch', 'blackbox']),
  /** A comma-separated list of words that help find the service. */
  keywords: z.string(),
  group: z.string(),
});
export type Service = z.infer<typeof serviceSchema>;

/** A service definition (/services/{code}.json): no attributes. */
export const serviceDefinitionSchema = z.object({ service_code: z.string(), attributes: z.array(z.never()) });
export type ServiceDefinition = z.infer<typeof serviceDefinitionSchema>;

/** One service request as GET answers it: public data only, never an e-mail address, a name or a phone. */
export const serviceRequestSchema = z.object({
  /** Our report number (`2026-00042`). */
  service_request_id: z.string(),
  status: z.enum(['open', 'closed']),
  /** The latest public update's text since the report entered its current state, or null. */
  status_notes: z.string().nullable(),
  service_name: z.string(),
  service_code: z.string(),
  /** The title and the description, as the public sees them (moderated text left out), or null. */
  description: z.string().nullable(),
  agency_responsible: z.string().nullable(),
  /** The detailed state, in French, and what it means. */
  service_notice: z.string().nullable(),
  requested_datetime: z.string(),
  updated_datetime: z.string(),
  expected_datetime: z.string().nullable(),
  address: z.string().nullable(),
  address_id: z.string().nullable(),
  zipcode: z.string().nullable(),
  lat: z.number(),
  long: z.number(),
  /** The first public photo's absolute URL, or null. */
  media_url: z.string().nullable(),
});
export type ServiceRequest = z.infer<typeof serviceRequestSchema>;

/** The answer to POST requests.json: the id at once (type realtime), so never a token. */
export const serviceRequestCreeSchema = z.object({
  service_request_id: z.string(),
  service_notice: z.string().nullable(),
  account_id: z.string().nullable(),
});
export type ServiceRequestCree = z.infer<typeof serviceRequestCreeSchema>;

/** Every error: an array of `{ code, description }`, `code` the HTTP status, `description` in French. */
export const erreursOpen311Schema = z.array(z.object({ code: z.number().int(), description: z.string() }));
export type ErreursOpen311 = z.infer<typeof erreursOpen311Schema>;

// --- Arguments --------------------------------------------------------------------------------------

/** « Optional » arguments: an empty value counts as absent (GeoReport v2 « Optional Arguments »). */
/** An optional argument: absent, empty, blank or null, it is missing. */
const facultatif = <T extends z.ZodType>(schema: T) => z.preprocess((v) => ((typeof v === 'string' && v.trim() === '') || v === null ? undefined : v), schema.optional());

/** A W3C date-time (http://www.w3.org/TR/NOTE-datetime) with its time zone, as the specification requires. */
export const DATE_W3C = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/u;

/**
 * Whether a W3C date-time names a day, a time and a time zone that exist (JavaScript would carry 30 February over to
 * March, and makes an invalid date of an offset such as +24:00).
 */
function dateExiste(texte: string): boolean {
  const [a, mo, j, h, mi, se] = texte.split(/[-T:.Z+]/u).map(Number) as [number, number, number, number, number, number | undefined];
  const jour = new Date(Date.UTC(a, mo - 1, j));
  const decalage = /[+-](\d{2}):(\d{2})$/u.exec(texte);
  if (decalage && (Number(decalage[1]) > 23 || Number(decalage[2]) > 59)) return false;
  return (
    jour.getUTCMonth() === mo - 1 &&
    jour.getUTCDate() === j &&
    h <= 23 &&
    mi <= 59 &&
    (se === undefined || Number.isNaN(se) || se <= 59) &&
    !Number.isNaN(Date.parse(texte))
  );
}

const dateW3c = (champ: string) =>
  facultatif(
    z
      .string({ error: `${champ} doit être une date.` })
      .trim()
      .regex(DATE_W3C, { error: `${champ} doit être une date au format W3C avec son fuseau horaire, par exemple 2026-05-01T00:00:00Z ou 2026-05-01T08:00:00+02:00.` })
      .refine(dateExiste, { error: `${champ} n’est pas une date qui existe.` })
      .transform((v) => new Date(v)),
  );

/** A comma-separated list, each item trimmed, empty items dropped; an argument given twice is refused. */
const listeVirgules = <T extends string>(champ: string, item: z.ZodType<T, string>, max: number) =>
  facultatif(
    z
      .string({ error: `${champ} se donne une seule fois, ses valeurs séparées par des virgules.` })
      .transform((v) => v.split(',').map((s) => s.trim()).filter((s) => s.length > 0))
      .pipe(z.array(item).max(max, { error: `${champ} compte au plus ${max} valeurs.` })),
  );

/** GET requests.json's arguments (`jurisdiction_id` is accepted and ignored: this endpoint serves one jurisdiction). */
export const requestsQuerySchema = z.object({
  jurisdiction_id: facultatif(z.string({ error: 'jurisdiction_id doit être un texte.' })),
  service_request_id: listeVirgules(
    'service_request_id',
    z.string().regex(NUMERO_SIGNALEMENT, { error: 'service_request_id : un numéro s’écrit comme 2026-00042 (l’année, un tiret, cinq chiffres).' }),
    OPEN311_MAX_IDS,
  ),
  service_code: listeVirgules('service_code', z.string().regex(/^[a-z0-9-]{2,40}$/u, { error: 'service_code : un code de service s’écrit en lettres minuscules, chiffres et tirets.' }), 50),
  start_date: dateW3c('start_date'),
  end_date: dateW3c('end_date'),
  status: listeVirgules('status', z.enum(['open', 'closed'], { error: 'status vaut open ou closed (ou les deux, séparés par une virgule).' }), 2),
});
export type RequestsQuery = z.infer<typeof requestsQuerySchema>;

/** Arguments of the single-resource GETs (`jurisdiction_id` accepted and ignored). */
export const jurisdictionQuerySchema = z.object({ jurisdiction_id: facultatif(z.string({ error: 'jurisdiction_id doit être un texte.' })) });

const texte = (champ: string, max: number) =>
  facultatif(z.string({ error: `${champ} doit être un texte.` }).max(max, { error: `${champ} dépasse ${max} caractères.` }));

/**
 * POST requests.json's arguments, form-encoded or JSON. `api_key` is checked before them (403). The location
 * must be `lat` and `long` here (see the route); `phone`, `device_id`, `account_id`, `jurisdiction_id` and the
 * `attribute[…]` values (no service has attributes) are accepted and not kept.
 */
export const nouvelleRequeteSchema = z.object({
  api_key: facultatif(z.string()),
  jurisdiction_id: texte('jurisdiction_id', 200),
  service_code: z.preprocess(
    (v) => (v === '' || v === null ? undefined : v),
    z
      .string({ error: 'service_code est obligatoire : le code d’un des services de services.json.' })
      .trim()
      .regex(/^[a-z0-9-]{2,40}$/u, { error: 'service_code : un code de service s’écrit en lettres minuscules, chiffres et tirets (voir services.json).' }),
  ),
  lat: facultatif(nombre(z.number({ error: 'lat doit être un nombre (degrés WGS 84).' }).min(-90, { error: 'lat est entre -90 et 90.' }).max(90, { error: 'lat est entre -90 et 90.' }))),
  long: facultatif(
    nombre(z.number({ error: 'long doit être un nombre (degrés WGS 84).' }).min(-180, { error: 'long est entre -180 et 180.' }).max(180, { error: 'long est entre -180 et 180.' })),
  ),
  address_string: texte('address_string', 200),
  address_id: texte('address_id', 200),
  email: texte('email', 254),
  device_id: texte('device_id', 200),
  account_id: texte('account_id', 200),
  first_name: texte('first_name', 100),
  last_name: texte('last_name', 100),
  phone: texte('phone', 50),
  description: texte('description', DESCRIPTION_MAX),
  media_url: facultatif(
    z
      .string({ error: 'media_url doit être une adresse web.' })
      .trim()
      .max(1000, { error: 'media_url dépasse 1000 caractères.' })
      .refine((v) => /^https?:\/\/[^\s]+$/iu.test(v) && URL.canParse(v), { error: 'media_url doit être une adresse web complète en http:// ou https://.' }),
  ),
});
export type NouvelleRequete = z.infer<typeof nouvelleRequeteSchema>;

/** The messages of Open311's own refusals, in French for the person who reads them. */
export const MESSAGES_OPEN311 = {
  cleManquante: 'api_key est obligatoire pour créer un signalement : demandez une clé d’API aux administrateurs de Quartier Vivant.',
  cleInvalide: 'api_key n’est pas valable ou a été révoquée : aucun signalement n’a été créé. Demandez une nouvelle clé aux administrateurs de Quartier Vivant.',
  positionObligatoire:
    'lat et long sont obligatoires : chaque signalement est placé sur la carte du quartier, et ce service ne cherche pas la position d’une adresse (address_string, address_id). Envoyez lat et long (degrés WGS 84), avec address_string si vous l’avez.',
  positionIncomplete: 'lat et long s’envoient ensemble : il manque l’un des deux.',
  emailObligatoire:
    'email est obligatoire ici : le lien de suivi du signalement et ses mises à jour sont envoyés à cette adresse, et sans elle la personne ne pourrait pas dire « toujours pas résolu ».',
  serviceInconnu: 'Ce service_code n’existe pas ou n’est plus proposé : choisissez-en un dans services.json.',
  requeteIntrouvable: 'Il n’existe pas de signalement sous ce numéro (service_request_id).',
  numeroInvalide: 'service_request_id : un numéro s’écrit comme 2026-00042 (l’année, un tiret, cinq chiffres), suivi de .json.',
  formatJsonSeulement: 'Seul le format JSON est proposé : remplacez l’extension par .json (par exemple /open311/v2/services.json).',
  ressourceIntrouvable:
    'Cette ressource Open311 n’existe pas. Ressources : discovery.json, services.json, services/{service_code}.json, requests.json, requests/{service_request_id}.json.',
  periodeInversee: 'end_date est avant start_date : la période est vide.',
  periodeTropLongue: `La période demandée dépasse ${OPEN311_JOURS} jours : resserrez start_date et end_date.`,
  multipart: 'Envoyez le signalement en application/x-www-form-urlencoded ou en JSON (les fichiers ne sont pas reçus : donnez media_url).',
  corpsNonObjet: 'Envoyez le signalement en application/x-www-form-urlencoded ou en JSON, un objet de ses arguments (api_key, service_code, lat, long…).',
  methodeNonProposee: 'Cette ressource Open311 se lit avec GET ; seul requests.json reçoit aussi des signalements, avec POST.',
  tropDeRequetesCle: 'Trop de signalements envoyés avec cette clé d’API en peu de temps. Patientez quelques minutes puis réessayez.',
} as const;

// --- API keys (admins) ------------------------------------------------------------------------------

/** An Open311 API key as the admins' screen lists it (the key itself is never stored, so never shown again). */
export const cleOpen311Schema = z.object({
  id: z.string(),
  libelle: z.string(),
  /** The admin who issued it (first and last name), or null once that account is gone. */
  creePar: z.string().nullable(),
  creeLe: z.string(),
  revoqueeLe: z.string().nullable(),
  /** The last time a request was posted with it, or null. */
  utiliseeLe: z.string().nullable(),
});
export type CleOpen311 = z.infer<typeof cleOpen311Schema>;

export const LIBELLE_CLE_MAX = 80;

/** What an admin types to issue a key: who or what will use it. */
export const nouvelleCleSchema = z.object({
  libelle: z
    .string({ error: 'Dites qui utilisera la clé (par exemple « Logiciel de la voirie »).' })
    .transform((v) => v.replace(/[\p{Cc}\s]+/gu, ' ').trim())
    .pipe(
      z
        .string()
        .min(1, { error: 'Dites qui utilisera la clé (par exemple « Logiciel de la voirie »).' })
        .max(LIBELLE_CLE_MAX, { error: `Le nom de la clé dépasse ${LIBELLE_CLE_MAX} caractères.` }),
    ),
});
export type NouvelleCle = z.infer<typeof nouvelleCleSchema>;

/** The answer to an issued key: the key, shown this once, and its row. */
export const cleCreeSchema = z.object({ cle: cleOpen311Schema, apiKey: z.string() });
export type CleCree = z.infer<typeof cleCreeSchema>;

/** A key reads `qv311_` then 43 base64url characters (256 random bits). */
export const PREFIXE_CLE_OPEN311 = 'qv311_';
