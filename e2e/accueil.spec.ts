import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from '@playwright/test';

test('the home page answers in French and passes axe-core', async ({ page }, testInfo) => {
  await page.goto('/');
  await expect(page).toHaveTitle(/Quartier Vivant/u);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Quartier Vivant');
  await page.screenshot({ path: `e2e/screenshots/accueil-${testInfo.project.name}.png`, fullPage: true });
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations).toEqual([]);
});
