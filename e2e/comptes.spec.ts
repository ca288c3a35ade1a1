import fs from 'node:fs/promises';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.js';

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
  // Signed out, the visitor sees the inviter's first name only (her default choice: « Mes voisins seulement »).
  await expect(page.getByText('Amina', { exact: true })).toBeVisible();
  await expect(page.getByText('Amina Roux')).toHaveCount(0);
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
  // Who sees my name and photo: a radio group with its legend, saved with its own button.
  const choix = page.getByRole('group', { name: 'Qui voit mon nom et ma photo ?' });
  await expect(choix.getByRole('radio', { name: 'Mes voisins seulement' })).toBeChecked();
  await choix.getByRole('radio', { name: 'Les habitants de mon quartier' }).check();
  await page.getByRole('button', { name: 'Valider ce choix' }).click();
  await expect(page.getByText('Votre choix est enregistré.')).toBeVisible();
  await page.reload();
  await expect(page.getByRole('group', { name: 'Qui voit mon nom et ma photo ?' }).getByRole('radio', { name: 'Les habitants de mon quartier' })).toBeChecked();
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

/** The link of the last e-mail sent to `to` (files of DATA_DIR/mail: no SMTP in tests), decoded from quoted-printable. */
async function lienRecu(to: string, contient: string): Promise<string> {
  const dir = path.join(process.env.E2E_DATA_DIR!, 'mail');
  for (let attempt = 0; attempt < 50; attempt++) {
    const files = (await fs.readdir(dir).catch(() => [])).filter((f) => f.endsWith('.eml')).sort().reverse();
    for (const file of files) {
      const text = (await fs.readFile(path.join(dir, file), 'utf8')).replace(/=\r?\n/gu, '').replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      if (!text.includes(`To: ${to}`)) continue;
      const link = text.match(/https?:\/\/\S+/gu)?.find((url) => url.includes(contient));
      if (link) return link;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no e-mail to ${to} with a link containing ${contient}`);
}

test('the account forms check what is typed, in French; a forgotten password is replaced from the e-mailed link', async ({ page, request }, testInfo) => {
  const email = unique(testInfo, 'oubli');
  const created = await request.post('/app/api/user/inscription', {
    data: { nom: 'Blanc', prenom: 'Marius', birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Jean-Monnet', email, password: PASSWORD },
  });
  expect(created.status()).toBe(201);

  // Sign-in: both fields are required.
  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByText("L'adresse e-mail est obligatoire.")).toBeVisible();
  await expect(page.getByText('Le mot de passe est obligatoire.')).toBeVisible();
  await expectNoAxeViolation(page);

  // Forgotten password: the address is checked, then the link is sent.
  await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
  await expect(page).toHaveTitle('Mot de passe oublié — Quartier Vivant');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByText("L'adresse e-mail est obligatoire.")).toBeVisible();
  await page.getByLabel('Adresse e-mail').fill('marius@');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByText("L'adresse e-mail n'est pas valide.")).toBeVisible();
  await page.getByLabel('Adresse e-mail').fill(` ${email.toUpperCase()} `);
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByRole('status')).toContainText(`Si un compte existe pour ${email}`);
  await expectNoAxeViolation(page);

  // The e-mailed link leads to the new-password page; the password's length is checked there.
  const NOUVEAU = 'les platanes du cours mirabeau';
  await page.goto((await lienRecu(email, 'reset-password')).replace(/^https?:\/\/[^/]+/u, testInfo.project.use.baseURL!));
  await expect(page).toHaveURL(/\/connexion\/nouveau-mot-de-passe\?token=/u);
  await page.getByLabel(/^Nouveau mot de passe/u).fill('court');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Le mot de passe doit contenir au moins 12 caractères.')).toBeVisible();
  await page.getByLabel(/^Nouveau mot de passe/u).fill(NOUVEAU);
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByRole('status')).toContainText('Mot de passe changé');
  await page.getByRole('link', { name: 'vous connecter' }).click();

  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel(/^Mot de passe/u).fill(NOUVEAU);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/logement$/u);

  // Profile: names are required and saved capitalised; the message goes at the next keystroke.
  await page.goto('/profile');
  const nom = page.getByRole('textbox', { name: 'Nom', exact: true });
  await expect(nom).toHaveValue('Blanc');
  await nom.fill('');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByText('Le nom est obligatoire.')).toBeVisible();
  await nom.fill('de la tour');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  const infos = page.getByRole('region', { name: 'Mes informations' });
  await expect(infos.getByRole('status')).toContainText('Nom et prénom enregistrés.');
  await expect(nom).toHaveValue('De La Tour');
  await nom.press('End');
  await nom.press('Backspace');
  await expect(infos.getByRole('status')).toHaveText('');
  await expectNoAxeViolation(page);
});

test('the admin page shows which addresses are confirmed and why a role is refused', async ({ page, request }, testInfo) => {
  const signUp = async (email: string, prenom: string) => {
    // The request context keeps the first account's cookie: its writes carry the site's Origin, as a browser's do.
    const res = await request.post('/app/api/user/inscription', {
      headers: { origin: new URL(testInfo.project.use.baseURL!).origin },
      data: { nom: 'Admin', prenom, birthday: '1970-01-01', residence: 'Mairie annexe', rue: 'Avenue Jean-Monnet', email, password: PASSWORD },
    });
    expect(res.status()).toBe(201);
  };
  // The admin confirms their address (the e-mailed link), then gets the role from the command line.
  const admin = unique(testInfo, 'admin');
  await signUp(admin, 'Claire');
  const verification = new URL(await lienRecu(admin, 'verify-email'));
  await request.get(verification.pathname + verification.search, { maxRedirects: 0 });
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, ['dist/server/cli/user.js', 'role', admin, 'admin'], { env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR } });
  // Someone signs up with a town-hall-looking address they never confirm.
  const intrus = unique(testInfo, 'agent');
  await signUp(intrus, 'Agent');

  await page.goto('/connexion');
  await page.getByLabel('Adresse e-mail').fill(admin);
  await page.getByLabel(/^Mot de passe/u).fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
  await page.goto('/admin/utilisateurs');
  await page.getByLabel('Rechercher').fill(intrus);
  const row = page.getByRole('row').filter({ hasText: intrus });
  await expect(row.getByText('Non confirmée')).toBeVisible();
  await row.getByRole('combobox').selectOption('manager');
  await expect(page.getByRole('status')).toContainText(`L'adresse ${intrus} n'est pas confirmée : la personne doit d'abord cliquer le lien reçu par e-mail`);
  await expect(row.getByRole('combobox')).toHaveValue('habitant');
  await page.getByLabel('Rechercher').fill(admin);
  await expect(page.getByRole('row').filter({ hasText: admin }).getByText('Confirmée', { exact: true })).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'utilisateurs');
});
