import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { problemeDeStockage } from '../errors.js';
import { mandataire } from './mandataire.js';

/**
 * The last query error that was a storage problem (full or read-only disk), and how many there were. Not an
 * AsyncLocalStorage: using one in Node 20 turns on promise hooks for the whole process, and every promise of
 * every request then paid for it (~7 % of the server's CPU under the mixed load, issue 11). A storage problem
 * is the disk's, not one request's: a call that fails while one is met reports it.
 */
let pannes = 0;
let dernierePanne: unknown;

function witnessed(connection: DatabaseConnection): DatabaseConnection {
  return mandataire(connection, {
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
  return mandataire(dialect, {
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
      return mandataire(driver, {
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
