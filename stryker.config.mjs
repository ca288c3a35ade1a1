// @ts-check
import fs from 'node:fs';

/**
 * Mutation testing of access control, validation and statuses (`npm run mutation`; docs/mutation.md).
 * The unit tests of those modules (vitest.mutation.config.ts) must kill at least 80 % of the mutants.
 */

/**
 * The line ranges of some top-level declarations of a file, as Stryker's `file:start-end` patterns.
 * A declaration starts at `const NAME`, `export const NAME` or `export function NAME` and ends before
 * the next line that starts in the first column (other than a closing `}` or `)`). Computed at each
 * run, so that edits elsewhere in the file do not shift the ranges; a name that is no longer there
 * stops the run instead of silently mutating nothing.
 * @param {string} file
 * @param {string[]} names
 */
function declarations(file, names) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  return names.map((name) => {
    const start = lines.findIndex((line) => new RegExp(`^(export )?(const|function) ${name}\\b`, 'u').test(line));
    if (start === -1) throw new Error(`stryker.config.mjs: ${name} is no longer declared in ${file}; update the mutation ranges.`);
    let end = start;
    while (end + 1 < lines.length && /^([ \t]+\S|[})])/u.test(lines[end + 1] ?? '')) end += 1;
    return `${file}:${start + 1}-${end + 1}`;
  });
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  packageManager: 'npm',
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  coverageAnalysis: 'perTest',
  // Two cores: one test runner each. Other work on the machine slows a run down; it does not break it.
  concurrency: 2,
  timeoutMS: 10_000,
  mutate: [
    // Access control.
    'src/server/auth/guards.ts',
    'src/server/features/demandes/access.ts',
    // Validation: the input schemas of a housing request (not the display field table) and of accounts.
    ...declarations('src/domain/demande.ts', [
      'requis',
      'texte',
      'montant',
      'choix',
      'numeroUniqueSchema',
      'numeroUniqueParamSchema',
      'numeroUniqueParamsSchema',
      'demandeSaisieSchema',
      'listeQuerySchema',
      'changementStatutSchema',
    ]),
    'src/domain/normalise.ts',
    'src/domain/pagination.ts',
    ...declarations('src/domain/compte.ts', [
      'isRole',
      'isGestionnaire',
      'isPhotoType',
      'capitaliser',
      'nomPropre',
      'motDePasseSaisiSchema',
      'motDePasseSchema',
      'emailSchema',
      'inscriptionSchema',
      'utilisateursQuerySchema',
      'roleSchema',
    ]),
    'src/server/errors.ts',
    // Statuses.
    'src/domain/statut.ts',
    'src/server/features/demandes/service.ts',
  ],
  // Nothing of these is needed to run the unit tests above.
  ignorePatterns: ['dist', 'src/web', 'e2e', 'bench', 'docs', 'test-results', 'playwright-report', '.ci', 'reports'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: 80 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
