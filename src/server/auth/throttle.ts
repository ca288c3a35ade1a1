import { createHmac } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { normaliseEmail } from '../../domain/normalise.js';
import type { Db } from '../db/index.js';

/**
 * Per-account progressive throttling (ASVS 2.2.1), on top of the per-IP limit: attempts on one e-mail
 * address are counted in the database, whatever address they come from and on every instance. After
 * `threshold` attempts the address is locked for `baseSeconds`, doubled at each further attempt up to
 * `maxSeconds`; while locked every attempt, even with the right password, is refused (429). A success
 * forgets the count; so does a quiet `forgetSeconds`. An unknown address is counted exactly like a known
 * one, so the answers never tell whether an account exists.
 */
export interface ThrottleRule {
  threshold: number;
  baseSeconds: number;
  maxSeconds: number;
  forgetSeconds: number;
}

export type ThrottleScope = 'sign-in' | 'reset' | 'verification';

export const DEFAULT_THROTTLE: Record<ThrottleScope, ThrottleRule> = {
  // Five tries, then 1, 2, 4, 8, 16, 30 minutes: at most ~50 guesses a day on one account.
  'sign-in': { threshold: 5, baseSeconds: 60, maxSeconds: 30 * 60, forgetSeconds: 24 * 3600 },
  // Three reset links, then 1, 2, 4… minutes between the next ones: no mail flood on one address.
  reset: { threshold: 3, baseSeconds: 60, maxSeconds: 30 * 60, forgetSeconds: 24 * 3600 },
  // New links to confirm an address: the same pace.
  verification: { threshold: 3, baseSeconds: 60, maxSeconds: 30 * 60, forgetSeconds: 24 * 3600 },
};

export type Verdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The SQL of the `auth_throttle` table. */
export class ThrottleRepository {
  constructor(private readonly db: Db) {}

  /**
   * Counts one attempt unless the key is locked, in one statement (concurrent attempts on any instance
   * are each counted, none slips through a lock, and a success forgetting the count meanwhile cannot make
   * the attempt find no row): answers the lock's end when it refused, else null.
   */
  async attempt(key: string, rule: ThrottleRule, now: number, essais = 3): Promise<number | null> {
    // Times are cast: PostgreSQL would otherwise type the parameters as the CASE's integer 0.
    const ms = (value: number) => sql<number>`cast(${value} as bigint)`;
    // The count after this attempt (a quiet period starts it again), and the lock it brings.
    const count = sql<number>`(case when auth_throttle.last_failure_at < ${ms(now - rule.forgetSeconds * 1000)} then 1 else auth_throttle.failures + 1 end)`;
    // The end of the lock that the `n`th attempt brings (0: none); the first attempt's too, with n = 1.
    const lockedUntil = (n: RawBuilder<number>) => {
      const steps = [sql`when ${n} < ${rule.threshold} then ${ms(0)}`];
      for (let extra = 0, delay = rule.baseSeconds; delay < rule.maxSeconds; extra++, delay *= 2) {
        steps.push(sql`when ${n} = ${rule.threshold + extra} then ${ms(now + delay * 1000)}`);
      }
      return sql<number>`(case ${sql.join(steps, sql` `)} else ${ms(now + rule.maxSeconds * 1000)} end)`;
    };
    const counted = await this.db
      .insertInto('authThrottle')
      .values({ key, failures: 1, lastFailureAt: now, lockedUntil: lockedUntil(sql<number>`1`) })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet({ failures: count, lastFailureAt: now, lockedUntil: lockedUntil(count) })
          .where('authThrottle.lockedUntil', '<=', now),
      )
      .returning('failures')
      .executeTakeFirst();
    if (counted) return null;
    const row = await this.db.selectFrom('authThrottle').select('lockedUntil').where('key', '=', key).executeTakeFirst();
    // Forgotten (a success) or unlocked between the two statements: count this attempt again; after three such
    // turns, successes keep forgetting the count: the attempt goes through uncounted.
    if (!row || Number(row.lockedUntil) <= now) return essais > 1 ? this.attempt(key, rule, now, essais - 1) : null;
    return Math.max(Number(row.lockedUntil), now + 1000);
  }

  async forget(key: string): Promise<void> {
    await this.db.deleteFrom('authThrottle').where('key', '=', key).execute();
  }

  /** Rows of addresses nobody tried for a long time and not locked: dropped. */
  async purge(before: number, now: number): Promise<void> {
    await this.db.deleteFrom('authThrottle').where('lastFailureAt', '<', before).where('lockedUntil', '<=', now).execute();
  }
}

/** The throttle's decisions: which key an address has, when it is refused, when it is forgotten. */
export class AccountThrottle {
  private attempts = 0;

  constructor(
    private readonly deps: {
      repository: ThrottleRepository;
      /** Keys are an HMAC under this secret: a copy of the table does not tell which addresses were tried. */
      secret: string;
      rules?: Partial<Record<ThrottleScope, ThrottleRule>>;
      now?: () => number;
    },
  ) {}

  private rule(scope: ThrottleScope): ThrottleRule {
    return this.deps.rules?.[scope] ?? DEFAULT_THROTTLE[scope];
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  key(scope: ThrottleScope, email: string): string {
    return createHmac('sha256', this.deps.secret).update(`${scope}:${normaliseEmail(email)}`).digest('hex');
  }

  /** Counts an attempt on this address; refused while it is locked. */
  async attempt(scope: ThrottleScope, email: string): Promise<Verdict> {
    const now = this.now();
    const rule = this.rule(scope);
    this.attempts += 1;
    if (this.attempts % 500 === 0) await this.deps.repository.purge(now - Math.max(rule.forgetSeconds, rule.maxSeconds) * 1000, now);
    const lockedUntil = await this.deps.repository.attempt(this.key(scope, email), rule, now);
    if (lockedUntil === null) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.ceil((lockedUntil - now) / 1000) };
  }

  /** A success (or a new password): the address starts again with a clean count. */
  async forget(scope: ThrottleScope, email: string): Promise<void> {
    await this.deps.repository.forget(this.key(scope, email));
  }
}

/** « dans 2 minutes », « dans 1 minute » (rounded up: never less than the real wait). */
function delai(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes === 1 ? 'dans 1 minute' : `dans ${minutes} minutes`;
}

/** What a person reads when the address is locked (the same for an address with or without an account). */
export function messageVerrouillage(scope: ThrottleScope, retryAfterSeconds: number): string {
  return scope === 'sign-in'
    ? `Trop de tentatives pour ce compte. Réessayez ${delai(retryAfterSeconds)}.`
    : `Trop de demandes de lien pour cette adresse. Réessayez ${delai(retryAfterSeconds)}.`;
}
