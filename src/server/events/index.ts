import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import type { EvenementDirect } from '../../domain/demande.js';
import type { EvenementSignalement } from '../../domain/signalements.js';

/** pg loads with the first PostgreSQL bus (never on SQLite). */
const pgModule = (): typeof pg => createRequire(import.meta.url)('pg') as typeof pg;

/** Publishes status changes to every server instance; each instance hands them to its SSE clients. */
export interface EventBus {
  publish(event: EvenementDirect): Promise<void>;
  subscribe(listener: (event: EvenementDirect) => void): () => void;
  /** Technical reports (features/signalements) on a topic of their own: housing streams never see them. */
  publishSignalement(event: EvenementSignalement): Promise<void>;
  subscribeSignalements(listener: (event: EvenementSignalement) => void): () => void;
  close(): Promise<void>;
}

/** One process (SQLite): an in-memory emitter is enough. */
export class LocalBus implements EventBus {
  protected readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(event: EvenementDirect): Promise<void> {
    this.emitter.emit('statut', event);
  }

  subscribe(listener: (event: EvenementDirect) => void): () => void {
    this.emitter.on('statut', listener);
    return () => this.emitter.off('statut', listener);
  }

  async publishSignalement(event: EvenementSignalement): Promise<void> {
    this.emitter.emit('signalement', event);
  }

  subscribeSignalements(listener: (event: EvenementSignalement) => void): () => void {
    this.emitter.on('signalement', listener);
    return () => this.emitter.off('signalement', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

const CHANNEL = 'qv_statut';
const CHANNEL_SIGNALEMENTS = 'qv_signalement';

/**
 * PostgreSQL: NOTIFY reaches every instance LISTENing on the channel, this one included, so a change
 * made through any instance shows on the lists open on all of them. The listening connection is
 * re-opened if it drops.
 */
export class PostgresBus extends LocalBus {
  private client: pg.Client | null = null;
  private closed = false;
  private readonly pool: pg.Pool;
  /** The next attempt to listen again, while the connection is lost. */
  private reprise: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly log: FastifyBaseLogger,
  ) {
    super();
    this.pool = new (pgModule().Pool)({ connectionString: url, max: 2 });
    this.pool.on('error', (error) => this.log.warn({ err: error }, 'connexion inactive perdue (publication)'));
  }

  /** Listens; a failure here stops the app's start (the database is not there). */
  async start(): Promise<void> {
    await this.ecouter();
  }

  private async ecouter(): Promise<void> {
    const client = new (pgModule().Client)({ connectionString: this.url });
    client.on('notification', (message) => {
      if ((message.channel !== CHANNEL && message.channel !== CHANNEL_SIGNALEMENTS) || !message.payload) return;
      try {
        if (message.channel === CHANNEL_SIGNALEMENTS) this.emitter.emit('signalement', JSON.parse(message.payload) as EvenementSignalement);
        else this.emitter.emit('statut', JSON.parse(message.payload) as EvenementDirect);
      } catch (error) {
        this.log.warn({ err: error }, 'notification illisible');
      }
    });
    let perdue = false;
    const perdre = (error: unknown) => {
      if (perdue || this.closed) return;
      perdue = true;
      if (this.client !== client) return;
      this.log.error({ err: error }, 'connexion LISTEN perdue, reconnexion');
      this.client = null;
      void client.end().catch(() => undefined);
      this.reessayer(1000);
    };
    client.on('error', perdre);
    client.on('end', () => perdre(new Error('connexion fermée par le serveur')));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      await client.query(`LISTEN ${CHANNEL_SIGNALEMENTS}`);
    } catch (error) {
      perdue = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
  }

  /**
   * Listens again after `delaiMs`, then twice as long after each failure (at most 30 s), until it succeeds: the
   * database restarting or out of reach for a while must not leave this instance deaf for good.
   */
  private reessayer(delaiMs: number): void {
    this.reprise = setTimeout(() => {
      if (this.closed) return;
      this.ecouter().then(
        () => {
          if (!this.closed) this.log.info('connexion LISTEN rétablie');
        },
        (error: unknown) => {
          this.log.warn({ err: error, nouvelEssaiDansMs: Math.min(delaiMs * 2, 30_000) }, 'reconnexion LISTEN échouée');
          this.reessayer(Math.min(delaiMs * 2, 30_000));
        },
      );
    }, delaiMs);
  }

  override async publish(event: EvenementDirect): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(event)]);
  }

  override async publishSignalement(event: EvenementSignalement): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL_SIGNALEMENTS, JSON.stringify(event)]);
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reprise);
    await super.close();
    await this.client?.end().catch(() => undefined);
    await this.pool.end();
  }
}

/**
 * Redis (REDIS_URL, src/server/partage/redis.ts): PUBLISH reaches every instance subscribed to the channel, this one
 * included, on PostgreSQL or SQLite alike; the channels carry REDIS_PREFIX. The subscriptions' connection is its own
 * (ioredis makes the subscriptions again after a reconnection). A publication Redis refuses (Redis away) still
 * reaches this instance's own streams, then fails for the caller to log.
 */
export class RedisBus extends LocalBus {
  private readonly canaux: { statut: string; signalement: string };
  private readonly recevoir = (canal: string, message: string) => {
    try {
      if (canal === this.canaux.statut) this.emitter.emit('statut', JSON.parse(message) as EvenementDirect);
      else if (canal === this.canaux.signalement) this.emitter.emit('signalement', JSON.parse(message) as EvenementSignalement);
    } catch (error) {
      this.log.warn({ err: error }, 'message Redis illisible');
    }
  };

  constructor(
    private readonly redis: { commandes: Redis; abonnements: Redis; prefixe: string },
    private readonly log: FastifyBaseLogger,
  ) {
    super();
    this.canaux = { statut: `${redis.prefixe}statut`, signalement: `${redis.prefixe}signalement` };
  }

  /** Subscribes; waits for it only while Redis answers (else it is made when Redis comes back). */
  async start(): Promise<void> {
    this.redis.abonnements.on('message', this.recevoir);
    const abonnement = this.redis.abonnements.subscribe(this.canaux.statut, this.canaux.signalement);
    if (this.redis.abonnements.status === 'ready') await abonnement;
    else abonnement.catch((error: unknown) => this.log.warn({ err: error }, 'abonnement Redis aux événements en direct impossible'));
  }

  override async publish(event: EvenementDirect): Promise<void> {
    await this.publier(this.canaux.statut, 'statut', event);
  }

  override async publishSignalement(event: EvenementSignalement): Promise<void> {
    await this.publier(this.canaux.signalement, 'signalement', event);
  }

  private async publier(canal: string, nom: 'statut' | 'signalement', event: EvenementDirect | EvenementSignalement): Promise<void> {
    try {
      await this.redis.commandes.publish(canal, JSON.stringify(event));
    } catch (error) {
      this.emitter.emit(nom, event);
      throw error;
    }
  }

  /** Stops listening; the connections themselves are closed by their owner (ConnexionRedis.fermer). */
  override async close(): Promise<void> {
    this.redis.abonnements.off('message', this.recevoir);
    await super.close();
  }
}
