import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { problemeDeStockage } from '../errors.js';

/**
 * The last query error that was a storage problem (full or read-only disk), and how many there were. Not an
 * AsyncLocalStorage: using one in Node 20 turns on promise hooks for the whole process, and every promise of
 * every request then paid for it (~7 % of the server's CPU under the mixed load, issue 11). A storage problem
 * is the disk's, not one request's: a call that fails while one is met reports it.
 */
let pannes = 0;
let dernierePanne: unknown;

/**
 * Methods keep their own `this` (Kysely's classes hold private fields); each is bound once, not at every call (the
 * driver's are read for every query and transaction).
 */
function bound<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  const lies = new Map<PropertyKey, { de: (...args: unknown[]) => unknown; lie: (...args: unknown[]) => unknown }>();
  return new Proxy(target, {
    get(object, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof T];
      const value: unknown = Reflect.get(object, prop, receiver);
      if (typeof value !== 'function') return value;
      const deja = lies.get(prop);
      if (deja?.de === value) return deja.lie;
      const lie = (value as (...args: unknown[]) => unknown).bind(object);
      lies.set(prop, { de: value as (...args: unknown[]) => unknown, lie });
      return lie;
    },
  });
}

function witnessed(connection: DatabaseConnection): DatabaseConnection {
  return bound(connection, {
    executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      try {
        return await connection.executeQuery<R>(query);
      } catch (error) {
        if (problemeDeStockage(error) !== undefined) {
          pannes += 1;
          dernierePanne = error;
        }
        throw error;
      }
    },
  });
}

/**
 * A dialect whose failures keep their true cause:
 * - every storage problem of a query is seen by `gardeErreurDeStockage` (better-auth replaces a failed insert by its own
 *   "FAILED_TO_CREATE_USER", losing why it failed);
 * - on SQLite, a ROLLBACK is skipped when SQLite already ended the transaction itself: on SQLITE_FULL,
 *   SQLITE_IOERR and a few others it may roll back the whole transaction, and Kysely's own ROLLBACK then
 *   fails with "cannot rollback - no transaction is active", which replaced the real error (a bare 500).
 */
export function dialecteTemoin(dialect: Dialect, inTransaction?: () => boolean): Dialect {
  return bound(dialect, {
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
      return bound(driver, {
        acquireConnection: async (): Promise<DatabaseConnection> => {
          const connection = await driver.acquireConnection();
          let out = wrapped.get(connection);
          if (!out) {
            out = witnessed(connection);
            wrapped.set(connection, out);
          }
          return out;
        },
        rollbackTransaction: async (connection: DatabaseConnection): Promise<void> => {
          if (inTransaction && !inTransaction()) return;
          await driver.rollbackTransaction(connection);
        },
      });
    },
  });
}

/**
 * Runs `work`; when it fails after a query failed because the storage is full or read-only, the query's
 * error is thrown instead of whatever a library made of it, so the error handler answers 507 or 503.
 */
export async function gardeErreurDeStockage<T>(work: () => Promise<T>): Promise<T> {
  const avant = pannes;
  try {
    return await work();
  } catch (error) {
    if (problemeDeStockage(error) !== undefined || pannes === avant) throw error;
    throw dernierePanne;
  }
}
