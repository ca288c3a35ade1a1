import { execFileSync } from 'node:child_process';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';

const PASSWORD = 'la sainte victoire au loin';

/** A manager account: signed up through the API, role set with the CLI (as the README says). */
async function manager(request: APIRequestContext, testInfo: TestInfo): Promise<string> {
  const email = `gestion.${testInfo.project.name}.${Date.now()}@example.org`;
  const res = await request.post('/app/api/user/inscription', {
    data: { nom: 'Mairie', prenom: 'Camille', birthday: '1985-02-02', residence: 'Mairie annexe', rue: 'Rue Charloun-Rieu', email, password: PASSWORD },
  });
  expect(res.status()).toBe(201);
  execFileSync(process.execPath, ['dist/server/cli/user.js', 'role', email, 'manager'], { env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR } });
  return email;
}

async function signIn(page: Page, email: string) {
  await page.goto('/connexion');
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel(/^Mot de passe/u).fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
}

test('a manager searches, sorts and changes a status; an open detail page follows live; a refusal rolls back', async ({ page, browser, request }, testInfo) => {
  const tag = `${testInfo.project.name.includes('375') ? 'm' : 'd'}${Date.now().toString(36)}`;
  const numeros = [];
  for (const [i, prenom] of ['Hélène', 'Bérénice', 'Agnès'].entries()) {
    const numeroUnique = `013g${tag}${i}`;
    const res = await request.post('/app/api/logement', { data: { numeroUnique, prenom, nom: `Famille${tag}`, email: `f${i}@example.org`, motivations: 'x' } });
    expect(res.status()).toBe(201);
    numeros.push(numeroUnique);
  }
  const email = await manager(request, testInfo);
  await signIn(page, email);
  await page.getByRole('link', { name: 'Toutes les demandes' }).click();
  await expect(page).toHaveTitle('Toutes les demandes — Quartier Vivant');

  // Search, accents ignored; the state is in the address.
  await page.getByRole('searchbox', { name: 'Rechercher' }).fill(`famille${tag}`);
  await expect(page.getByText('3 demandes')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`q=famille${tag}`, 'u'));
  await page.getByRole('searchbox', { name: 'Rechercher' }).fill(`famille${tag} berenice`);
  await expect(page.getByText('1 demande', { exact: true })).toBeVisible();
  await page.getByRole('searchbox', { name: 'Rechercher' }).fill(`famille${tag}`);
  await expect(page.getByText('3 demandes')).toBeVisible();

  // Sort on a header: ascending, then descending.
  await page.getByRole('button', { name: /^Prénom/u }).click();
  await expect(page.getByRole('columnheader', { name: /Prénom/u })).toHaveAttribute('aria-sort', 'ascending');
  await expect(page.locator('tbody tr').first()).toContainText('Agnès');
  await page.getByRole('button', { name: /^Prénom/u }).click();
  await expect(page.getByRole('columnheader', { name: /Prénom/u })).toHaveAttribute('aria-sort', 'descending');
  await expect(page.locator('tbody tr').first()).toContainText('Hélène');
  await new AxeBuilder({ page }).analyze().then((r) => expect(r.violations.map((v) => v.id)).toEqual([]));
  await page.screenshot({ path: `e2e/screenshots/liste-${testInfo.project.name}.png`, fullPage: true });

  // Someone follows Hélène's request on another device.
  const other = await browser.newContext();
  const follower = await other.newPage();
  await follower.goto(`/logement/${numeros[0]}`);
  await expect(follower.getByText('Étape 1 sur 6 : En attente des documents')).toBeVisible();

  // The manager changes the status: the colour changes at once, the server records it, the follower sees it.
  const select = page.getByRole('combobox', { name: `Statut de la demande n° ${numeros[0]}` });
  await select.selectOption('Passage CAL');
  await expect(select).toHaveAttribute('data-statut', 'Passage CAL');
  await expect(select).toHaveCSS('background-color', 'rgb(0, 191, 255)');
  await expect(follower.getByText('Étape 5 sur 6 : Passage CAL')).toBeVisible({ timeout: 10_000 });
  await expect(follower.getByRole('region', { name: 'Historique' }).getByText('Passage CAL')).toBeVisible();
  await follower.screenshot({ path: `e2e/screenshots/demande-en-direct-${testInfo.project.name}.png`, fullPage: true });
  const stored = await request.get(`/app/api/logement/${numeros[0]}`);
  expect((await stored.json()).data.statutDeLaDemande).toBe('Passage CAL');
  await other.close();

  // A refusal from the server: the row goes back and a French message says so.
  await page.route('**/app/api/logement/update/status', (route) =>
    route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: { code: 'FORBIDDEN', message: 'Accès réservé aux gestionnaires de la mairie annexe.' } }) }),
  );
  const second = page.getByRole('combobox', { name: `Statut de la demande n° ${numeros[1]}` });
  await second.selectOption('Attribué');
  await expect(page.getByRole('alert')).toContainText(`Le statut de la demande n° ${numeros[1]} n'a pas été changé`);
  await expect(second).toHaveValue('En attente des documents');
  await expect(second).toHaveAttribute('data-statut', 'En attente des documents');
});

test('the list is refused to residents with a French page', async ({ page, request }, testInfo) => {
  await page.goto('/logement/list');
  await expect(page).toHaveURL(/\/connexion$/u);
  const email = `habitant.${testInfo.project.name}.${Date.now()}@example.org`;
  await request.post('/app/api/user/inscription', {
    data: { nom: 'Habitant', prenom: 'Jo', birthday: '1990-02-02', residence: 'R', rue: 'Rue Charloun-Rieu', email, password: PASSWORD },
  });
  await signIn(page, email);
  await page.goto('/logement/list');
  await expect(page.getByRole('heading', { name: 'Accès réservé' })).toBeVisible();
});
