import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';

test('the home page offers the three services, in French, and passes axe-core', async ({ page }, testInfo) => {
  await page.goto('/');
  await expect(page).toHaveTitle('Accueil — Quartier Vivant');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Bienvenue sur Quartier Vivant');
  await expect(page.getByRole('link', { name: 'Logement social' })).toHaveAttribute('href', '/logement');
  await expect(page.getByRole('link', { name: /^Signalements techniques/u }).last()).toHaveAttribute('href', '/technique');
  await expect(page.getByRole('link', { name: /^Sécurité/u }).last()).toHaveAttribute('href', '/securite');
  await page.screenshot({ path: `e2e/screenshots/accueil-${testInfo.project.name}.png`, fullPage: true });
  await expectNoAxeViolation(page);
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
  await expect(page.getByText("Il n’existe pas de demande de logement pour ce numéro unique")).toBeVisible();
});

test('the footer leads to « Données personnelles » and « Mentions légales », which say who answers and how long data are kept', async ({ page }, testInfo) => {
  await page.goto('/');
  const pied = page.getByRole('navigation', { name: 'Informations sur le site' });
  await pied.getByRole('link', { name: 'Données personnelles' }).click();
  await expect(page).toHaveURL(/\/donnees-personnelles$/u);
  await expect(page).toHaveTitle('Données personnelles — Quartier Vivant');
  await expect(page.getByRole('heading', { level: 2, name: 'Combien de temps nous les gardons' })).toBeVisible();
  await expect(page.getByRole('row', { name: /Session de connexion \(habitant\)/u })).toContainText('30 jours sans visite');
  await page.screenshot({ path: `e2e/screenshots/donnees-personnelles-${testInfo.project.name}.png`, fullPage: true });
  await expectNoAxeViolation(page);

  await pied.getByRole('link', { name: 'Mentions légales' }).click();
  await expect(page).toHaveURL(/\/mentions-legales$/u);
  await expect(page.getByRole('heading', { level: 2, name: 'Directeur de la publication' })).toBeVisible();
  await expect(page.getByText("Le maire d’Aix-en-Provence")).toBeVisible();
  await expectNoAxeViolation(page);
});

test('« Sécurité » says it takes no report, and gives the emergency numbers as links a phone dials', async ({ page }) => {
  await page.goto('/securite');
  await expect(page).toHaveTitle('Sécurité — Quartier Vivant');
  const main = page.getByRole('main');
  await expect(main.getByRole('heading', { level: 1, name: 'Sécurité' })).toBeVisible();
  await expect(main.getByText(/Quartier Vivant ne reçoit pas les signalements d’infractions/u)).toBeVisible();
  await expect(main.getByRole('link', { name: 'Appeler le 17' })).toHaveAttribute('href', 'tel:17');
  await expect(main.getByRole('link', { name: 'Appeler le 112' })).toHaveAttribute('href', 'tel:112');
  await expect(main.getByRole('link', { name: 'Envoyer un SMS au 114' })).toHaveAttribute('href', 'sms:114');
  // Big enough to tap on a phone (WCAG 2.5.5: 44 × 44 px at least).
  const bouton = await main.getByRole('link', { name: 'Appeler le 17' }).boundingBox();
  expect(bouton!.height).toBeGreaterThanOrEqual(44);
  expect(bouton!.width).toBeGreaterThanOrEqual(44);
  // The default settings give the police municipale's main station.
  await expect(main.getByRole('heading', { level: 2, name: 'Police municipale' })).toBeVisible();
  await expect(main.getByText(/bientôt/u)).toHaveCount(0);
  await expectNoAxeViolation(page);
});
