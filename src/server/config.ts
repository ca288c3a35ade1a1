import net from 'node:net';
import path from 'node:path';
import { UPLOAD_MAX_MO_DEFAUT } from '../domain/documents.js';
import { z } from '../domain/zod.js';
import type { ConnexionS3 } from './storage/s3.js';

const emptyToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** Unset, empty or `-` (« not shown »): undefined. */
const sansTiret = (v: unknown) => {
  const value = emptyToUndefined(v);
  return typeof value === 'string' && value.trim() === '-' ? undefined : value;
};

const url = (protocols: readonly string[], hint: string) =>
  z
    .string()
    .trim()
    .refine(
      (v) => {
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { error: hint },
    );

/** A number between min and max; `error`, the one message of every way to miss it. */
const nombre = (min: number, max: number, error: string) => z.coerce.number({ error }).min(min, { error }).max(max, { error });

/** A whole number between min and max; `error`, the one message of every way to miss it. */
const entier = (min: number, max: number, error: string) => nombre(min, max, error).int({ error });

/** A whole number of months between min and max (the life cycle of a request). */
const mois = (min: number, max: number, fallback: number) =>
  z.preprocess(emptyToUndefined, entier(min, max, `doit être un nombre entier de mois entre ${min} et ${max}`).default(fallback));

/** A whole number of seconds between min and max (an HTTP timeout). */
const seconds = (min: number, max: number, fallback: number) =>
  z.preprocess(emptyToUndefined, entier(min, max, `doit être un nombre entier de secondes entre ${min} et ${max}`).default(fallback));

/** Names proxy-addr understands for whole ranges (loopback, link-local, private addresses). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrRange(item: string): boolean {
  if (NAMED_RANGES.has(item)) return true;
  const [address = '', prefix, ...rest] = item.split('/');
  const version = net.isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/u.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY: `false` (no proxy: the socket's address is the client's), a hop count (the number of
 * proxies in front; `true` means 1), or the proxies' addresses / CIDR ranges. Null when malformed.
 * Never "trust everything": the client's own left-most X-Forwarded-For value is never taken.
 */
export function parseTrustProxy(value: string): TrustProxy | null {
  const v = value.trim().toLowerCase();
  if (v === 'false' || v === '0') return false;
  if (v === 'true') return 1;
  if (/^\d+$/u.test(v)) return Number(v) <= 10 ? Number(v) : null;
  const items = v.split(',').map((i) => i.trim());
  return items.length > 0 && items.every(isAddressOrRange) ? items : null;
}

export type TrustProxy = false | number | string[];

/**
 * The origin the browser fetches a tile URL template from, as a Content-Security-Policy source: `https://host`,
 * or `https://*.host` when the host starts with Leaflet's `{s}.` (subdomains). Null when it is no http(s) URL.
 */
export function origineDesTuiles(modele: string): string | null {
  const sousDomaines = /^(https?:\/\/)\{s\}\./iu.exec(modele);
  try {
    const u = new URL(sousDomaines ? modele.replace('{s}.', 'a.') : modele);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return sousDomaines ? `${u.protocol}//*.${u.host.slice(2)}` : u.origin;
  } catch {
    return null;
  }
}

/** Every setting of the server, read from environment variables (README "Configuration"). */
/** The placeholder of the secrets in deploy/*.env: a server must not start with it. */
const EXEMPLE = /change-me/iu;

export const envSchema = z.object({
  PORT: z.preprocess(
    emptyToUndefined,
    entier(0, 65535, 'doit être un nombre entier entre 0 et 65535').default(3000),
  ),
  HOST: z.preprocess(emptyToUndefined, z.string().trim().default('127.0.0.1')),
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().trim().default('./data')),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    url(['postgres:', 'postgresql:'], 'doit être une URL postgres://utilisateur@hôte:port/base').optional(),
  ),
  // State shared by several instances (src/server/partage): rate-limit counters and live events. Its password is
  // never echoed (masquerMotDePasse) nor logged.
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .refine(urlRedisValable, { error: 'doit être une URL redis://[utilisateur:motdepasse@]hôte[:port][/base] ou rediss://… (TLS)' })
      .optional(),
  ),
  REDIS_PREFIX: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/u, { error: 'doit faire 1 à 64 lettres, chiffres ou signes _ . : - (par exemple : qv:)' })
      .default('qv:'),
  ),
  PUBLIC_URL: z.preprocess(
    emptyToUndefined,
    url(['http:', 'https:'], 'doit être une URL http(s)://… (adresse publique du site)')
      .transform((v) => v.replace(/\/+$/u, ''))
      .optional(),
  ),
  // Documents and report photos (storage/choix.ts): under DATA_DIR by default, or in an S3-compatible bucket,
  // each kind under its own prefix (uploads/, photos-signalements/). The secret is never echoed in an error.
  STORAGE: z.preprocess(emptyToUndefined, z.enum(['disk', 's3'], { error: 'doit valoir disk (dossier DATA_DIR) ou s3 (stockage compatible S3)' }).default('disk')),
  S3_ENDPOINT: z.preprocess(emptyToUndefined, url(['http:', 'https:'], 'doit être une URL http(s)://… (adresse du service S3, par exemple https://s3.fr-par.scw.cloud)').optional()),
  S3_BUCKET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/iu, { error: 'doit être un nom de bucket : 3 à 63 lettres, chiffres, points ou tirets' })
      .optional(),
  ),
  S3_REGION: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .regex(/^[a-z0-9_-]{1,64}$/iu, { error: 'doit être un nom de région : lettres, chiffres et tirets (par exemple : eu-west-3, fr-par)' })
      .default('us-east-1'),
  ),
  S3_ACCESS_KEY_ID: z.preprocess(emptyToUndefined, z.string().trim().optional()),
  S3_SECRET_ACCESS_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  S3_FORCE_PATH_STYLE: z.preprocess(
    emptyToUndefined,
    z
      .enum(['true', 'false'], { error: 'doit valoir true (adresses https://hôte/bucket/…, pour MinIO et la plupart des services auto-hébergés) ou false' })
      .default('false')
      .transform((v) => v === 'true'),
  ),
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    url(['smtp:', 'smtps:'], 'doit être une URL smtp://utilisateur:motdepasse@hôte:port ou smtps://…').optional(),
  ),
  MAIL_FROM: z.preprocess(emptyToUndefined, z.string().trim().default('Quartier Vivant <no-reply@quartier-vivant.local>')),
  UPLOAD_MAX_MB: z.preprocess(
    emptyToUndefined,
    nombre(1, 100, 'doit être un nombre de mégaoctets entre 1 et 100').default(UPLOAD_MAX_MO_DEFAUT),
  ),
  UPLOAD_QUOTA_FICHIERS: z.preprocess(
    emptyToUndefined,
    entier(1, 1000, 'doit être un nombre entier de documents entre 1 et 1000').default(50),
  ),
  UPLOAD_QUOTA_MB: z.preprocess(
    emptyToUndefined,
    nombre(1, 10000, 'doit être un nombre de mégaoctets entre 1 et 10000').default(150),
  ),
  SSE_MAX_CONNEXIONS: z.preprocess(
    emptyToUndefined,
    entier(1, 100000, 'doit être un nombre entier entre 1 et 100000').default(2000),
  ),
  SSE_MAX_PAR_IP: z.preprocess(
    emptyToUndefined,
    entier(1, 10000, 'doit être un nombre entier entre 1 et 10000').default(20),
  ),
  ADRESSE_API_URL: z.preprocess(
    emptyToUndefined,
    url(['http:', 'https:'], 'doit être une URL http(s)://…').default('https://data.geopf.fr/geocodage/search'),
  ),
  // The map's tiles (technical reports, issue 14): a Leaflet URL template with {z}, {x} and {y} (and {s} for
  // subdomains a, b, c), by default the Géoplateforme's WMTS « Plan IGN v2 » in Web Mercator (PM), free and
  // keyless, under the Licence Ouverte; the browser fetches them, and the Content-Security-Policy allows their
  // origin only (src/server/features/carte).
  CARTE_TUILES_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .default(
        'https://data.geopf.fr/wmts?SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=GEOGRAPHICALGRIDSYSTEMS.PLANIGNV2&STYLE=normal&TILEMATRIXSET=PM&FORMAT=image/png&TILEMATRIX={z}&TILEROW={y}&TILECOL={x}',
      )
      .refine((v) => origineDesTuiles(v) !== null && ['{z}', '{x}', '{y}'].every((p) => v.includes(p)), {
        error: 'doit être une URL http(s):// de tuiles contenant {z}, {x} et {y} (par exemple : https://tuiles.exemple.fr/{z}/{x}/{y}.png)',
      }),
  ),
  // Shown on the map, as the tiles' licence asks (the Licence Ouverte: name the source).
  CARTE_ATTRIBUTION: z.preprocess(emptyToUndefined, z.string().trim().max(300, { error: 'doit tenir en 300 caractères' }).default('© IGN – Géoplateforme, Plan IGN')),
  ADRESSE_API_TIMEOUT_MS: z.preprocess(
    emptyToUndefined,
    entier(100, 10000, 'doit être un nombre de millisecondes entre 100 et 10000').default(1500),
  ),
  AUTH_SECRET: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .min(32, { error: 'doit contenir au moins 32 caractères (par exemple : openssl rand -base64 32)' })
      .refine((v) => !EXEMPLE.test(v), { error: 'est encore la valeur d’exemple de deploy/ : remplacez-la (openssl rand -base64 48)' })
      .optional(),
  ),
  GOOGLE_CLIENT_ID: z.preprocess(emptyToUndefined, z.string().trim().optional()),
  GOOGLE_CLIENT_SECRET: z.preprocess(emptyToUndefined, z.string().trim().optional()),
  GOOGLE_DISCOVERY_URL: z.preprocess(
    emptyToUndefined,
    url(['http:', 'https:'], 'doit être une URL http(s)://…/.well-known/openid-configuration').default(
      'https://accounts.google.com/.well-known/openid-configuration',
    ),
  ),
  RATE_LIMIT_MULTIPLIER: z.preprocess(
    emptyToUndefined,
    nombre(0.1, 1000, 'doit être un nombre entre 0.1 et 1000').default(1),
  ),
  TRUST_PROXY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .default('false')
      .refine((v) => parseTrustProxy(v) !== null, {
        error:
          "doit valoir false, le nombre de relais placés devant le serveur (1, 2…) ou la liste de leurs adresses IP ou réseaux CIDR séparés par des virgules",
      })
      .transform((v) => parseTrustProxy(v)!),
  ),
  HTTP_HEADERS_TIMEOUT_S: seconds(1, 300, 20),
  HTTP_REQUEST_TIMEOUT_S: seconds(1, 86_400, 3600),
  HTTP_IDLE_TIMEOUT_S: seconds(30, 3600, 60),
  HTTP_BODY_MIN_RATE: z.preprocess(
    emptyToUndefined,
    entier(0, 1_000_000, "doit être un nombre entier d’octets par seconde entre 0 et 1000000 (0 : pas de débit minimal)").default(512),
  ),
  HTTP_BODY_RATE_WINDOW_S: seconds(1, 300, 15),
  // The API's share of each turn of the event loop (exploitation/tours.ts, docs/decisions/0023); unset: 10 ms with
  // SQLite, off with PostgreSQL (app.ts).
  HTTP_TURN_BUDGET_MS: z.preprocess(
    emptyToUndefined,
    entier(0, 1000, "doit être un nombre entier de millisecondes entre 0 et 1000 (0 : pas de partage des tours)").optional(),
  ),
  LEGAL_EDITEUR: z.preprocess(emptyToUndefined, z.string().trim().default("Ville d’Aix-en-Provence — mairie annexe du Jas de Bouffan")),
  LEGAL_ADRESSE: z.preprocess(emptyToUndefined, z.string().trim().default('Hôtel de Ville, 13616 Aix-en-Provence Cedex 1')),
  LEGAL_CONTACT: z.preprocess(emptyToUndefined, z.string().trim().default('Mairie annexe du Jas de Bouffan, rue Charloun-Rieu, 13090 Aix-en-Provence')),
  LEGAL_DIRECTEUR_PUBLICATION: z.preprocess(emptyToUndefined, z.string().trim().default("Le maire d’Aix-en-Provence")),
  LEGAL_HEBERGEUR: z.preprocess(emptyToUndefined, z.string().trim().default("Serveurs de la Ville d’Aix-en-Provence, Hôtel de Ville, 13616 Aix-en-Provence Cedex 1")),
  LEGAL_DPO: z.preprocess(
    emptyToUndefined,
    z.string().trim().default("Délégué à la protection des données, Ville d’Aix-en-Provence, Hôtel de Ville, 13616 Aix-en-Provence Cedex 1"),
  ),
  // The police municipale on the « Sécurité » page; a part unset is not shown, and `-` hides a part that has a
  // default (for a town without a police municipale). The default address is the main station the Ville names on
  // its own site (aixenprovence.fr, « Retour sur l’inauguration du Poste Mobile Opérationnel (PMO) de la Police » :
  // « les mêmes démarches qu’au poste principal du cours des Minimes »); no public telephone number or opening
  // hours could be confirmed there, so none is given by default.
  POLICE_MUNICIPALE_TELEPHONE: z.preprocess(
    sansTiret,
    z
      .string()
      .trim()
      .regex(/^\+?\d[\d .-]{1,24}$/u, { error: 'doit être un numéro de téléphone : chiffres, espaces, points ou tirets (par exemple : 04 42 00 00 00)' })
      .optional(),
  ),
  POLICE_MUNICIPALE_ADRESSE: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .default('Poste principal de la police municipale, cours des Minimes, Aix-en-Provence')
      .transform((v) => (v === '-' ? undefined : v)),
  ),
  POLICE_MUNICIPALE_HORAIRES: z.preprocess(sansTiret, z.string().trim().optional()),
  VALIDITE_MOIS: mois(1, 120, 12),
  RADIATION_APRES_MOIS: mois(1, 120, 13),
  REACTIVATION_JUSQUA_MOIS: mois(1, 120, 18),
  CONSERVATION_MOIS: mois(1, 600, 12),
  RAPPELS_JOURS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .default('30,7')
      .refine((v) => v.split(',').every((d) => /^\s*\d{1,3}\s*$/u.test(d) && Number(d) >= 1), {
        error: "doit être une liste de nombres de jours avant l’expiration, séparés par des virgules (par exemple : 30,7)",
      })
      .transform((v) => [...new Set(v.split(',').map(Number))].sort((a, b) => b - a)),
  ),
  TACHES_HEURE: z.preprocess(
    emptyToUndefined,
    entier(0, 23, "doit être une heure entière entre 0 et 23 (heure de Paris)").default(3),
  ),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        error: 'doit valoir fatal, error, warn, info, debug, trace ou silent',
      })
      .default('info'),
  ),
  // GET /metrics (src/server/exploitation/metriques.ts): Prometheus reads it with `Authorization: Bearer <token>`;
  // without a token the route answers 404 and nothing is measured.
  METRICS_TOKEN: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .trim()
      .min(16, { error: 'doit contenir au moins 16 caractères (par exemple : openssl rand -hex 32)' })
      .regex(/^[\x21-\x7e]+$/u, { error: "doit s’écrire sans espace ni accent (par exemple : openssl rand -hex 32)" })
      .refine((v) => !EXEMPLE.test(v), { error: 'est encore la valeur d’exemple de deploy/ : remplacez-la (openssl rand -hex 32)' })
      .optional(),
  ),
  // After SIGTERM: in-flight requests finish, then the process exits; past this delay it exits anyway (exploitation/arret.ts).
  SHUTDOWN_TIMEOUT_MS: z.preprocess(
    emptyToUndefined,
    entier(1000, 600_000, 'doit être un nombre entier de millisecondes entre 1000 et 600000').default(25_000),
  ),
  // After SIGTERM and before closing: /readyz answers 503 while everything is still served, so that a load balancer
  // polling it stops sending traffic first (0: close at once, the right choice without a load balancer).
  SHUTDOWN_DRAIN_MS: z.preprocess(
    emptyToUndefined,
    entier(0, 120_000, 'doit être un nombre entier de millisecondes entre 0 et 120000').default(0),
  ),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** REDIS_URL and REDIS_PREFIX (src/server/partage): the URL is not enumerable, so that no log or copy of the config shows its password. */
  redis: { url: string; prefixe: string } | undefined;
  publicUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Where documents and report photos are kept (storage/choix.ts): under DATA_DIR, or in an S3-compatible bucket. */
  stockage: { type: 'disque' } | { type: 's3'; bucket: string; connexion: ConnexionS3 };
  uploadMaxBytes: number;
  /** Per housing request: at most this many documents and this many bytes in all. */
  uploadQuota: { fichiers: number; octets: number };
  /** Live-event streams open at once: in all, and per client IP. */
  sseMax: { total: number; parIp: number };
  adresseApiUrl: string;
  adresseApiTimeoutMs: number;
  /** The map's tiles (a Leaflet URL template) and their attribution (features/carte). */
  carte: { tuilesUrl: string; attribution: string };
  /** false, a hop count, or the proxies' addresses (see parseTrustProxy). */
  trustProxy: TrustProxy;
  /** HTTP timeouts, in milliseconds, and the slowest body accepted (securite/lenteur.ts). */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; idleTimeoutMs: number; bodyMinRate: number; bodyRateWindowMs: number; turnBudgetMs: number | undefined };
  /** Scales every rate limit (e.g. 10 for a town-hall kiosk where many people share one address). */
  rateLimitMultiplier: number;
  logLevel: string;
  /** The bearer token of GET /metrics; undefined: no metrics (the route answers 404). */
  metricsToken: string | undefined;
  /** The longest a graceful shutdown may take before the process exits anyway (main.ts). */
  shutdownTimeoutMs: number;
  /** How long /readyz answers 503 after SIGTERM, all else served, before the app closes (part of shutdownTimeoutMs). */
  shutdownDrainMs: number;
  /** Who publishes the site and answers for the data (the « Mentions légales » and « Données personnelles » pages). */
  legal: { editeur: string; adresse: string; contact: string; directeurPublication: string; hebergeur: string; dpo: string };
  /** The police municipale's contact on the « Sécurité » page: only the parts configured; undefined when none is. */
  policeMunicipale: { telephone?: string; adresse?: string; horaires?: string } | undefined;
  /** Signs sessions and e-mail links; when absent, one is generated and kept in DATA_DIR. */
  authSecret: string | undefined;
  google: { clientId: string; clientSecret: string; discoveryUrl: string } | undefined;
  /** The window to undo a status change before its e-mail leaves (default 10 s; tests shorten it). */
  delaiAnnulationMs?: number;
  /** Where the built web app is served from (absent in API-only tests). */
  webDir: string | undefined;
  /** The life cycle of requests (docs/operations.md « Cycle de vie des demandes et purge »): durations in months,
   * reminders in days before expiry (largest first), the daily job's hour (Europe/Paris). */
  cycleDeVie: { validiteMois: number; radiationMois: number; reactivationMois: number; conservationMois: number; rappelsJours: number[]; heure: number };
}

/** STORAGE=s3: the bucket and its connection; the secret key kept out of the enumerable properties (never logged). */
function stockageS3(e: z.infer<typeof envSchema>): Config['stockage'] {
  if (!e.S3_BUCKET) throw new ConfigError('S3_BUCKET', 'doit être défini quand STORAGE=s3 (le nom du bucket où ranger les documents)');
  if (!e.S3_ACCESS_KEY_ID) throw new ConfigError('S3_ACCESS_KEY_ID', 'doit être défini quand STORAGE=s3, avec S3_SECRET_ACCESS_KEY');
  if (!e.S3_SECRET_ACCESS_KEY) throw new ConfigError('S3_SECRET_ACCESS_KEY', 'doit être défini quand STORAGE=s3, avec S3_ACCESS_KEY_ID');
  const credentials = { accessKeyId: e.S3_ACCESS_KEY_ID } as ConnexionS3['credentials'];
  Object.defineProperty(credentials, 'secretAccessKey', { value: e.S3_SECRET_ACCESS_KEY, enumerable: false });
  return { type: 's3', bucket: e.S3_BUCKET, connexion: { endpoint: e.S3_ENDPOINT, region: e.S3_REGION, credentials, forcePathStyle: e.S3_FORCE_PATH_STYLE } };
}

/** The parts of the police municipale's contact that are set, or undefined when none is. */
function policeMunicipale(parts: { telephone: string | undefined; adresse: string | undefined; horaires: string | undefined }): Config['policeMunicipale'] {
  const set = Object.fromEntries(Object.entries(parts).filter(([, v]) => v !== undefined));
  return Object.keys(set).length > 0 ? set : undefined;
}

/** A redis:// or rediss:// URL with a host, and at most a database number for path. */
function urlRedisValable(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '' && /^(\/\d{0,2})?$/u.test(u.pathname) && u.search === '' && u.hash === '';
  } catch {
    return false;
  }
}

function configRedis(url: string, prefixe: string): NonNullable<Config['redis']> {
  const redis = { prefixe } as NonNullable<Config['redis']>;
  Object.defineProperty(redis, 'url', { value: url, enumerable: false });
  return redis;
}

/** A value as an error may echo it: the password of a URL (`//user:password@`) replaced by `***`. */
export function masquerMotDePasse(value: string | undefined): string | undefined {
  return value?.replace(/(\/\/[^/@:\s]*):[^@\s]*@/gu, '$1:***@');
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`Configuration invalide : ${variable} ${message}.`);
  }
}

/** Reads and validates the configuration; throws a ConfigError naming the first wrong variable. */
export function loadConfig(env: Record<string, string | undefined>, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    const received = masquerMotDePasse(env[variable]);
    throw new ConfigError(variable, `${issue.message}${received === undefined ? '' : ` (valeur reçue : « ${received} »)`}`);
  }
  const e = parsed.data;
  if (Boolean(e.GOOGLE_CLIENT_ID) !== Boolean(e.GOOGLE_CLIENT_SECRET)) {
    const missing = e.GOOGLE_CLIENT_ID ? 'GOOGLE_CLIENT_SECRET' : 'GOOGLE_CLIENT_ID';
    throw new ConfigError(missing, 'doit être défini avec son pendant pour activer la connexion avec Google');
  }
  if (e.RADIATION_APRES_MOIS <= e.VALIDITE_MOIS) {
    throw new ConfigError('RADIATION_APRES_MOIS', `doit être supérieur à VALIDITE_MOIS (${e.VALIDITE_MOIS})`);
  }
  if (e.REACTIVATION_JUSQUA_MOIS < e.RADIATION_APRES_MOIS) {
    throw new ConfigError('REACTIVATION_JUSQUA_MOIS', `doit être supérieur ou égal à RADIATION_APRES_MOIS (${e.RADIATION_APRES_MOIS})`);
  }
  if (e.RAPPELS_JOURS.some((jours) => jours > e.VALIDITE_MOIS * 28)) {
    throw new ConfigError('RAPPELS_JOURS', `doit compter moins de jours que la validité (VALIDITE_MOIS : ${e.VALIDITE_MOIS} mois)`);
  }
  if (e.HTTP_HEADERS_TIMEOUT_S > e.HTTP_REQUEST_TIMEOUT_S) {
    throw new ConfigError('HTTP_HEADERS_TIMEOUT_S', `doit être inférieur ou égal à HTTP_REQUEST_TIMEOUT_S (${e.HTTP_REQUEST_TIMEOUT_S})`);
  }
  if (e.SHUTDOWN_DRAIN_MS >= e.SHUTDOWN_TIMEOUT_MS) {
    throw new ConfigError('SHUTDOWN_DRAIN_MS', `doit être inférieur à SHUTDOWN_TIMEOUT_MS (${e.SHUTDOWN_TIMEOUT_MS})`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    redis: e.REDIS_URL ? configRedis(e.REDIS_URL, e.REDIS_PREFIX) : undefined,
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    stockage: e.STORAGE === 's3' ? stockageS3(e) : { type: 'disque' },
    uploadMaxBytes: Math.round(e.UPLOAD_MAX_MB * 1024 * 1024),
    uploadQuota: { fichiers: e.UPLOAD_QUOTA_FICHIERS, octets: Math.round(e.UPLOAD_QUOTA_MB * 1024 * 1024) },
    sseMax: { total: e.SSE_MAX_CONNEXIONS, parIp: e.SSE_MAX_PAR_IP },
    adresseApiUrl: e.ADRESSE_API_URL,
    adresseApiTimeoutMs: e.ADRESSE_API_TIMEOUT_MS,
    carte: { tuilesUrl: e.CARTE_TUILES_URL, attribution: e.CARTE_ATTRIBUTION },
    trustProxy: e.TRUST_PROXY,
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_S * 1000,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_S * 1000,
      idleTimeoutMs: e.HTTP_IDLE_TIMEOUT_S * 1000,
      bodyMinRate: e.HTTP_BODY_MIN_RATE,
      bodyRateWindowMs: e.HTTP_BODY_RATE_WINDOW_S * 1000,
      turnBudgetMs: e.HTTP_TURN_BUDGET_MS,
    },
    rateLimitMultiplier: e.RATE_LIMIT_MULTIPLIER,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    legal: {
      editeur: e.LEGAL_EDITEUR,
      adresse: e.LEGAL_ADRESSE,
      contact: e.LEGAL_CONTACT,
      directeurPublication: e.LEGAL_DIRECTEUR_PUBLICATION,
      hebergeur: e.LEGAL_HEBERGEUR,
      dpo: e.LEGAL_DPO,
    },
    policeMunicipale: policeMunicipale({ telephone: e.POLICE_MUNICIPALE_TELEPHONE, adresse: e.POLICE_MUNICIPALE_ADRESSE, horaires: e.POLICE_MUNICIPALE_HORAIRES }),
    authSecret: e.AUTH_SECRET,
    google:
      e.GOOGLE_CLIENT_ID && e.GOOGLE_CLIENT_SECRET
        ? { clientId: e.GOOGLE_CLIENT_ID, clientSecret: e.GOOGLE_CLIENT_SECRET, discoveryUrl: e.GOOGLE_DISCOVERY_URL }
        : undefined,
    webDir: undefined,
    cycleDeVie: {
      validiteMois: e.VALIDITE_MOIS,
      radiationMois: e.RADIATION_APRES_MOIS,
      reactivationMois: e.REACTIVATION_JUSQUA_MOIS,
      conservationMois: e.CONSERVATION_MOIS,
      rappelsJours: e.RAPPELS_JOURS,
      heure: e.TACHES_HEURE,
    },
    ...overrides,
  };
}
