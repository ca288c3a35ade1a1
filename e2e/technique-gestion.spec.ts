import { request as nouveauClient, type Page, type TestInfo } from '@playwright/test';
import { expectNoAxeViolation } from './axe.js';
import { expect, test } from './fixtures.js';
import { mailsPour, manager, signIn, TELEPHONE } from './gestion-aides.js';

/**
 * Technical reports, the town hall's side (issue 14): a manager finds a report in the managers' list, resolves it
 * after a confirmation, and the reporter, whose page is open on a phone, sees it live and by e-mail; the reporter
 * says « Toujours pas résolu » and the manager's open page follows.
 */

async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: `e2e/screenshots/technique/${name}-${testInfo.project.name}.png`, fullPage: true });
}

/** No sideways scroll: the page fits its window. */
async function tientDansLaLargeur(page: Page) {
  const largeur = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(largeur).toBeLessThanOrEqual(page.viewportSize()!.width);
}

test('a manager resolves a report; the reporter sees it live, says it is still not resolved, and the manager’s page follows', { tag: '@bureau' }, async ({
  page,
  browser,
}, testInfo) => {
  const tag = Date.now().toString(36);
  const titre = `Lampadaire clignotant ${tag}`;
  const email = `signalant.${tag}@example.org`;
  const client = await nouveauClient.newContext({ baseURL: testInfo.project.use.baseURL });
  const cree = await client.post('/app/api/technique/signalements', {
    data: { categorie: 'eclairage', titre, description: 'Il clignote toute la nuit.', lat: 43.5286, lon: 5.4132, email, nom: 'Inès Benali' },
  });
  expect(cree.status(), await cree.text()).toBe(201);
  const { numero, cle } = (await cree.json()).data as { numero: string; cle: string };
  await client.dispose();

  // The reporter's page is open on her phone, through her follow link.
  const telephone = await browser.newContext({ ...TELEPHONE, baseURL: testInfo.project.use.baseURL! });
  const habitante = await telephone.newPage();
  await habitante.goto(`/technique/${numero}#cle=${cle}`);
  const etatHabitante = habitante.getByRole('region', { name: 'État :' });
  await expect(etatHabitante).toContainText('Nouveau');
  await expect(habitante.getByText('Vous avez fait ce signalement : vous recevez un e-mail à chaque étape.')).toBeVisible();

  // The manager finds it in the managers' list by a word of its title, and opens it.
  await signIn(page, await manager(testInfo));
  await page.goto('/technique/list');
  await page.getByRole('searchbox', { name: 'Rechercher' }).fill(tag);
  const lien = page.getByRole('row', { name: new RegExp(titre, 'u') }).getByRole('link', { name: numero, exact: true });
  await expect(lien).toBeVisible();
  await expectNoAxeViolation(page);
  await tientDansLaLargeur(page);
  await shot(page, testInfo, 'gestion-liste');
  await page.setViewportSize({ width: 1024, height: 768 });
  await tientDansLaLargeur(page);
  await shot(page, testInfo, 'gestion-liste-1024');
  await page.setViewportSize({ width: 1280, height: 800 });
  await lien.click();
  await expect(page).toHaveURL(new RegExp(`/technique/${numero}$`, 'u'));
  const traitement = page.getByRole('region', { name: 'Traitement' });
  await expect(traitement).toContainText(email);

  // « Résolu » closes it: asked first, with who will be told.
  await traitement.getByRole('combobox', { name: 'Nouvel état' }).selectOption({ label: 'Résolu' });
  await traitement.getByRole('textbox', { name: 'Message public' }).fill('L’ampoule a été changée ce matin.');
  await traitement.getByRole('button', { name: 'Publier la mise à jour' }).click();
  const dialogue = page.getByRole('dialog', { name: 'Passer le signalement à « Résolu » ?' });
  await expect(dialogue).toContainText('1 personne le suit : chacune recevra un e-mail avec votre message.');
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'gestion-confirmer-resolu');
  await dialogue.getByRole('button', { name: 'Passer à « Résolu »' }).click();
  await expect(traitement.getByText('État passé à « Résolu » ; la mise à jour est publiée.')).toBeFocused();

  // The reporter's page changes without reloading: the state, the town hall's words in the history.
  await expect(etatHabitante).toContainText('Résolu');
  await expect(habitante.getByRole('region', { name: 'Historique' })).toContainText('L’ampoule a été changée ce matin.');
  await expectNoAxeViolation(habitante);
  await shot(habitante, testInfo, 'habitante-resolu');
  // And by e-mail.
  await expect.poll(async () => (await mailsPour(email)).some((m) => m.includes('L’ampoule a été changée ce matin.')), { timeout: 10_000 }).toBe(true);

  // She says it still blinks: the report reopens, and the manager's open page follows without reloading.
  await habitante.getByRole('button', { name: 'Toujours pas résolu' }).click();
  const pasResolu = habitante.getByRole('dialog', { name: 'Le problème n’est toujours pas résolu ?' });
  await pasResolu.getByRole('textbox', { name: /Ce qui ne va toujours pas/u }).fill('Il clignote encore ce soir.');
  await pasResolu.getByRole('button', { name: 'Confirmer : toujours pas résolu' }).click();
  await expect(habitante.getByText('C’est noté : le signalement est rouvert et le service est prévenu.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'État :' })).toContainText('Confirmé');
  await expect(page.getByRole('region', { name: 'Historique' })).toContainText('Il clignote encore ce soir.');
  await expect(traitement.getByRole('combobox', { name: 'Nouvel état' })).toHaveAccessibleDescription('État actuel : Confirmé.');
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'gestion-rouvert');
  await telephone.close();
});
