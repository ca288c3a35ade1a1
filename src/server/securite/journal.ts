/**
 * The log never holds a secret (docs/security.md « Journal »): no cookie, session token, e-mail link token,
 * private key, password or credential of a URL, at any level.
 *
 * Three layers, from the most to the least structured:
 * 1. `redact` removes the headers and body fields that carry secrets, wherever an object is logged whole;
 * 2. the `req` serializer logs the request's URL with its secret parts masked (`masquerUrl`): every query
 *    value except a short allow-list of harmless parameters, the token of a reset link, any long
 *    token-like path segment;
 * 3. a scrubber runs over every line written (`masquerLigne`: query values, reset-link tokens, URL
 *    credentials, `key=value` / `"key":"value"` pairs named like a secret, bearer tokens, JWTs), and over
 *    free-text messages (`masquerTexte`: the same, plus any bare token-like word), so better-auth's
 *    messages, error messages and whatever a future log line holds are covered too.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js';

export const MASQUE = '[masqué]';

/** Query parameters whose values are harmless and kept in the log (paging, sorting, filters, flags). */
const QUERY_SURES = new Set(['page', 'pageSize', 'sort', 'order', 'status', 'limit', 'download', 'v', 'numero']);

/** Names of fields and headers whose value is a secret. */
const CHAMPS_SECRETS = [
  'password',
  'newPassword',
  'currentPassword',
  'token',
  'accessKey',
  'privateLink',
  'secret',
  'cookie',
  'authorization',
  'x-access-key',
  'set-cookie',
  // An Open311 client's key (form or JSON body, or query string).
  'api_key',
];

/** pino `redact` paths: whole headers and body fields, at the top level and one level down. */
export const CHEMINS_MASQUES = [
  ...CHAMPS_SECRETS.map((f) => `headers["${f}"]`),
  ...CHAMPS_SECRETS.map((f) => `req.headers["${f}"]`),
  ...CHAMPS_SECRETS.map((f) => `res.headers["${f}"]`),
  ...CHAMPS_SECRETS.map((f) => `body["${f}"]`),
  ...CHAMPS_SECRETS.map((f) => `["${f}"]`),
  ...CHAMPS_SECRETS.map((f) => `*["${f}"]`),
];

/** One masking rule: a cheap guard (most lines fail it), then its regular expression and replacement. */
interface Regle {
  guard: RegExp;
  re: RegExp;
  replace: (match: string, ...args: string[]) => string;
}

const REGLES: Regle[] = [
  {
    // ?name=value or &name=value (a URL's query, possibly percent-encoded inside another URL).
    guard: /[?&]|%3f|%26/iu,
    re: /([?&]|%3F|%26)([A-Za-z0-9_.\-[\]]{1,64})(=|%3D)([^&#\s"'\\<>]*)/giu,
    replace: (match, sep, name, eq, value) => (QUERY_SURES.has(name!) || value === '' ? match : `${sep}${name}${eq}${MASQUE}`),
  },
  {
    // The token of a password-reset link, in its path.
    guard: /reset-password/iu,
    re: /(reset-password(?:\/|%2F))([^/?#&\s"'\\<>]+)/giu,
    replace: (_match, prefix) => `${prefix}${MASQUE}`,
  },
  {
    // Credentials inside a URL: scheme://user:password@host.
    guard: /:\/\/[^\s/]*@/u,
    re: /([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'\\<>]+@/giu,
    replace: (_match, scheme) => `${scheme}${MASQUE}@`,
  },
  {
    // An e-mail address (a mail server's refusal naming its recipient, a path someone typed): personal data.
    guard: /@|%40/iu,
    re: /[A-Za-z0-9._%+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/giu,
    replace: () => MASQUE,
  },
  {
    // "secret": "value", secret=value, secret: value (JSON, cookie strings, messages).
    guard: /passw|passe|secret|key|token|cle|authorization|cookie/iu,
    re: /((?<![A-Za-z0-9])(?:new|current)?(?:password|passwd|mot_?de_?passe|secret|access_?key|x-access-key|session_token|(?:id_|access_|refresh_)?token|cle|authorization|cookie)["']?\s*[:=]\s*)(?:"((?:[^"\\]|\\.)*)"|'?((?!\[|Bearer\s|Basic\s)[^\s"',;&}\]]+))/giu,
    replace: (match, key, quoted, bare) => {
      if (quoted !== undefined) return quoted === MASQUE || quoted === '' ? match : `${key}"${MASQUE}"`;
      return bare === MASQUE ? match : `${key}${MASQUE}`;
    },
  },
  {
    // Authorization: Bearer xxx
    guard: /bearer|basic/iu,
    re: /(\b(?:Bearer|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}/giu,
    replace: (_match, prefix) => `${prefix}${MASQUE}`,
  },
  {
    // A stored document's file name (`<request id>/<document id>/<block>-<name>`, in a path or a bucket's key): the
    // name the person gave the file (« CNI_Helene_Martin.pdf »), in an I/O error's message or path.
    guard: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\//iu,
    re: /((?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/){2})[^/\s"'\\<>]+/giu,
    replace: (_match, dossier) => `${dossier}${MASQUE}`,
  },
  {
    // A JSON Web Token (better-auth's e-mail verification tokens are JWTs).
    guard: /eyJ/u,
    re: /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/gu,
    replace: () => MASQUE,
  },
];

/** In free text, also any long word that looks like a token (24+ letters, digits, - or _, with a digit). */
const MOT_JETON: Regle = {
  guard: /[A-Za-z0-9_-]{24}/u,
  re: /(?<![A-Za-z0-9_-])(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{24,}(?![A-Za-z0-9_-])/gu,
  replace: () => MASQUE,
};

function appliquer(text: string, regles: Regle[]): string {
  let out = text;
  for (const regle of regles) {
    if (regle.guard.test(out)) out = out.replace(regle.re, regle.replace as (substring: string, ...args: unknown[]) => string);
  }
  return out;
}

/** A log line (JSON) with every secret-looking part masked. */
export function masquerLigne(line: string): string {
  return appliquer(line, REGLES);
}

const REGLES_TEXTE = [...REGLES, MOT_JETON];

/** A free-text message (better-auth's, an error's) with every secret-looking part masked. */
export function masquerTexte(text: string): string {
  return appliquer(text, REGLES_TEXTE);
}

/** A request URL as logged: query values (but harmless ones) and token-like path segments masked. */
export function masquerUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q === -1 ? url : url.slice(0, q))
    .split('/')
    .map((segment, i, all) => (all[i - 1] === 'reset-password' || /^[A-Za-z0-9_\-%]{40,}$/u.test(segment) ? MASQUE : segment))
    .join('/');
  return q === -1 ? path : path + masquerLigne(url.slice(q));
}

/**
 * Fields of a database error that quote the data itself: PostgreSQL's `detail` (« Failing row contains (…every
 * column…) », « Key (email)=(…) already exists »), `where`, `internalQuery`. Table, column and constraint names stay.
 */
const CHAMPS_DE_DONNEES = ['detail', 'where', 'internalQuery'];

/** Whether an error (or one of its causes, a few levels down) carries such a field. */
function enDonnees(error: unknown, profondeur = 0): boolean {
  if (error === null || typeof error !== 'object' || profondeur > 4) return false;
  return CHAMPS_DE_DONNEES.some((champ) => Object.hasOwn(error, champ)) || enDonnees((error as { cause?: unknown }).cause, profondeur + 1);
}

/** A copy of the error (same prototype, message, stack, code…) without the fields that quote data, causes included. */
function sansDonnees<T extends object>(error: T, profondeur = 0): T {
  const copie = Object.create(Object.getPrototypeOf(error) as object | null, Object.getOwnPropertyDescriptors(error)) as Record<string, unknown>;
  for (const champ of CHAMPS_DE_DONNEES) delete copie[champ];
  const cause = copie.cause;
  if (cause !== null && typeof cause === 'object' && profondeur < 4 && enDonnees(cause)) copie.cause = sansDonnees(cause, profondeur + 1);
  return copie as T;
}

/** Request ids taken from the caller: letters, digits and `. _ : -`, 8 to 128 of them (a UUID, a proxy's hex id). */
const ID_SAIN = /^[A-Za-z0-9][A-Za-z0-9._:-]{7,127}$/u;

/**
 * Fastify's `genReqId`: the request's `X-Request-Id` when it is a sane token (a proxy's or a client's, to follow one
 * request across systems), else a random UUID. Anything else in the header (an e-mail, spaces, a 2 KB string) is
 * never logged: it is replaced. The id is echoed in the answer's `X-Request-Id` (app.ts) and is each line's `reqId`.
 */
export function idDeRequete(req: IncomingMessage): string {
  const recu = req.headers['x-request-id'];
  return typeof recu === 'string' && ID_SAIN.test(recu) ? recu : randomUUID();
}

/**
 * The pino options of the app's logger: levels and destination come from the caller, the redaction
 * from here (buildApp always adds them, tests included).
 */
export function optionsJournal(): Record<string, unknown> {
  return {
    redact: { paths: CHEMINS_MASQUES, censor: MASQUE },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: masquerUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void) {
        for (let i = 0; i < args.length; i++) {
          const arg = args[i];
          if (typeof arg === 'string') args[i] = masquerTexte(arg);
          else if (arg !== null && typeof arg === 'object' && 'err' in arg && enDonnees((arg as { err: unknown }).err)) {
            args[i] = { ...arg, err: sansDonnees((arg as { err: object }).err) };
          }
        }
        method.apply(this, args);
      },
      streamWrite: masquerLigne,
    },
  };
}

/** A request that takes this long or longer is logged at `warn`, whatever its answer. */
export const REQUETE_LENTE_MS = 1000;

type Niveau = 'error' | 'warn' | 'info' | 'debug';

/** The level of a request's one log line: errors and 5xx, slow requests, 4xx, then the rest. */
export function niveauRequete(error: unknown, statusCode: number, ms: number): Niveau {
  if (error || statusCode >= 500) return 'error';
  if (ms >= REQUETE_LENTE_MS) return 'warn';
  return statusCode >= 400 ? 'info' : 'debug';
}

/**
 * Fastify's per-request logging, cheaper (docs/security.md « Journal »): one line per request, when it
 * ends, holding the method, the masked URL, the status and the time — at `error` for a failure or a
 * 5xx, `warn` past REQUETE_LENTE_MS, `info` for a 4xx (refusals, rate limits, unknown numéros) and
 * `debug` for the rest. At the default level (`info`) a successful request writes nothing, and costs
 * no serialisation; Fastify's own two lines (« incoming request », « request completed ») are gone.
 */
export class JournalRequetes extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const ms = reply.elapsedTime;
    let niveau = niveauRequete(error, reply.statusCode, ms);
    // A probe's 503 (/readyz while a check fails, or while the app closes) at `info`: polled every few seconds, its
    // cause is logged once elsewhere (exploitation/sondes.ts, exploitation/arret.ts).
    if (niveau === 'error' && !error && request.routeOptions.config.sonde) niveau = 'info';
    const log = reply.log as FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
    if (log.isLevelEnabled && !log.isLevelEnabled(niveau)) return;
    log[niveau]({ req: request, res: reply, responseTime: ms, ...(error ? { err: error } : {}) }, error ? 'request errored' : 'request completed');
  }
}

type Methode = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Journal = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's logger, made only when the request writes a line (issue 11): pino's child costs each
 * request ~20 µs (its bindings go through the redaction), and at the default level a successful request
 * writes nothing. The real child is made at the first line of an enabled level, or when asked for one.
 */
export class JournalDeRequete implements FastifyBaseLogger {
  #enfant: Journal | undefined;

  constructor(
    private readonly parent: Journal,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  #vrai(): Journal {
    return (this.#enfant ??= this.parent.child(this.bindings, this.options) as Journal);
  }

  #ecrire(methode: Methode, args: unknown[]): void {
    const journal = this.#enfant ?? this.parent;
    if (journal.isLevelEnabled && !journal.isLevelEnabled(methode)) return;
    (this.#vrai()[methode] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.#enfant ?? this.parent).level;
  }

  set level(level: string) {
    this.#vrai().level = level;
  }

  isLevelEnabled(level: string): boolean {
    const journal = this.#enfant ?? this.parent;
    return journal.isLevelEnabled ? journal.isLevelEnabled(level) : true;
  }

  fatal(...args: unknown[]): void {
    this.#ecrire('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#ecrire('error', args);
  }

  warn(...args: unknown[]): void {
    this.#ecrire('warn', args);
  }

  info(...args: unknown[]): void {
    this.#ecrire('info', args);
  }

  debug(...args: unknown[]): void {
    this.#ecrire('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#ecrire('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#vrai().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a route with its own level gets pino's child at once, the others a lazy one. */
export function journalDeRequete(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined) return logger.child(bindings, options);
  return new JournalDeRequete(logger, bindings, options);
}
