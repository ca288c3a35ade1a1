import fs from 'node:fs';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';

/**
 * SQLite commits without waiting for the disk on the event loop, and is still durable when it answers
 * (docs/decisions/0014). The database runs with `synchronous = NORMAL` (a commit writes the WAL, no
 * fsync); after each query that committed something, this wrapper waits for an fsync of the WAL file
 * done on libuv's thread pool, so a transaction is on the disk before its caller goes on. Commits made
 * while an fsync runs share the next one (group commit): one fsync per batch, none on the event loop.
 */
export function durableApresCommit(dialect: Dialect, sqlite: { inTransaction: boolean; prepare(sql: string): { pluck(): { get(): unknown } } }, walPath: string): Dialect {
  const wal = groupedFsync(walPath);
  // total_changes() counts rows written since the connection opened: a change since the last fsync asks for one.
  const totalChanges = sqlite.prepare('select total_changes()').pluck();
  let synced = Number(totalChanges.get());
  const afterQuery = async (query: CompiledQuery): Promise<void> => {
    if (query.query.kind === 'SelectQueryNode' || sqlite.inTransaction) return;
    const total = Number(totalChanges.get());
    if (total === synced) return;
    synced = total;
    await wal.sync();
  };
  return proxied(dialect, {
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
      return proxied(driver, {
        destroy: async (): Promise<void> => {
          await driver.destroy();
          await wal.close();
        },
        acquireConnection: async (): Promise<DatabaseConnection> => {
          const connection = await driver.acquireConnection();
          let out = wrapped.get(connection);
          if (!out) {
            out = proxied(connection, {
              executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
                const result = await connection.executeQuery<R>(query);
                await afterQuery(query);
                return result;
              },
            });
            wrapped.set(connection, out);
          }
          return out;
        },
      });
    },
  });
}

/** fsync of one file on the thread pool; callers arriving while one runs share the next. */
export function groupedFsync(file: string): { sync(): Promise<void>; close(): Promise<void> } {
  let fd: number | null = null;
  let running: Promise<void> | null = null;
  let next: Promise<void> | null = null;
  const once = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const run = (handle: number) => fs.fsync(handle, (error) => (error ? reject(error) : resolve()));
      if (fd !== null) return run(fd);
      fs.open(file, 'r+', (error, handle) => {
        if (error) return reject(error);
        fd = handle;
        run(handle);
      });
    });
  const start = (): Promise<void> => {
    running = once().finally(() => {
      running = null;
    });
    return running;
  };
  const sync = (): Promise<void> => {
    if (!running) return start();
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = null;
        return running ?? start();
      });
    return next;
  };
  const close = async (): Promise<void> => {
    await Promise.allSettled([running, next]);
    if (fd !== null) fs.closeSync(fd);
    fd = null;
  };
  return { sync, close };
}

/** Methods keep their own `this` (Kysely's classes hold private fields). */
function proxied<T extends object>(target: T, overrides: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get(object, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof T];
      const value: unknown = Reflect.get(object, prop, receiver);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
