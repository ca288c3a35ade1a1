import { afterEach, beforeEach, expect, vi } from 'vitest';

/**
 * A test fails when it logs an unexpected console.error or console.warn (a React warning, a swallowed
 * error, a library complaining): such output is a bug report nobody reads. A test that expects one says
 * so with `expectConsole(/pattern/)`, which also fails the test when the expected message never comes.
 */
const expected: RegExp[] = [];
const seen = new Set<RegExp>();
const unexpected: string[] = [];

export function expectConsole(pattern: RegExp): void {
  expected.push(pattern);
}

function format(args: unknown[]): string {
  return args.map((a) => (a instanceof Error ? a.stack ?? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
}

beforeEach(() => {
  expected.length = 0;
  seen.clear();
  unexpected.length = 0;
  for (const level of ['error', 'warn'] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      const text = format(args);
      const match = expected.find((p) => p.test(text));
      if (match) seen.add(match);
      else unexpected.push(`console.${level}: ${text}`);
    });
  }
});

afterEach(() => {
  vi.restoreAllMocks();
  const missing = expected.filter((p) => !seen.has(p));
  expect(unexpected, 'unexpected console output').toEqual([]);
  expect(missing, 'expected console output that never came').toEqual([]);
});
