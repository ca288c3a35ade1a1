import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures.js';

/**
 * axe-core with every rule but the AAA ones (WCAG 2.x A and AA, best practices, and the experimental rules,
 * which axe leaves out by default): the issue-13 bar. Rules run by tag, so a rule added by a newer axe runs too.
 */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice', 'experimental', 'section508', 'EN-301-549', 'RGAAv4'];

export async function expectNoAxeViolation(page: Page) {
  const results = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

