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
  await cible.waitFor({ state: 'attached', timeout: 15_000 });
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

/** Signs in from /connexion with the keyboard only: Tab to each field, type, Enter. */
async function connexionAuClavier(page: Page, email: string) {
  await page.goto('/connexion');
  await tabulerJusqua(page, page.getByLabel('Adresse e-mail'));
  await page.keyboard.type(email);
  await tabulerJusqua(page, page.getByLabel(/^Mot de passe/u));
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/logement$/u);
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
  await connexionAuClavier(page, admin);

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

test('an admin issues an Open311 key and revokes it with the keyboard only', { tag: '@clavier' }, async ({ page }, testInfo) => {
  const admin = await manager(testInfo, 'admin');
  await connexionAuClavier(page, admin);

  await page.goto('/admin/open311');
  const libelle = `Voirie ${Date.now().toString(36)}`;
  await tabulerJusqua(page, page.getByLabel(/^Qui utilisera la clé/u));
  await expectFocusVisible(page);
  await page.keyboard.type(libelle);
  await page.keyboard.press('Enter');
  // Shown once, with a way to copy it, reached by Tab.
  const cle = page.getByRole('textbox', { name: 'Clé d’API' });
  await expect(cle).not.toHaveValue('');
  await tabulerJusqua(page, page.getByRole('button', { name: 'Copier la clé' }));
  await expectFocusVisible(page);
  await expectNoAxeViolation(page);

  // Revoke: the dialog opens on « Annuler » (the safe choice); Tab reaches « Révoquer la clé », Enter revokes.
  await tabulerJusqua(page, page.getByRole('button', { name: `Révoquer la clé « ${libelle} »` }));
  await page.keyboard.press('Enter');
  const dialogue = page.getByRole('dialog', { name: `Révoquer la clé « ${libelle} » ?` });
  await expect(dialogue.getByRole('button', { name: 'Annuler' })).toBeFocused();
  await expectNoAxeViolation(page, { dans: '[role="dialog"]' });
  await page.keyboard.press('Tab');
  await expect(dialogue.getByRole('button', { name: 'Révoquer la clé' })).toBeFocused();
  await expectFocusVisible(page);
  await page.keyboard.press('Enter');
  await expect(dialogue).toHaveCount(0);
  // Revoked: no longer offered for revocation; the focus is not lost to the page's top.
  await expect(page.getByRole('button', { name: `Révoquer la clé « ${libelle} »` })).toHaveCount(0);
  expect(await page.evaluate(() => document.activeElement !== document.body)).toBe(true);
  await expectNoAxeViolation(page);
});

test('a manager resolves a technical report with the keyboard only, through its confirmation', { tag: '@clavier' }, async ({ page, request }, testInfo) => {
  const tag = Date.now().toString(36);
  const cree = await request.post('/app/api/technique/signalements', {
    data: { categorie: 'eclairage', titre: `Lampadaire éteint ${tag}`, description: 'Éteint depuis trois soirs.', lat: 43.5286, lon: 5.4132, email: `clavier.${tag}@example.org`, nom: 'Inès Benali' },
  });
  expect(cree.status(), await cree.text()).toBe(201);
  const { numero } = (await cree.json()).data as { numero: string };
  const gestionnaire = await manager(testInfo);
  await connexionAuClavier(page, gestionnaire);

  await page.goto(`/technique/${numero}`);
  const traitement = page.getByRole('region', { name: 'Traitement' });
  const etat = traitement.getByRole('combobox', { name: 'Nouvel état' });
  await tabulerJusqua(page, etat);
  await expectFocusVisible(page);
  // A closed native select: typing the option's first letters chooses it, as a keyboard user does.
  await page.keyboard.type('Résolu');
  await expect(etat).toHaveValue('resolu');
  await tabulerJusqua(page, traitement.getByRole('textbox', { name: 'Message public' }));
  await page.keyboard.type('Ampoule changée ce matin.');
  await tabulerJusqua(page, traitement.getByRole('button', { name: 'Publier la mise à jour' }));
  await page.keyboard.press('Enter');
  // The confirmation opens on its action; Shift+Tab reaches « Ne pas changer », Tab comes back.
  const dialogue = page.getByRole('dialog', { name: 'Passer le signalement à « Résolu » ?' });
  const confirmer = dialogue.getByRole('button', { name: 'Passer à « Résolu »' });
  await expect(confirmer).toBeFocused();
  await expectFocusVisible(page);
  await page.keyboard.press('Shift+Tab');
  await expect(dialogue.getByRole('button', { name: 'Ne pas changer' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(confirmer).toBeFocused();
  await expectNoAxeViolation(page, { dans: '[role="dialog"]' });
  await page.keyboard.press('Enter');
  await expect(traitement.getByText('État passé à « Résolu » ; la mise à jour est publiée.')).toBeFocused();
  await expectNoAxeViolation(page);
});
