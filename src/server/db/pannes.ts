import { AsyncLocalStorage } from 'node:async_hooks';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { problemeDeStockage } from '../errors.js';

/** The database errors met while running `gardeErreurDeStockage`'s work (one list per call). */
const temoin = new AsyncLocalStorage<unknown[]>();

/** Methods keep their own `this` (Kysely's classes hold private fields). */
function bound<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof T];
      const value: unknown = Reflect.get(object, prop, receiver);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

function witnessed(connection: DatabaseConnection): DatabaseConnection {
  return bound(connection, {
    executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      try {
        return await connection.executeQuery<R>(query);
      } catch (error) {
        temoin.getStore()?.push(error);
        throw error;
      }
    },
  });
}

/**
 * A dialect whose failures keep their true cause:
 * - every query error is seen by `gardeErreurDeStockage` (better-auth replaces a failed insert by its own
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
  const errors: unknown[] = [];
  try {
    return await temoin.run(errors, work);
  } catch (error) {
    if (problemeDeStockage(error)) throw error;
    const cause = errors.find((e) => problemeDeStockage(e) !== undefined);
    throw cause ?? error;
  }
}
