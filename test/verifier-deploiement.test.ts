// The deployment recipes of docs/deploy.md kept true (issue 15 point 5): `npm run verifier-deploiement` in both
// modes, each starting its topology on loopback from deploy/'s own files and checking it through a stand-in for
// Caddy. « plusieurs-instances » needs PostgreSQL (CI's PostgreSQL pass: DATABASE_URL) and Redis (REDIS_URL, else
// 127.0.0.1:6379): skipped without them. Both modes run side by side, about 45 s in all.
import { spawn } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, redisRepond } from './redis.js';
import { surPostgres } from './db.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const avecRedis = surPostgres && (await redisRepond(REDIS_URL));
// « un-serveur » and the script's refusals take nothing from this environment (the script passes on only PATH, HOME
// and LANG): the same in CI's PostgreSQL run as in its SQLite run, so they run once, in the SQLite run
// (docs/decisions/0015 §5).
const sansBase = it.skipIf(surPostgres);

/** The script as `npm run verifier-deploiement -- …` runs it, with this environment (DATABASE_URL: the PostgreSQL server to use). */
function verifier(args: string[]): Promise<{ code: number | null; sortie: string }> {
  const enfant = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/verifier-deploiement.ts'), ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let sortie = '';
  enfant.stdout.on('data', (m: Buffer) => (sortie += m.toString()));
  enfant.stderr.on('data', (m: Buffer) => (sortie += m.toString()));
  return new Promise((resolve) => enfant.once('exit', (code) => resolve({ code, sortie })));
}

describe.concurrent('npm run verifier-deploiement', () => {
  sansBase('un-serveur: one instance from deploy/un-serveur.env behind the stand-in for Caddy — probes, a request and its document, the live stream, backup and restore, SIGTERM', { timeout: 150_000 }, async () => {
    const { code, sortie } = await verifier(['un-serveur']);
    expect(code, sortie).toBe(0);
    expect(sortie).toContain('Vérification réussie (un-serveur)');
    expect(sortie).toMatch(/variables remplacées pour la boucle locale .*: PORT, DATA_DIR, AUTH_SECRET, SMTP_URL/u);
    expect(sortie).toContain('un relais HTTP en Node tient la place de Caddy');
    expect(sortie).not.toContain('✗');
  });

  it.skipIf(!avecRedis)(
    'plusieurs-instances: two instances on PostgreSQL, S3 and Redis behind the round-robin stand-in — shared sessions, files, events and limits, a rolling restart without an error',
    { timeout: 150_000 },
    async () => {
      const { code, sortie } = await verifier(['plusieurs-instances']);
      expect(code, sortie).toBe(0);
      expect(sortie).toContain('Vérification réussie (plusieurs-instances)');
      expect(sortie).toMatch(/requêtes pendant tout le redémarrage, 0 erreur/u);
    },
  );

  sansBase('stops at an environment file naming a variable config.ts does not know, before starting anything', async () => {
    const dossier = await fsp.mkdtemp(path.join(os.tmpdir(), 'qv-verif-env-'));
    try {
      const fichier = path.join(dossier, 'faute.env');
      const recette = await fsp.readFile(path.join(ROOT, 'deploy/un-serveur.env'), 'utf8');
      expect(recette).toContain('\nSHUTDOWN_DRAIN_MS=');
      await fsp.writeFile(fichier, recette.replace('\nSHUTDOWN_DRAIN_MS=', '\nSHUTDOWN_DRAINS_MS='));
      const { code, sortie } = await verifier(['un-serveur', '--env', fichier]);
      expect(code, sortie).toBe(1);
      expect(sortie).toContain('SHUTDOWN_DRAINS_MS est inconnue de la configuration (src/server/config.ts, envSchema)');
      expect(sortie).toContain('Vérification échouée (un-serveur)');
      expect(sortie).not.toContain('Démarrage');
    } finally {
      await fsp.rm(dossier, { recursive: true, force: true });
    }
  });

  sansBase('refuses anything but a mode, with its usage', async () => {
    const { code, sortie } = await verifier(['trois-serveurs']);
    expect(code).toBe(2);
    expect(sortie).toContain('Usage : npm run verifier-deploiement -- <un-serveur|plusieurs-instances>');
  });
});
