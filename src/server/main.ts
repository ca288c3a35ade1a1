import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { arretSurSignal } from './exploitation/index.js';
import { PROJECT_ROOT } from './territory.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env, { webDir: path.join(PROJECT_ROOT, 'dist', 'web') });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const app = await buildApp(config);
  // Graceful: /readyz at 503 for SHUTDOWN_DRAIN_MS, then in-flight requests finish and the process exits 0; past
  // SHUTDOWN_TIMEOUT_MS or on a second signal, exit 1 (exploitation/arret.ts).
  const arreter = arretSurSignal(app, { delaiMs: config.shutdownTimeoutMs, drainMs: config.shutdownDrainMs });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, arreter);
  await app.listen({ port: config.port, host: config.host });
  if (typeof config.trustProxy === 'number' && !['127.0.0.1', '::1', 'localhost'].includes(config.host)) {
    // A hop count trusts whatever the last hop says: right behind a proxy, never reachable directly.
    app.log.warn(
      `TRUST_PROXY=${config.trustProxy} alors que le serveur écoute sur ${config.host} : un client qui le joint sans passer par le relais peut se faire passer pour une autre adresse. Écoutez sur 127.0.0.1 ou donnez plutôt les adresses des relais dans TRUST_PROXY.`,
    );
  }
  app.log.info(`Quartier Vivant est servi sur ${config.publicUrl} (base : ${app.deps.dbKind})`);
}

main().catch((error: unknown) => {
  process.stderr.write(`Le serveur n’a pas pu démarrer : ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
