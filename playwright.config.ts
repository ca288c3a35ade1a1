import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 3210);
const OIDC_PORT = PORT + 1;
// The maps' tiles come from a local server (e2e/tuiles.ts): the tests never reach the Géoplateforme.
const TUILES_PORT = PORT + 2;
process.env.E2E_TUILES_URL = `http://127.0.0.1:${TUILES_PORT}`;
const APP_URL = `http://127.0.0.1:${PORT}`;
// Each run starts on an empty embedded database of its own (emptied when the server starts). The path
// is the same in the runner and its workers, so tests can use the CLI on it (E2E_DATA_DIR).
const dataDir = path.join(os.tmpdir(), `qv-e2e-${PORT}`);
process.env.E2E_DATA_DIR = dataDir;

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  // Generous: CI runs these beside the unit suites (SQLite and PostgreSQL) on two cores, and the slowest journeys
  // take 50 s there; on a slower day (2026-11-27, CI 27 min), the sweep of pages under axe-core at 375 px passed
  // 90 s while the same at 1280 px took 53 s. A journey that hangs still fails.
  timeout: 150_000,
  // Likewise each expectation waits up to 15 s (Playwright's 5 s default): a search that answers in 0.2 s alone took
  // over 5 s there once. A page that never shows what is expected still fails.
  expect: { timeout: 15_000 },
  reporter: process.env.CI ? [['list'], ['json', { outputFile: '.ci/out/e2e.json' }]] : 'list',
  use: {
    baseURL: APP_URL,
    locale: 'fr-FR',
    // Also stops Mantine's transitions (the theme respects it), so checks never see a half-faded dialog.
    reducedMotion: 'reduce',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
  projects: [
    // Each journey runs once, at the width of the people it is for: the residents' (@habitant) on a phone, the
    // managers' desk (@bureau, where a resident may act too, on a phone: gestion-aides.ts TELEPHONE) at 1280 px.
    // Keyboard-only journeys (@clavier) run at 1280 px. Untagged tests (the shell, the menu, every page under
    // axe-core) run at both widths (docs/decisions/0015).
    { name: 'telephone-375', use: { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true }, grepInvert: /@bureau|@clavier/u },
    { name: 'bureau-1280', use: { viewport: { width: 1280, height: 800 } }, grepInvert: /@habitant/u },
  ],
  webServer: [
    {
      command: 'npx tsx e2e/oidc-provider.ts',
      url: `http://127.0.0.1:${OIDC_PORT}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 30_000,
      env: { OIDC_PORT: String(OIDC_PORT), APP_URL },
    },
    {
      command: 'npx tsx e2e/tuiles.ts',
      url: `http://127.0.0.1:${TUILES_PORT}/sante`,
      reuseExistingServer: false,
      timeout: 30_000,
      env: { TUILES_PORT: String(TUILES_PORT) },
    },
    {
      command: `rm -rf ${dataDir} && node dist/server/main.js`,
      url: `${APP_URL}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        PORT: String(PORT),
        HOST: '127.0.0.1',
        PUBLIC_URL: APP_URL,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ADRESSE_API_URL: 'http://127.0.0.1:9/search/',
        CARTE_TUILES_URL: `http://127.0.0.1:${TUILES_PORT}/tuiles/{z}/{x}/{y}.png`,
        CARTE_ATTRIBUTION: 'Fond de carte de test (serveur local)',
        // Many accounts are made from one address in a few seconds.
        RATE_LIMIT_MULTIPLIER: '100',
        GOOGLE_CLIENT_ID: 'quartier-vivant-e2e',
        GOOGLE_CLIENT_SECRET: 'secret-e2e',
        GOOGLE_DISCOVERY_URL: `http://127.0.0.1:${OIDC_PORT}/.well-known/openid-configuration`,
      },
    },
  ],
});
