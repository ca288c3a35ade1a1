import { Redis } from 'ioredis';

/** The Redis of the tests (machines here run one at 127.0.0.1:6379; .ci/run starts one where none answers). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a Redis server answers PING at `url` within a second (never retried, never left open). */
export async function redisRepond(url: string = REDIS_URL): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Deletes the keys under `prefixe` (one run's REDIS_PREFIX), leaving everyone else's. */
export async function effacerCles(redis: Redis, prefixe: string): Promise<void> {
  let curseur = '0';
  do {
    const [suivant, cles] = await redis.scan(curseur, 'MATCH', `${prefixe}*`, 'COUNT', 1000);
    curseur = suivant;
    if (cles.length > 0) await redis.del(...cles);
  } while (curseur !== '0');
}
