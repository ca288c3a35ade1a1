import fs from 'node:fs/promises';
import path from 'node:path';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';


async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: `e2e/screenshots/${name}-${testInfo.project.name}.png`, fullPage: true });
}

const unique = (testInfo: TestInfo, what: string) => `${what}.${testInfo.project.name}.${Date.now()}@example.org`;
const PASSWORD = 'le mistral souffle sur aix';

test('a neighbour signs up from an invitation link, signs out and signs in again', { tag: '@habitant' }, async ({ page, request }, testInfo) => {
  // The inviter already has an account.
  const inviter = await request.post('/app/api/user/inscription', {
    data: { nom: 'Roux', prenom: 'Amina', birthday: '1975-06-01', residence: 'Les Oliviers', rue: 'Avenue Jean-Monnet', email: unique(testInfo, 'amina'), password: PASSWORD },
  });
  expect(inviter.status()).toBe(201);
  const inviterUid = (await inviter.json()).data.uid as string;

  await page.goto(`/invitation/${inviterUid}`);
  await expect(page).toHaveTitle('Connexion — Quartier Vivant');
  await expect(page.getByRole('heading', { level: 1, name: 'Connexion' })).toBeVisible();
  await expect(page.getByText(/^Bonjour ! Connectez-vous/u)).toBeVisible();
  await expect(page.getByRole('region', { name: 'Invitation reçue par Amina' })).toBeVisible();
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

  // The welcome: by first name, where the confirmation went, and the inviter now followed; read first (focused).
  const bienvenue = page.getByRole('heading', { level: 1, name: 'Bienvenue, Lucas !' });
  await expect(bienvenue).toBeFocused();
  const accueil = page.getByRole('status');
  await expect(accueil).toContainText('Votre compte est créé.');
  await expect(accueil).toContainText(`Un e-mail de confirmation a été envoyé à ${email}`);
  await expect(accueil).toContainText('Vous suivez désormais Amina');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'bienvenue');
  await page.getByRole('link', { name: 'Mes demandes de logement' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
  await expect(page.getByRole('heading', { name: 'Mes demandes' })).toBeVisible();

  // Not confirmed yet: the profile offers a new link.
  await page.goto('/profile');
  const confirmation = page.getByRole('region', { name: 'Confirmer mon adresse e-mail' });
  await confirmation.getByRole('button', { name: 'Recevoir un nouveau lien' }).click();
  await expect(confirmation.getByRole('status')).toContainText(`Un nouveau lien de confirmation a été envoyé à ${email}.`);

  // The link of the e-mail, opened in the browser: the address is confirmed, and the page says what comes next.
  await page.goto((await lienRecu(email, 'verify-email')).replace(/^https?:\/\/[^/]+/u, testInfo.project.use.baseURL!));
  await expect(page).toHaveURL(/\/connexion\?confirmation=adresse$/u);
  await expect(page.getByRole('heading', { level: 1, name: 'Votre adresse e-mail est confirmée' })).toBeFocused();
  await expect(page.getByText(/^Vous pouvez maintenant/u)).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'adresse-confirmee');
  await page.getByRole('link', { name: 'Mon profil' }).click();
  await expect(page.getByRole('heading', { name: 'Mon profil' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Confirmer mon adresse e-mail' })).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Je les suis' }).getByText('Amina Roux')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Ils me suivent' }).getByText('Amina Roux')).toBeVisible();
  await expect(page.getByLabel("Mon lien d’invitation")).toHaveValue(/\/invitation\/[\w-]+$/u);
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

  // Sign out: the server session ends, the profile is no longer reachable: the sign-in screen keeps it as the way back.
  await page.goto('/deconnexion');
  await expect(page).toHaveURL(/\/$/u);
  await page.goto('/profile');
  await expect(page).toHaveURL(/\/connexion\?retour=\/profile$/u);
  await expect(page.getByText('Après la connexion, vous reviendrez à la page que vous vouliez ouvrir.')).toBeVisible();
  const me = await page.request.get('/app/api/user/me');
  expect(me.status()).toBe(401);

  // Sign in again; wrong password first.
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel(/^Mot de passe/u).fill('pas le bon mot de passe');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByRole('alert')).toContainText('E-mail ou mot de passe incorrect');
  await page.getByLabel(/^Mot de passe/u).fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  // Back where the person was going.
  await expect(page).toHaveURL(/\/profile$/u);
  await expect(page.getByRole('heading', { name: 'Mon profil' })).toBeVisible();
  // Signed in, the sign-in screen sends you on; to Logement when it was given another site.
  await page.goto('/connexion');
  await expect(page).toHaveURL(/\/logement$/u);
  await page.goto('/connexion?retour=//example.org/profile');
  await expect(page).toHaveURL(/\/logement$/u);
});

test('the sign-up modal keeps what was typed: a tap beside it leaves it open, Escape or its button close it; the first wrong field shows whole', { tag: '@habitant' }, async ({ page }) => {
  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Créer nouveau compte' }).click();
  const modal = page.getByRole('dialog', { name: 'Créer un compte' });
  await expect(modal).toBeVisible();
  await modal.getByRole('textbox', { name: 'Adresse e-mail' }).fill('lea@example.org');
  await page.mouse.click(5, 400);
  await expect(modal).toBeVisible();
  await expect(modal.getByRole('textbox', { name: 'Adresse e-mail' })).toHaveValue('lea@example.org');
  // The birth date is not set for the person (it used to be today) and is refused in the future.
  await expect(modal.getByRole('textbox', { name: 'Date de naissance' })).toHaveValue('');
  await modal.getByRole('textbox', { name: 'Date de naissance' }).fill('2999-01-01');
  // Submitting scrolls to the first wrong field: its label is below the dialog's sticky title, not under it.
  await modal.getByRole('button', { name: 'Créer mon compte' }).click();
  await expect(modal.getByText('La date de naissance ne peut pas être dans le futur.')).toBeVisible();
  const champ = modal.getByRole('textbox', { name: 'Nom', exact: true });
  await expect(champ).toBeFocused();
  // Chromium centres a focused field; other browsers bring it to the top edge, where the sticky title is: as they do.
  await champ.evaluate((el) => el.scrollIntoView());
  const titre = (await modal.locator('.mantine-Modal-header').boundingBox())!;
  const etiquette = (await modal.locator(`label[for="${await champ.getAttribute('id')}"]`).boundingBox({ timeout: 15_000 }))!;
  expect(etiquette.y).toBeGreaterThanOrEqual(titre.y + titre.height);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.getByRole('button', { name: 'Créer nouveau compte' }).click();
  await expect(modal).toBeVisible();
  await modal.getByRole('button', { name: 'Fermer' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
});

test('an unknown inviter shows the screen without banner', { tag: '@habitant' }, async ({ page }) => {
  await page.goto('/invitation/personne-de-connu');
  await expect(page.getByRole('heading', { level: 1, name: 'Connexion' })).toBeVisible();
  await expect(page.getByText('Invitation reçue par')).toHaveCount(0);
});

test('a resident signs in with Google (a local OpenID provider)', { tag: '@habitant' }, async ({ page }, testInfo) => {
  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Connexion avec Google' }).click();
  // The provider's development login, then its consent page.
  await page.locator('input[name=login]').fill(`google-${testInfo.project.name}-${Date.now()}`);
  await page.locator('input[name=password]').fill('x');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  // A new account: Google brings the person back to the welcome (its address is confirmed already: no e-mail).
  await expect(page).toHaveURL(/\/connexion\?bienvenue=1$/u);
  await expect(page.getByRole('heading', { level: 1, name: 'Bienvenue, Sophie !' })).toBeFocused();
  await expect(page.getByRole('status')).toContainText('Votre compte est créé.');
  await expect(page.getByRole('status')).not.toContainText('e-mail de confirmation');
  await page.getByRole('link', { name: 'Mes demandes de logement' }).click();
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

test('the account forms check what is typed, in French; a forgotten password is replaced from the e-mailed link', { tag: '@habitant' }, async ({ page, request }, testInfo) => {
  const email = unique(testInfo, 'oubli');
  const created = await request.post('/app/api/user/inscription', {
    data: { nom: 'Blanc', prenom: 'Marius', birthday: '1980-01-01', residence: 'Les Lauriers', rue: 'Avenue Jean-Monnet', email, password: PASSWORD },
  });
  expect(created.status()).toBe(201);

  // An expired confirmation link: the page says so, in French, and sends a new one.
  await page.goto('/connexion?confirmation=adresse&error=TOKEN_EXPIRED');
  await expect(page.getByRole('heading', { level: 1, name: 'Ce lien ne permet plus de confirmer l’adresse' })).toBeVisible();
  await expect(page.getByText(/a expiré : il n’est valable que 24 heures/u)).toBeVisible();
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByRole('button', { name: 'Recevoir un nouveau lien' }).click();
  await expect(page.getByRole('status')).toContainText('un nouveau lien vient d’y être envoyé');
  await expectNoAxeViolation(page);

  // An expired change-of-address link: the page says so, and where to ask for a new one.
  await page.goto('/connexion?confirmation=changement&error=TOKEN_EXPIRED');
  await expect(page.getByRole('heading', { level: 1, name: 'Ce lien ne permet pas de changer l’adresse e-mail' })).toBeVisible();
  await expect(page).toHaveTitle('Lien de changement d’adresse inutilisable — Quartier Vivant');
  await expect(page.getByRole('note')).toHaveText('Ce lien a expiré : il n’est valable que 24 heures après son envoi.');
  await expect(page.getByRole('link', { name: 'Se connecter' })).toHaveAttribute('href', '/connexion?retour=/profile');
  await expectNoAxeViolation(page);

  // Sign-in: both fields are required.
  await page.goto('/connexion');
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page.getByText("L’adresse e-mail est obligatoire.")).toBeVisible();
  await expect(page.getByText('Le mot de passe est obligatoire.')).toBeVisible();
  await expectNoAxeViolation(page);

  // Forgotten password: the address is checked, then the link is sent.
  await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
  await expect(page).toHaveTitle('Mot de passe oublié — Quartier Vivant');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByText("L’adresse e-mail est obligatoire.")).toBeVisible();
  await page.getByLabel('Adresse e-mail').fill('marius@');
  await page.getByRole('button', { name: 'Envoyer le lien' }).click();
  await expect(page.getByText("L’adresse e-mail n’est pas valide.")).toBeVisible();
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
  await expect(page).toHaveURL(/\/connexion$/u);

  // The same link, used: the server's French words and the way to a new one, right there.
  await page.goto((await lienRecu(email, 'reset-password')).replace(/^https?:\/\/[^/]+/u, testInfo.project.use.baseURL!));
  await expect(page).toHaveURL(/\/connexion\/nouveau-mot-de-passe\?error=INVALID_TOKEN$/u);
  await expect(page.getByRole('alert')).toContainText('Ce lien n’est plus valable : il a déjà servi ou a expiré.');
  await expect(page.getByLabel(/^Nouveau mot de passe/u)).toHaveCount(0);
  await expectNoAxeViolation(page);
  await page.getByRole('link', { name: 'Demander un nouveau lien' }).click();
  await expect(page).toHaveURL(/\/connexion\/mot-de-passe-oublie$/u);
  await page.goto('/connexion');

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
  // Particles stay lower-case inside the name (capitaliser, src/domain/compte.ts).
  await expect(nom).toHaveValue('De la Tour');
  await nom.press('End');
  await nom.press('Backspace');
  await expect(infos.getByRole('status')).toHaveText('');
  await expectNoAxeViolation(page);
});

test('the admin page shows which addresses are confirmed and why a role is refused', { tag: '@bureau' }, async ({ page, request }, testInfo) => {
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
  await expect(page.getByRole('alert')).toContainText(`L’adresse ${intrus} n’est pas confirmée : la personne doit d’abord cliquer le lien reçu par e-mail`);
  await expect(row.getByRole('combobox')).toHaveValue('habitant');
  await page.getByLabel('Rechercher').fill(admin);
  await expect(page.getByRole('row').filter({ hasText: admin }).getByText('Confirmée', { exact: true })).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'utilisateurs');
});
