import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect } from './fixtures.js';

/**
 * axe-core with every rule but the AAA ones (WCAG 2.x A and AA, best practices, and the experimental rules,
 * which axe leaves out by default): the issue-13 bar. Rules run by tag, so a rule added by a newer axe runs too.
 */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice', 'experimental', 'section508', 'EN-301-549', 'RGAAv4'];

/**
 * `dans`: only that part of the page (a modal dialog: what lies under its dimming overlay is out of reach and
 * would fail contrast there, having passed it before the dialog opened).
 */
export async function expectNoAxeViolation(page: Page, { dans }: { dans?: string } = {}) {
  // The same rules on the same nodes, at a quarter of the cost (~0.9 s a call instead of ~3.2 s on the CI machines,
  // where these checks were a third of the browser tests' CPU): legacy mode runs axe in the page itself instead of
  // opening a blank page per call to gather each frame's results (the app has no frames; a cross-origin one would be
  // reported by axe's `frame-tested` rule), and only the violations, which are all this checks, get their nodes'
  // selectors built.
  const builder = new AxeBuilder({ page }).withTags(AXE_TAGS).setLegacyMode(true).options({ resultTypes: ['violations'] });
  const results = await (dans ? builder.include(dans) : builder).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  // A text the very colour of its background is only « to review » for axe (it could be text hidden on purpose), which
  // let a manager's « Accepter » button show as an empty green block: here it fails. (The other results keep one node
  // each, enough to tell.)
  const memeCouleur = results.incomplete
    .filter((r) => r.id === 'color-contrast')
    .flatMap((r) => r.nodes)
    .filter((n) => [...n.any, ...n.all, ...n.none].some((c) => /\b1:1\b/u.test(c.message)));
  expect(memeCouleur.map((n) => `texte de la couleur de son fond : ${n.html}`)).toEqual([]);
}

