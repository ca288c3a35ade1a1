import fs from 'node:fs/promises';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';
import { mailsDeStatut, manager, signIn } from './gestion-aides.js';

test('a manager changes the status of 50 requests at once, chosen by the filter, and sees the progress and the count', { tag: '@bureau' }, async ({ page, request }, testInfo) => {
  const tag = `lotd${Date.now().toString(36)}`;
  const numeros: string[] = [];
  for (let i = 0; i < 50; i++) {
    const numeroUnique = `015${tag}${String(i).padStart(2, '0')}`;
    const res = await request.post('/app/api/logement', { data: { numeroUnique, prenom: 'Lina', nom: 'Garcia', email: `${numeroUnique}@example.org`, motivations: 'x', commentaires: tag } });
    expect(res.status()).toBe(201);
    numeros.push(numeroUnique);
  }
  await signIn(page, await manager(testInfo));
  await page.goto(`/logement/list?q=${tag}&pageSize=25&sort=numeroUnique&order=asc`);
  await expect(page.getByText('50 demandes', { exact: true })).toBeVisible();

  // Two rows by hand, then the whole page, then the whole filter.
  await page.getByRole('checkbox', { name: `Choisir la demande n° ${numeros[0]}` }).check();
  await page.getByRole('checkbox', { name: `Choisir la demande n° ${numeros[1]}` }).check();
  const barre = page.getByRole('region', { name: 'Traitement par lot' });
  await expect(barre.getByText('2 demandes choisies')).toBeVisible();
  await page.getByRole('checkbox', { name: 'Choisir toutes les demandes de la page' }).check();
  await expect(barre.getByText('25 demandes choisies')).toBeVisible();
  await barre.getByRole('button', { name: 'Choisir les 50 demandes correspondant au filtre' }).click();
  await expect(barre.getByText('50 demandes choisies (toutes celles du filtre)')).toBeVisible();
  await expectNoAxeViolation(page);

  await barre.getByLabel('Nouveau statut').selectOption('Passage CAL');
  await barre.getByRole('button', { name: 'Changer le statut' }).click();
  const dialog = page.getByRole('dialog', { name: 'Passer 50 demandes à « Passage CAL » ?' });
  await expect(dialog.getByText(/Chaque personne recevra un e-mail/u)).toBeVisible();
  await expectNoAxeViolation(page);
  await dialog.getByRole('button', { name: 'Changer le statut' }).click();
  await expect(barre.getByText('Traitement terminé : 50 demandes modifiées.')).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: `e2e/screenshots/lot-${testInfo.project.name}.png` });
  // The rows show it, on this page and the next; one e-mail each (after the undo window).
  await expect(page.locator(`[data-statut="Passage CAL"]`)).toHaveCount(25);
  await page.goto(`/logement/list?q=${tag}&pageSize=25&sort=numeroUnique&order=asc&page=2`);
  await expect(page.locator(`[data-statut="Passage CAL"]`)).toHaveCount(25);
  await expect.poll(async () => (await mailsDeStatut(`${numeros[49]}@example.org`)).length, { timeout: 20_000 }).toBe(1);

  // The same 50 exported, with a column chosen beside the default ones (remembered on this device).
  await page.getByRole('button', { name: 'Exporter…' }).click();
  const exporter = page.getByRole('dialog', { name: 'Exporter la liste' });
  await exporter.getByText('CSV (Excel, point-virgule)').click();
  await exporter.getByRole('button', { name: 'Colonnes par défaut' }).click();
  await exporter.getByLabel('Salaire brut mensuel').check();
  await expectNoAxeViolation(page);
  const [fichier] = await Promise.all([page.waitForEvent('download'), exporter.getByRole('link', { name: /^Télécharger \(16 colonnes\)/u }).click()]);
  const lignes = (await fs.readFile(await fichier.path(), 'utf8')).split('\r\n');
  expect(lignes[0]).toContain(';Salaire brut mensuel');
  expect(lignes.filter((l) => l.includes(tag))).toHaveLength(50);
  await page.reload();
  await page.getByRole('button', { name: 'Exporter…' }).click();
  await expect(page.getByRole('dialog', { name: 'Exporter la liste' }).getByLabel('Salaire brut mensuel')).toBeChecked();
});
