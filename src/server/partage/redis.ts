import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type * as IORedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';

/** ioredis loads only when REDIS_URL is set (never for a single instance). */
const ioredis = (): typeof IORedis => createRequire(import.meta.url)('ioredis') as typeof IORedis;

/** How long the start waits for Redis before going on without it (both connections keep trying meanwhile). */
export const ATTENTE_DEMARRAGE_MS = 5000;
/** A command Redis has not answered within this fails: the rate limit lets the request through, uncounted. */
const DELAI_COMMANDE_MS = 1000;

/**
 * The connection to Redis (REDIS_URL, docs/operations.md « Plusieurs instances »): one client for commands (the
 * rate-limit counters, PUBLISH) and one for the subscriptions of the live events (a subscribed connection takes no
 * other command). Both reconnect on their own, for ever, every 2 s at most; the subscriptions are made again.
 *
 * While Redis is away, nothing waits for it: the command client queues nothing (a command fails at once, or after
 * one second without an answer), so a rate limit lets requests through uncounted and a live event reaches this
 * instance's streams only. The outage is logged once (warn) and its end once (info); /readyz reports it
 * (`verification()`). The URL, which may carry a password, is never logged.
 */
export class ConnexionRedis {
  readonly commandes: Redis;
  readonly abonnements: Redis;
  /** The connections that are not ready now: an outage is logged when the first goes, its end when the last comes back. */
  private readonly enPanne = new Set<Redis>();
  /** Whether the current outage was logged. */
  private signalee = false;
  private fermee = false;

  constructor(
    url: string,
    /** Put before every key and channel name, so that two deployments can share one Redis (REDIS_PREFIX). */
    readonly prefixe: string,
    private readonly log: FastifyBaseLogger,
  ) {
    const { Redis } = ioredis();
    const commun: RedisOptions = {
      connectTimeout: 2000,
      retryStrategy: (fois) => Math.min(fois * 200, 2000),
      // CLIENT SETINFO came with Redis 7.2; older servers answer it with an error that is only noise.
      disableClientInfo: true,
    };
    this.commandes = new Redis(url, { ...commun, connectionName: 'quartier-vivant', enableOfflineQueue: false, commandTimeout: DELAI_COMMANDE_MS, maxRetriesPerRequest: 1 });
    // Its SUBSCRIBE waits for the connection (queued), and is made again after each reconnection (autoResubscribe).
    this.abonnements = new Redis(url, { ...commun, connectionName: 'quartier-vivant-abonnements', maxRetriesPerRequest: null });
    for (const client of [this.commandes, this.abonnements]) {
      this.enPanne.add(client);
      client.on('ready', () => this.pret(client));
      client.on('error', (error: Error) => this.panne(client, error));
      client.on('close', () => this.panne(client, null));
    }
  }

  /** Waits until both connections are ready, at most `attenteMs`; past it the app starts anyway, and says so. */
  async ouvrir(attenteMs = ATTENTE_DEMARRAGE_MS): Promise<void> {
    let minuteur: NodeJS.Timeout | undefined;
    const prets = Promise.all([this.commandes, this.abonnements].map((c) => (c.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => c.once('ready', () => resolve())))));
    const delai = new Promise<'delai'>((resolve) => {
      minuteur = setTimeout(() => resolve('delai'), attenteMs);
    });
    const issue = await Promise.race([prets, delai]);
    clearTimeout(minuteur);
    if (issue === 'delai') {
      this.log.warn(
        `Redis (REDIS_URL) ne répond pas après ${Math.round(attenteMs / 1000)} s : le serveur démarre sans lui et réessaie ; en attendant les limites de fréquence ne sont pas comptées et les événements en direct restent sur cette instance`,
      );
    }
  }

  /** Both connections ready now. */
  estPrete(): boolean {
    return this.commandes.status === 'ready' && this.abonnements.status === 'ready';
  }

  /** Resolves when Redis answers now (PING) and the subscriptions' connection is up; rejects otherwise. */
  async verifier(): Promise<void> {
    if (this.abonnements.status !== 'ready') throw new Error(`connexion des abonnements : ${this.abonnements.status}`);
    await this.commandes.ping();
  }

  /** The /readyz check (src/server/exploitation/sondes.ts `Verification`): reported, never a 503 (see `informative`). */
  verification(): { nom: string; quoi: string; verifier: () => Promise<void>; informative: true } {
    return { nom: 'redis', quoi: 'Redis', verifier: () => this.verifier(), informative: true };
  }

  /** Closes both connections (the app closes): QUIT when connected, else at once. */
  async fermer(): Promise<void> {
    if (this.fermee) return;
    this.fermee = true;
    await Promise.all(
      [this.commandes, this.abonnements].map(async (client) => {
        if (client.status !== 'ready') {
          client.disconnect();
          return;
        }
        let minuteur: NodeJS.Timeout | undefined;
        await Promise.race([
          client.quit().catch(() => undefined),
          new Promise<void>((resolve) => {
            minuteur = setTimeout(resolve, 1000);
          }),
        ]);
        clearTimeout(minuteur);
        client.disconnect();
      }),
    );
  }

  private pret(client: Redis): void {
    const etaitEnPanne = this.enPanne.delete(client);
    if (etaitEnPanne && this.enPanne.size === 0 && this.signalee) {
      this.signalee = false;
      this.log.info('Redis répond de nouveau : limites de fréquence et événements en direct de nouveau partagés entre les instances');
    }
  }

  /** A connection failed (`error`) or closed (null: the server went away, or a network cut). */
  private panne(client: Redis, error: Error | null): void {
    if (this.fermee) return;
    this.enPanne.add(client);
    if (this.signalee) return;
    this.signalee = true;
    // The message of a connection error names the host and port, never the password.
    this.log.warn(
      error ? { err: { message: error.message, code: (error as NodeJS.ErrnoException).code } } : { err: { message: 'connexion fermée' } },
      'Redis (REDIS_URL) ne répond pas : les limites de fréquence laissent passer les requêtes sans les compter et les événements en direct restent sur cette instance, jusqu’à son retour (reconnexion automatique)',
    );
  }
}
