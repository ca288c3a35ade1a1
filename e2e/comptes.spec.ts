import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';

async function expectNoAxeViolation(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: `e2e/screenshots/${name}-${testInfo.project.name}.png`, fullPage: true });
}

const unique = (testInfo: TestInfo, what: string) => `${what}.${testInfo.project.name}.${Date.now()}@example.org`;
const PASSWORD = 'le mistral souffle sur aix';

test('a neighbour signs up from an invitation link, signs out and signs in again', async ({ page, request }, testInfo) => {
  // The inviter already has an account.
  const inviter = await request.post('/app/api/user/inscription', {
    data: { nom: 'Roux', prenom: 'Amina', birthday: '1975-06-01', residence: 'Les Oliviers', rue: 'Avenue Jean-Monnet', email: unique(testInfo, 'amina'), password: PASSWORD },
  });
  expect(inviter.status()).toBe(201);
  const inviterUid = (await inviter.json()).data.uid as string;

  await page.goto(`/invitation/${inviterUid}`);
  await expect(page).toHaveTitle('Connexion — Quartier Vivant');
  await expect(page.getByRole('heading', { name: 'Bonjour' })).toBeVisible();
  await expect(page.getByText('Invitation reçue par')).toBeVisible();
  await expect(page.getByText('Amina Roux')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Connexion avec Google' })).toBeVisible();
  await expect(page.getByText('OU', { exact: true })).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'invitation');

  await page.getByRole('button', { name: 'Créer nouveau compte' }).click();
  const modal = page.getByRole('dialog', { name: 'Créer un compte' });
  await expect(modal).toBeVisible();
  // Defaults of SPEC §5.
  await expect(modal.getByRole('textbox', { name: 'Pays' })).toHaveValue('France');
  await expect(modal.getByLabel('Ville')).toHaveValue('Aix-en-Provence');
  await expect(modal.getByLabel('Quartier')).toHaveValue('Jas de Bouffan');
  await expect(modal.getByRole('radio', { name: 'Femme (F)' })).toBeChecked();
  await expect(modal.getByLabel('Rue')).not.toHaveValue('');
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'inscription');

  await modal.getByRole('textbox', { name: 'Nom', exact: true }).fill('garcia');
  await modal.getByRole('textbox', { name: 'Prénom' }).fill('lucas');
  await modal.getByRole('textbox', { name: 'Prénom' }).blur();
  await expect(modal.getByRole('textbox', { name: 'Nom', exact: true })).toHaveValue('Garcia');
  await modal.getByRole('radio', { name: 'Homme (H)' }).check();
  await modal.getByRole('textbox', { name: 'Date de naissance' }).fill('1992-03-15');
  await modal.getByRole('textbox', { name: 'Résidence' }).fill('Le Mail, bât. C');
  const email = unique(testInfo, 'lucas');
  await modal.getByRole('textbox', { name: 'Adresse e-mail' }).fill(email);
  await modal.getByRole('textbox', { name: 'Mot de passe' }).fill('motdepasse');
  await modal.getByRole('button', { name: 'Créer mon compte' }).click();
  await expect(modal.getByText('Le mot de passe doit contenir au moins 12 caractères.')).toBeVisible();
  await modal.getByRole('textbox', { name: 'Mot de passe' }).fill(PASSWORD);
  await modal.getByRole('button', { name: 'Créer mon compte' }).click();

  await expect(page).toHaveURL(/\/logement$/u);
  await expect(page.getByRole('heading', { name: 'Mes demandes' })).toBeVisible();
  await page.goto('/profile');
  await expect(page.getByRole('heading', { name: 'Mon profil' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Je les suis' }).getByText('Amina Roux')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Ils me suivent' }).getByText('Amina Roux')).toBeVisible();
  await expect(page.getByLabel("Mon lien d'invitation")).toHaveValue(/\/invitation\/[\w-]+$/u);
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'profil');

  // Sign out: the server session ends, the profile is no longer reachable.
  await page.goto('/deconnexion');
  await expect(page).toHaveURL(/\/$/u);
  await page.goto('/profile');
  await expect(page).toHaveURL(/\/connexion$/u);
  const me = await page.request.get('/app/api/user/me');
  expect(me.status()).toBe(401);

  // Sign in again; wrong password first.
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel(/^Mot de passe/u).fill('pas le bon mot de passe');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByRole('alert')).toContainText('E-mail ou mot de passe incorrect');
  await page.getByLabel(/^Mot de passe/u).fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
  // Signed in, the sign-in screen sends you on.
  await page.goto('/connexion');
  await expect(page).toHaveURL(/\/logement$/u);
});

test('the sign-up modal closes with Escape and with the dim backdrop', async ({ page }) => {
  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Créer nouveau compte' }).click();
  await expect(page.getByRole('dialog', { name: 'Créer un compte' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.getByRole('button', { name: 'Créer nouveau compte' }).click();
  await expect(page.getByRole('dialog', { name: 'Créer un compte' })).toBeVisible();
  await page.mouse.click(5, 400);
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('an unknown inviter shows the screen without banner', async ({ page }) => {
  await page.goto('/invitation/personne-de-connu');
  await expect(page.getByRole('heading', { name: 'Bonjour' })).toBeVisible();
  await expect(page.getByText('Invitation reçue par')).toHaveCount(0);
});

test('a resident signs in with Google (a local OpenID provider)', async ({ page }, testInfo) => {
  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Connexion avec Google' }).click();
  // The provider's development login, then its consent page.
  await page.locator('input[name=login]').fill(`google-${testInfo.project.name}-${Date.now()}`);
  await page.locator('input[name=password]').fill('x');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
  await page.goto('/profile');
  // The display name "Bernard Sophie": first word to nom, second to prenom.
  await expect(page.getByRole('textbox', { name: 'Nom', exact: true })).toHaveValue('Bernard');
  await expect(page.getByRole('textbox', { name: 'Prénom' })).toHaveValue('Sophie');
});
