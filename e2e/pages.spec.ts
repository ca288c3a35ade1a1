import { request as nouveauClient, type Page, type TestInfo } from '@playwright/test';
import { expectNoAxeViolation } from './axe.js';
import { expect, test } from './fixtures.js';
import { manager, signIn } from './gestion-aides.js';

/**
 * Every page and the states a journey reaches on it, at this project's width (375 and 1280 px), under axe-core
 * with all its rules but AAA (e2e/axe.ts), with a screenshot to look at (e2e/screenshots/pages/). Journeys check
 * what the pages do; this checks that each can be read and used, once per width.
 */

async function regarder(page: Page, testInfo: TestInfo, nom: string) {
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/pages/${nom}-${testInfo.project.name}.png`, fullPage: true });
  // Nothing wider than the screen: no sideways scrolling (RGAA 10.11, WCAG 1.4.10 reflow).
  const largeur = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(largeur, `${nom}: the page is wider than the screen`).toBeLessThanOrEqual(page.viewportSize()!.width);
}

test('the public pages', async ({ page }, testInfo) => {
  for (const [nom, chemin] of [
    ['accueil', '/'],
    ['logement', '/logement'],
    ['nouvelle-demande', '/logement/nouveau'],
    ['technique', '/technique'],
    ['securite', '/securite'],
    ['connexion', '/connexion'],
    ['mot-de-passe-oublie', '/connexion/mot-de-passe-oublie'],
    ['donnees-personnelles', '/donnees-personnelles'],
    ['mentions-legales', '/mentions-legales'],
    ['accessibilite', '/accessibilite'],
    ['plan-du-site', '/plan-du-site'],
    ['introuvable', '/nulle-part'],
    ['demande-inconnue', '/logement/013000000000'],
  ] as const) {
    await page.goto(chemin);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await regarder(page, testInfo, nom);
  }
});

test('the forms with their errors shown', async ({ page }, testInfo) => {
  await page.goto('/logement/nouveau');
  await page.getByRole('button', { name: 'Enregistrer ma demande' }).click();
  await expect(page.getByText('Le prénom est obligatoire.')).toBeVisible();
  await regarder(page, testInfo, 'nouvelle-demande-erreurs');

  await page.goto('/logement');
  await page.getByLabel('Numéro unique de la demande').fill('01');
  await page.getByLabel('Numéro unique de la demande').press('Enter');
  await expect(page.getByLabel('Numéro unique de la demande')).toHaveAttribute('aria-invalid', 'true');
  await regarder(page, testInfo, 'logement-erreur');

  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByText('Le mot de passe est obligatoire.')).toBeVisible();
  await regarder(page, testInfo, 'connexion-erreurs');

  await page.getByRole('button', { name: 'Créer nouveau compte' }).click();
  const modal = page.getByRole('dialog', { name: 'Créer un compte' });
  await modal.getByRole('button', { name: 'Créer mon compte' }).click();
  await expect(modal.getByText('Le nom est obligatoire.')).toBeVisible();
  await regarder(page, testInfo, 'inscription-erreurs');
});

test('a request seen by its holder, with its documents, and the managers’ pages', async ({ page }, testInfo) => {
  const numeroUnique = `013p${testInfo.project.name.includes('375') ? 'm' : 'd'}${Date.now().toString(36)}`;
  const client = await nouveauClient.newContext({ baseURL: testInfo.project.use.baseURL });
  const res = await client.post('/app/api/logement', {
    data: { numeroUnique, prenom: 'Rose', nom: 'Aubert', email: `pages.${numeroUnique}@example.org`, motivations: 'Logement trop petit.' },
  });
  expect(res.status()).toBe(201);
  const { privateLink } = (await res.json()).data as { privateLink: string };
  await client.dispose();
  await page.goto(privateLink);
  await expect(page.getByRole('region', { name: 'Pièces du dossier' })).toBeVisible();
  await regarder(page, testInfo, 'demande-titulaire');

  await signIn(page, await manager(testInfo, 'admin'));
  for (const [nom, chemin] of [
    ['liste-des-demandes', '/logement/list'],
    ['demande-gestionnaire', `/logement/${numeroUnique}`],
    ['utilisateurs', '/admin/utilisateurs'],
    ['etiquettes', '/admin/etiquettes'],
    ['categories', '/admin/categories'],
    ['cles-open311', '/admin/open311'],
    ['signalements-gestion', '/technique/list'],
    ['profil', '/profile'],
    ['plan-du-site-admin', '/plan-du-site'],
  ] as const) {
    await page.goto(chemin);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await regarder(page, testInfo, nom);
  }
});
