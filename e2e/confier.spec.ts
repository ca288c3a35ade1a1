import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';
import { mailsPour, manager, signIn } from './gestion-aides.js';

test('« Confier à… » a colleague, on a request’s page with the keyboard and in bulk; the list says who follows; the export is listed', { tag: '@bureau' }, async ({ page, request }, testInfo) => {
  const tag = `cf${Date.now().toString(36)}`;
  const numeros: string[] = [];
  for (let i = 0; i < 3; i++) {
    const numeroUnique = `017${tag}${i}`;
    const res = await request.post('/app/api/logement', { data: { numeroUnique, prenom: 'Yasmine', nom: 'Haddad', email: `${numeroUnique}@example.org`, motivations: 'x', commentaires: tag } });
    expect(res.status()).toBe(201);
    numeros.push(numeroUnique);
  }
  // The colleague, named apart from the other accounts the run made.
  const suffixe = tag.slice(-4);
  // Capitalised as the sign-up writes names.
  const collegue = { prenom: 'Inès', nom: `Bonnet ${suffixe[0]!.toUpperCase()}${suffixe.slice(1)}` };
  const nomCollegue = `${collegue.prenom} ${collegue.nom}`;
  const emailCollegue = await manager(testInfo, 'manager', collegue);
  await signIn(page, await manager(testInfo));

  // On the page, keyboard only: the button, the choice (focused when the dialog opens), Enter.
  await page.goto(`/logement/list?q=${numeros[0]}`);
  await page.getByRole('link', { name: numeros[0] }).click();
  const instruction = page.getByRole('region', { name: 'Instruction' });
  const bouton = instruction.getByRole('button', { name: 'Confier à…' });
  await bouton.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Confier la demande à un collègue' });
  const choix = dialog.getByRole('combobox', { name: 'Gestionnaire' });
  await expect(choix).toBeFocused();
  const envoyer = dialog.getByRole('button', { name: 'Confier', exact: true });
  /** Tab until `cible` has the focus (a few steps at most). */
  const tabulerVers = async (cible: typeof envoyer) => {
    for (let i = 0; i < 6 && !(await cible.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Tab');
    await expect(cible).toBeFocused();
  };
  // Pressed without a choice: said on the field, nothing sent.
  await tabulerVers(envoyer);
  await page.keyboard.press('Enter');
  await expect(dialog.getByText('Choisissez le gestionnaire à qui confier la demande.')).toBeVisible();
  // The colleague typed on the closed list (its first letters choose it), then « Confier ».
  await page.keyboard.press('Shift+Tab');
  for (let i = 0; i < 4 && !(await choix.evaluate((e) => e === document.activeElement)); i++) await page.keyboard.press('Shift+Tab');
  await expect(choix).toBeFocused();
  await page.keyboard.type(nomCollegue);
  await expect(choix.locator('option:checked')).toHaveText(nomCollegue);
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/confier-${testInfo.project.name}.png` });
  await tabulerVers(envoyer);
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(instruction.getByText(`Demande confiée à ${nomCollegue} ; un e-mail l’en informe.`)).toBeVisible();
  await expect(instruction.getByText(`Suivie par : ${nomCollegue}`)).toBeVisible();
  await expect(bouton).toBeFocused();
  await expect.poll(async () => (await mailsPour(emailCollegue)).filter((m) => m.includes(`vous a confié la demande n° ${numeros[0]}`)).length).toBe(1);

  // In bulk: the two others, one e-mail for both.
  await page.goto(`/logement/list?q=${tag}&sort=numeroUnique&order=asc`);
  await expect(page.getByText('3 demandes', { exact: true })).toBeVisible();
  await expect(page.getByText(`Suivie par ${nomCollegue}`)).toHaveCount(1);
  await page.getByRole('checkbox', { name: `Choisir la demande n° ${numeros[1]}` }).check();
  await page.getByRole('checkbox', { name: `Choisir la demande n° ${numeros[2]}` }).check();
  const barre = page.getByRole('region', { name: 'Traitement par lot' });
  await barre.getByRole('button', { name: 'Confier ces demandes à…' }).click();
  const lot = page.getByRole('dialog', { name: 'Confier 2 demandes à un collègue ?' });
  await lot.getByRole('combobox', { name: 'Gestionnaire' }).selectOption({ label: nomCollegue });
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/confier-lot-${testInfo.project.name}.png` });
  await lot.getByRole('button', { name: 'Confier' }).click();
  await expect(barre.getByText('Traitement terminé : 2 demandes modifiées.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(`Suivie par ${nomCollegue}`)).toHaveCount(3);
  await expect
    .poll(async () => (await mailsPour(emailCollegue)).filter((m) => m.includes('vous a confié 2 demandes de logement')), { timeout: 20_000 })
    .toEqual([expect.stringContaining(numeros[1]!)]);
  expect((await mailsPour(emailCollegue)).find((m) => m.includes('vous a confié 2 demandes de logement'))).toContain(numeros[2]);
  await expectNoAxeViolation(page);

  // At 1024 px the list still says who follows each request, and every row fits.
  await page.setViewportSize({ width: 1024, height: 768 });
  await expect(page.getByText(`Suivie par ${nomCollegue}`).first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024);
  await page.screenshot({ path: `e2e/screenshots/confier-liste-1024-${testInfo.project.name}.png` });

  // An export of the filter, then listed under « Derniers exports » with the manager's name.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole('button', { name: /^Exporter/u }).click();
  const exporter = page.getByRole('dialog');
  const telechargement = page.waitForEvent('download');
  await exporter.getByRole('link', { name: /^Télécharger/u }).click();
  await (await telechargement).path();
  await page.getByRole('button', { name: /^Exporter/u }).click();
  const derniers = page.getByRole('dialog').getByRole('region', { name: 'Derniers exports' });
  await expect(derniers.getByText(/Camille Mairie — Excel \(\.xlsx\), \d+ colonnes/u).first()).toBeVisible();
  await derniers.scrollIntoViewIfNeeded();
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/derniers-exports-${testInfo.project.name}.png` });
});
