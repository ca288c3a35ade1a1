import { AxeBuilder } from '@axe-core/playwright';
import { expect, test } from './fixtures.js';

test('the home page offers the three services, in French, and passes axe-core', async ({ page }, testInfo) => {
  await page.goto('/');
  await expect(page).toHaveTitle('Accueil — Quartier Vivant');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Bienvenue sur Quartier Vivant');
  await expect(page.getByRole('link', { name: 'Logement social' })).toHaveAttribute('href', '/logement');
  await expect(page.getByRole('link', { name: /^Signalements techniques/u }).last()).toHaveAttribute('href', '/technique');
  await expect(page.getByRole('link', { name: /^Sécurité/u }).last()).toHaveAttribute('href', '/securite');
  await page.screenshot({ path: `e2e/screenshots/accueil-${testInfo.project.name}.png`, fullPage: true });
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => v.id)).toEqual([]);
});

test('the menu is a drawer on phones and a side bar on desktops', async ({ page }, testInfo) => {
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Menu principal' });
  if (testInfo.project.name.includes('375')) {
    await expect(nav.getByRole('link', { name: 'Logement' })).toBeHidden();
    await page.getByRole('button', { name: 'Ouvrir le menu' }).click();
    await expect(nav.getByRole('link', { name: 'Logement' })).toBeVisible();
    await page.screenshot({ path: `e2e/screenshots/menu-${testInfo.project.name}.png` });
    await nav.getByRole('link', { name: 'Logement' }).click();
    await expect(page).toHaveURL(/\/logement$/u);
    await expect(nav.getByRole('link', { name: 'Logement' })).toBeHidden();
  } else {
    await expect(page.getByRole('button', { name: 'Ouvrir le menu' })).toBeHidden();
    await nav.getByRole('link', { name: 'Logement' }).click();
    await expect(page).toHaveURL(/\/logement$/u);
  }
});

test('everything works with the keyboard: skip link, then the lookup form', async ({ page }) => {
  await page.goto('/logement');
  await expect(page.getByRole('heading', { level: 1, name: 'Logement social' })).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Aller au contenu' })).toBeFocused();
  await page.keyboard.press('Enter');
  await page.getByLabel('Numéro unique de la demande').focus();
  await page.keyboard.type('013 404 404 404');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/logement\/013404404404$/u);
  await expect(page.getByText("Il n'existe pas de demande de logement pour ce numéro unique")).toBeVisible();
});

test('the footer leads to « Données personnelles » and « Mentions légales », which say who answers and how long data are kept', async ({ page }, testInfo) => {
  await page.goto('/');
  const pied = page.getByRole('navigation', { name: 'Informations légales' });
  await pied.getByRole('link', { name: 'Données personnelles' }).click();
  await expect(page).toHaveURL(/\/donnees-personnelles$/u);
  await expect(page).toHaveTitle('Données personnelles — Quartier Vivant');
  await expect(page.getByRole('heading', { level: 2, name: 'Combien de temps nous les gardons' })).toBeVisible();
  await expect(page.getByRole('row', { name: /Session de connexion \(habitant\)/u })).toContainText('30 jours sans visite');
  await page.screenshot({ path: `e2e/screenshots/donnees-personnelles-${testInfo.project.name}.png`, fullPage: true });
  expect((await new AxeBuilder({ page }).analyze()).violations.map((v) => v.id)).toEqual([]);

  await pied.getByRole('link', { name: 'Mentions légales' }).click();
  await expect(page).toHaveURL(/\/mentions-legales$/u);
  await expect(page.getByRole('heading', { level: 2, name: 'Directeur de la publication' })).toBeVisible();
  await expect(page.getByText("Le maire d'Aix-en-Provence")).toBeVisible();
  expect((await new AxeBuilder({ page }).analyze()).violations.map((v) => v.id)).toEqual([]);
});
