import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The tests StrykerJS runs against mutants (`npm run mutation`, stryker.config.mjs; docs/mutation.md):
 * the unit tests of the mutated modules only, cheapest first. A mutant of a schema is "static" (it
 * changes what is built when the module loads), so Stryker runs every related test file for it and
 * stops at the first failure: the pure domain tests come first, the tests that build an app last.
 */
export const MUTATION_TESTS = [
  'src/domain/chargement.test.ts',
  'src/domain/statut.test.ts',
  'src/domain/normalise.test.ts',
  'src/domain/pagination.test.ts',
  'src/domain/compte.test.ts',
  'src/domain/demande.test.ts',
  'src/domain/domain.test.ts',
  'src/server/errors.test.ts',
  'src/server/auth/guards.test.ts',
  'src/server/features/demandes/access.test.ts',
  'src/server/features/demandes/service.test.ts',
];

const rank = (spec: TestSpecification) => {
  const i = MUTATION_TESTS.findIndex((file) => spec.moduleId.replaceAll('\\', '/').endsWith(file));
  return i === -1 ? MUTATION_TESTS.length : i;
};

class CheapestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    setupFiles: ['test/console-guard.ts'],
    sequence: { sequencer: CheapestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
