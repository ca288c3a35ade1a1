import type { FileChooser, Locator, Page } from '@playwright/test';
import { expectNoAxeViolation } from './axe.js';
import { expect, test } from './fixtures.js';
import { manager, PASSWORD } from './gestion-aides.js';

/**
 * Keyboard only (RGAA 7.3, 12.13; WCAG 2.1.1, 2.4.3, 2.4.7): no click, no fill. Tab moves, Enter and Space act,
 * text is typed into the focused field. Run at 1280 px (@clavier): a keyboard is a desktop's.
 */

/** Tab (or Shift+Tab) until `cible` has the focus, as a person would; fails after `max` presses. */
async function tabulerJusqua(page: Page, cible: Locator, { max = 80, arriere = false } = {}) {
  await cible.waitFor({ state: 'attached', timeout: 5000 });
  for (let i = 0; i < max; i++) {
    if (await cible.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press(arriere ? 'Shift+Tab' : 'Tab');
  }
  await expect(cible).toBeFocused();
}

/** The focused element is drawn with a visible ring: an outline at least 2 px wide. */
async function expectFocusVisible(page: Page) {
  const largeur = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el ? Number.parseFloat(getComputedStyle(el).outlineWidth) || 0 : 0;
  });
  expect(largeur).toBeGreaterThanOrEqual(2);
}

test('a resident makes a request and sends a document with the keyboard only', { tag: '@clavier' }, async ({ page }) => {
  const numero = `013k${Date.now().toString(36)}`;
  await page.goto('/');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Aller au contenu' })).toBeFocused();
  await expectFocusVisible(page);

  // The home page's card, then the next page: focus goes to the new content, not back to the top of the page.
  const carte = page.getByRole('link', { name: /^Logement social/u });
  await tabulerJusqua(page, carte);
  await expectFocusVisible(page);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/logement$/u);
  await expect(page.getByRole('heading', { level: 1, name: 'Logement social' })).toBeVisible();
  await expect(page.locator('#contenu')).toBeFocused();

  await tabulerJusqua(page, page.getByRole('link', { name: 'Soumettre ma demande' }));
  await page.keyboard.press('Enter');
  // The address changes a moment before the new page is drawn (the router renders in a transition): like a person,
  // wait to see the form, and its page moves the focus to its content, before moving in it.
  await expect(page.getByRole('heading', { level: 1, name: 'Nouvelle demande de logement social' })).toBeVisible();
  await expect(page.locator('#contenu')).toBeFocused();

  const saisir = async (champ: Locator, texte: string) => {
    await tabulerJusqua(page, champ);
    await expectFocusVisible(page);
    await page.keyboard.type(texte);
    await expect(champ).toHaveValue(texte);
  };
  await saisir(page.getByRole('textbox', { name: 'Numéro unique', exact: true }), numero);
  await saisir(page.getByLabel('Prénom'), 'Yasmine');
  await saisir(page.getByLabel('Adresse e-mail'), 'yasmine@example.org');
  // A select: arrows choose.
  await tabulerJusqua(page, page.getByLabel('Situation familiale'));
  await page.keyboard.press('ArrowDown');
  await expect(page.getByLabel('Situation familiale')).not.toHaveValue('celibataire');
  // A checkbox: Space ticks it.
  await tabulerJusqua(page, page.getByRole('checkbox', { name: 'Jas de Bouffan' }));
  await expectFocusVisible(page);
  await page.keyboard.press('Space');
  await expect(page.getByRole('checkbox', { name: 'Jas de Bouffan' })).toBeChecked();
  await saisir(page.getByLabel('Motivations'), 'Trois enfants dans un deux-pièces.');
  await tabulerJusqua(page, page.getByRole('button', { name: 'Enregistrer ma demande' }));
  await page.keyboard.press('Enter');

  // The result is where the focus is.
  await expect(page.getByRole('heading', { level: 1, name: 'Votre demande est enregistrée' })).toBeFocused();
  await expectNoAxeViolation(page);
  await tabulerJusqua(page, page.getByRole('button', { name: 'Ouvrir ma demande' }));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/logement/${numero}$`, 'u'));
  // As a person waits to see the page before moving in it.
  await expect(page.getByRole('heading', { level: 1, name: `Demande de logement n° ${numero}` })).toBeVisible();
  await expect(page.locator('#contenu')).toBeFocused();

  // A file for the identity block: the file picker opens from the keyboard. On a loaded machine the block may still
  // be drawing its buttons when Enter is pressed; as a person would, press again if no picker came.
  const bloc = page.getByRole('region', { name: 'Pièce d’identité' });
  let selecteur: FileChooser | undefined;
  await expect(async () => {
    await tabulerJusqua(page, bloc.getByRole('button', { name: /^Ajouter des fichiers/u }));
    [selecteur] = await Promise.all([page.waitForEvent('filechooser', { timeout: 5_000 }), page.keyboard.press('Enter')]);
  }).toPass({ timeout: 40_000 });
  await selecteur!.setFiles({ name: 'cni.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') });
  await tabulerJusqua(page, page.getByRole('button', { name: /^Envoyer le fichier/u }));
  await page.keyboard.press('Enter');
  await expect(bloc.getByRole('list', { name: 'Documents envoyés' }).getByText('cni.pdf')).toBeVisible();
  // After sending, the focus is on the result (the message that says so), not lost on the page's body.
  await expect(page.getByRole('status').filter({ hasText: 'téléversées avec succès' })).toBeFocused();
  await expectNoAxeViolation(page);
});

test('an admin signs in and changes a role with the keyboard only', { tag: '@clavier' }, async ({ page }, testInfo) => {
  const admin = await manager(testInfo, 'admin');
  const gestionnaire = await manager(testInfo, 'manager');
  await page.goto('/connexion');
  await tabulerJusqua(page, page.getByLabel('Adresse e-mail'));
  await page.keyboard.type(admin);
  await tabulerJusqua(page, page.getByLabel(/^Mot de passe/u));
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/logement$/u);

  await page.goto('/admin/utilisateurs');
  await tabulerJusqua(page, page.getByRole('textbox', { name: 'Rechercher' }));
  await page.keyboard.type(gestionnaire);
  await expect(page.getByRole('row')).toHaveCount(2);
  const role = page.getByRole('combobox', { name: /^Rôle de Camille Mairie/u });
  await tabulerJusqua(page, role);
  await expectFocusVisible(page);
  await expect(role).toHaveValue('manager');
  // A closed select: the arrow chooses the previous role, « Habitant ».
  await page.keyboard.press('ArrowUp');
  await expect(page.getByRole('status')).toContainText('Camille Mairie a maintenant le rôle habitant.');
  await expect(role).toHaveValue('habitant');
  await expect(role).toBeFocused();
  await expectNoAxeViolation(page);
});
