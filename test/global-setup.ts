import type { TestProject } from 'vitest/node';
import { migrate, openDatabase } from '../src/server/db/index.js';
import { freshDatabaseUrl } from './db.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL: a database with every migration applied, that createTestApp copies (test/helpers.ts). */
    modeleMigre: string | undefined;
  }
}

/**
 * PostgreSQL (DATABASE_URL set): one database migrated once for the whole run, dropped at its end. Each test app's
 * database is a copy of it (CREATE DATABASE … TEMPLATE, ~0.1 s) instead of a new one where the app's start runs the
 * 31 migrations (~0.5 s on a CI machine). The tests of the migrations themselves start from empty databases.
 */
export async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!process.env.DATABASE_URL) {
    project.provide('modeleMigre', undefined);
    return undefined;
  }
  const modele = await freshDatabaseUrl('qv_modele');
  const { db } = openDatabase({ databaseUrl: modele.url, dataDir: '' });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    await modele.drop();
    throw error;
  }
  await db.destroy();
  project.provide('modeleMigre', new URL(modele.url!).pathname.slice(1));
  return () => modele.drop();
}
