import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';
import { manager, signIn } from './gestion-aides.js';

test('an admin creates a label; it is put on a request, shown in the list and filtered on', { tag: '@bureau' }, async ({ page, request }, testInfo) => {
  const tag = `d${Date.now().toString(36)}`;
  const numeroUnique = `016e${tag}`;
  const res = await request.post('/app/api/logement', { data: { numeroUnique, prenom: 'Yanis', nom: 'Morel', email: `${tag}@example.org`, motivations: 'x' } });
  expect(res.status()).toBe(201);
  await signIn(page, await manager(testInfo, 'admin'));

  const nom = `Urgent ${tag}`;
  await page.goto('/admin/etiquettes');
  await page.getByLabel(/^Nom/u).fill(nom);
  await page.getByLabel('Couleur').selectOption('rouge');
  await page.getByRole('button', { name: 'Créer' }).click();
  await expect(page.getByRole('list', { name: 'Étiquettes existantes' }).getByText(nom)).toBeVisible();
  await expectNoAxeViolation(page);

  await page.goto(`/logement/${numeroUnique}`);
  const etiquettes = page.getByRole('group', { name: 'Étiquettes' });
  await etiquettes.getByText(nom).click();
  await expect(etiquettes.getByRole('checkbox', { name: nom })).toBeChecked();
  await expect(page.getByRole('region', { name: 'Journal des actions' }).getByText(/a changé les étiquettes : ajoutée/u)).toBeVisible();
  await expectNoAxeViolation(page);

  await page.goto('/logement/list');
  await page.getByLabel('Étiquette', { exact: true }).selectOption({ label: nom });
  const ligne = page.getByRole('row').filter({ has: page.getByRole('link', { name: numeroUnique }) });
  await expect(ligne.getByText(nom)).toBeVisible();
  await expect(page.getByText('1 demande', { exact: true })).toBeVisible();
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/etiquettes-liste-${testInfo.project.name}.png` });
});
