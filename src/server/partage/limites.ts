import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type { RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../db/index.js';
import type { ConnexionRedis } from './redis.js';

type Resultat = { current: number; ttl: number };
type Rappel = (error: Error | null, result?: Resultat) => void;
/** What @fastify/rate-limit hands a store's `child`: the route's options, `routeInfo` its method and URL (`{}` for createRateLimit). */
type OptionsDeRoute = { routeInfo?: { method?: unknown; url?: unknown } };

/** @fastify/rate-limit's store interface (README « Custom store »): count one hit of `key`, answer the count and the window's rest. */
interface Magasin {
  incr(key: string, rappel: Rappel, timeWindow: number, max: number): void;
  child(options: OptionsDeRoute): Magasin;
}

/** At most one warning a minute about a counter that does not answer. */
const SIGNALER_TOUTES_MS = 60_000;
/** PostgreSQL: the rows of ended windows are deleted at most once a minute per instance. */
const NETTOYER_TOUTES_MS = 60_000;

/**
 * Where the per-address rate-limit counters live (docs/operations.md « Plusieurs instances »), as
 * @fastify/rate-limit's options:
 * - REDIS_URL set: in Redis (the plugin's own Redis store, its keys under REDIS_PREFIX), shared by every instance;
 * - PostgreSQL without Redis: in the table `limites_frequence`, one upsert per counted request, shared as well;
 * - SQLite (one instance): in this process's memory, the plugin's default.
 * A shared counter that fails (Redis or PostgreSQL away, or slower than a second for Redis) never turns a request
 * into an error: `skipOnError` lets it through uncounted, and a warning is logged (once a minute at most).
 */
export function optionsDesLimites(choix: { redis: ConnexionRedis | undefined; db: Db; postgres: boolean; secret: string; log: FastifyBaseLogger }): Partial<RateLimitPluginOptions> {
  const { redis, db, log } = choix;
  let dernierSignalement = 0;
  const signaler = (ou: string) => (error: Error) => {
    const now = Date.now();
    if (now - dernierSignalement < SIGNALER_TOUTES_MS) return;
    dernierSignalement = now;
    log.warn({ err: { message: error.message } }, `limites de fréquence : ${ou} ne répond pas, les requêtes passent sans être comptées`);
  };
  if (redis) {
    // The plugin's store (a Lua script: INCR, then PEXPIRE on the first hit), on the command connection.
    const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore') as new (
      continueExceeding: boolean,
      exponentialBackoff: boolean,
      redis: unknown,
      key: string,
    ) => Magasin;
    const racine = new RedisStore(false, false, redis.commandes, `${redis.prefixe}limites:`);
    return { store: constructeur(racine, signaler('Redis')), skipOnError: true };
  }
  if (choix.postgres) return { store: constructeur(new MagasinPostgres(db, choix.secret, '', { dernier: 0 }), signaler('PostgreSQL')), skipOnError: true };
  return {};
}

/** The class the plugin instantiates (`new store(globalParams)`): every instance wraps the one root store. */
function constructeur(racine: Magasin, signaler: (error: Error) => void): NonNullable<RateLimitPluginOptions['store']> {
  return class extends MagasinSignale {
    constructor() {
      super(racine, signaler);
    }
  } as unknown as NonNullable<RateLimitPluginOptions['store']>;
}

/** A store whose failures are logged, then handed to the plugin (which, with `skipOnError`, lets the request through). */
class MagasinSignale implements Magasin {
  constructor(
    private readonly interne: Magasin,
    private readonly signaler: (error: Error) => void,
  ) {}

  incr(key: string, rappel: Rappel, timeWindow: number, max: number): void {
    this.interne.incr(
      key,
      (error, result) => {
        if (error) this.signaler(error);
        rappel(error, result);
      },
      timeWindow,
      max,
    );
  }

  child(options: OptionsDeRoute): Magasin {
    return new MagasinSignale(this.interne.child(options), this.signaler);
  }
}

/**
 * The counters in PostgreSQL (migration 0023): one row per route and key, its count and the end of its window in
 * ms. One statement counts a hit, whichever instance gets it: the upsert takes the row's lock, so concurrent hits
 * are each counted; a window that has ended starts again at 1. Keys (client addresses, numéros) are stored as an
 * HMAC under the auth secret: a copy of the database does not tell who was counted.
 */
export class MagasinPostgres implements Magasin {
  constructor(
    private readonly db: Db,
    private readonly secret: string,
    /** `POST /app/api/logement`: the route's own counters (empty for the limiters made with createRateLimit). */
    private readonly route: string,
    private readonly nettoyage: { dernier: number },
  ) {}

  incr(key: string, rappel: Rappel, timeWindow: number): void {
    this.compter(key, timeWindow).then(
      (result) => rappel(null, result),
      (error: unknown) => rappel(error instanceof Error ? error : new Error(String(error))),
    );
  }

  child(options: OptionsDeRoute): Magasin {
    const { method, url } = options.routeInfo ?? {};
    const route = typeof method === 'string' && typeof url === 'string' ? `${method} ${url}` : '';
    return new MagasinPostgres(this.db, this.secret, route, this.nettoyage);
  }

  async compter(key: string, timeWindow: number, now = Date.now()): Promise<Resultat> {
    const cle = createHmac('sha256', this.secret).update(`${this.route}\n${key}`).digest('base64url');
    // Cast: PostgreSQL would type the parameters as integer (32 bits) in the CASE.
    const ms = (value: number) => sql<number>`cast(${value} as bigint)`;
    const termine = sql<boolean>`limites_frequence.fin_ms <= ${ms(now)}`;
    const row = await this.db
      .insertInto('limitesFrequence')
      .values({ cle, compte: 1, finMs: now + timeWindow })
      .onConflict((oc) =>
        oc.column('cle').doUpdateSet({
          compte: sql<number>`case when ${termine} then 1 else limites_frequence.compte + 1 end`,
          finMs: sql<number>`case when ${termine} then ${ms(now + timeWindow)} else limites_frequence.fin_ms end`,
        }),
      )
      .returning(['compte', 'finMs'])
      .executeTakeFirstOrThrow();
    if (now - this.nettoyage.dernier >= NETTOYER_TOUTES_MS) {
      this.nettoyage.dernier = now;
      // Ended windows: no longer read (the upsert starts them again); a failure only leaves them for the next time.
      void this.db
        .deleteFrom('limitesFrequence')
        .where('finMs', '<', now)
        .execute()
        .catch(() => undefined);
    }
    return { current: Number(row.compte), ttl: Math.max(0, Number(row.finMs) - now) };
  }
}
