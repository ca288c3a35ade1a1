import { AxeBuilder } from '@axe-core/playwright';
import { expect, test, type Page, type TestInfo } from '@playwright/test';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A numéro of its own for each test and viewport (the server's database lives for the whole run). */
function numero(testInfo: TestInfo, suffix: string): string {
  const w = testInfo.project.name.includes('375') ? 'm' : 'd';
  return `013${w}${suffix}${Date.now().toString(36)}`.slice(0, 32);
}

async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: `e2e/screenshots/${name}-${testInfo.project.name}.png`, fullPage: true });
}

async function expectNoAxeViolation(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

async function fillRequiredAndSubmit(page: Page, num: string) {
  await page.getByLabel('Numéro unique').fill(` ${num.toUpperCase().replace(/^013/u, '013 ')} `);
  await page.getByLabel('Prénom').fill('Hélène');
  await page.getByLabel('Nom', { exact: true }).fill('Martin');
  await page.getByLabel('Adresse e-mail').fill('helene.martin@example.org');
  await page.getByLabel('Motivations').fill('Notre logement est devenu trop petit depuis la naissance de notre deuxième enfant.');
  await page.getByRole('button', { name: 'Enregistrer ma demande' }).click();
}

test('a resident submits a request, keeps the link, looks it up and sends documents', async ({ page }, testInfo) => {
  const num = numero(testInfo, 'a');
  await page.goto('/logement');
  await expect(page).toHaveTitle('Logement social — Quartier Vivant');
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'logement');
  await page.getByRole('link', { name: 'Soumettre ma demande' }).click();

  await expect(page).toHaveTitle('Nouvelle demande de logement — Quartier Vivant');
  // The form's defaults (SPEC §3).
  await expect(page.getByLabel('Situation familiale')).toHaveValue('celibataire');
  await expect(page.getByLabel('Logement actuel', { exact: true })).toHaveValue('sans domicile fixe');
  await expect(page.getByLabel('Bailleur actuel')).toHaveValue('pah');
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'nouvelle-demande');

  // Required fields are refused inline before any call.
  await page.getByRole('button', { name: 'Enregistrer ma demande' }).click();
  await expect(page.getByText('Le prénom est obligatoire.')).toBeVisible();
  await expect(page.getByText('Les motivations sont obligatoires.')).toBeVisible();
  await expect(page.getByRole('alert').filter({ hasText: 'champs sont à corriger' })).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'nouvelle-demande-erreurs');

  // Address suggestions (the national API is unreachable in tests: the district's street list answers).
  await page.getByRole('combobox', { name: 'Adresse' }).fill('12 av marcel');
  await page.getByRole('option', { name: '12 Avenue Marcel-Pagnol 13090 Aix-en-Provence' }).click();
  await expect(page.getByRole('combobox', { name: 'Adresse' })).toHaveValue('12 Avenue Marcel-Pagnol');
  await expect(page.getByLabel('Code postal')).toHaveValue('13090');
  await expect(page.getByLabel('Ville', { exact: true })).toHaveValue('Aix-en-Provence');
  await page.getByRole('checkbox', { name: 'Jas de Bouffan' }).check();

  await fillRequiredAndSubmit(page, num);
  await expect(page.getByText('Formulaire enregistré !')).toBeVisible();
  const link = await page.getByLabel('Lien privé de la demande').inputValue();
  expect(link).toMatch(new RegExp(`/logement/${num}#cle=[A-Za-z0-9_-]{43}$`, 'u'));
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'demande-enregistree');
  // The banner goes after 5 s; the link stays.
  await expect(page.getByText('Formulaire enregistré !')).toBeHidden({ timeout: 8000 });
  await expect(page.getByLabel('Lien privé de la demande')).toBeVisible();

  // Look it up from /logement: the key kept on this device gives the full view.
  await page.goto('/logement');
  await page.getByLabel('Numéro unique de la demande').fill(num.toUpperCase());
  await page.getByRole('button', { name: 'Voir ma demande' }).click();
  await expect(page).toHaveURL(new RegExp(`/logement/${num}$`, 'u'));
  await expect(page.getByText('Étape 1 sur 6 : En attente des documents')).toBeVisible();
  await expect(page.getByText('helene.martin@example.org')).toBeVisible();
  await expect(page.getByText('12 Avenue Marcel-Pagnol')).toBeVisible();

  // A PDF in one block and a PNG in another, sent together.
  await page.locator('section', { hasText: 'Livret de famille' }).getByRole('button', { name: 'Ajouter des fichiers' }).click();
  await page.locator('input[type=file]').first().setInputFiles({ name: 'livret.pdf', mimeType: 'application/pdf', buffer: PDF });
  const identity = page.locator('section', { hasText: "Pièce d'identité" });
  await identity.locator('input[type=file]').setInputFiles({ name: 'carte-identite.png', mimeType: 'image/png', buffer: PNG });
  // A wrong type is refused before sending.
  await identity.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await expect(identity.getByText("« notes.txt » n'est pas accepté")).toBeVisible();
  // A file chosen by mistake is removed before sending.
  await identity.locator('input[type=file]').setInputFiles({ name: 'erreur.pdf', mimeType: 'application/pdf', buffer: PDF });
  await expect(identity.getByText(/^erreur\.pdf/u)).toBeVisible();
  await identity.getByRole('button', { name: 'Retirer erreur.pdf' }).click();
  await expect(identity.getByText(/^erreur\.pdf/u)).toHaveCount(0);
  await expect(page.getByText('À envoyer :')).toHaveCount(2);
  await page.getByRole('button', { name: 'Envoyer les 2 fichiers' }).click();
  await expect(page.getByRole('status').getByText('Pièces jointes téléversées avec succès !')).toBeVisible();
  await expect(page.locator('section', { hasText: 'Livret de famille' }).getByText('livret.pdf')).toBeVisible();
  await expect(identity.getByText('carte-identite.png')).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'demande-complete');

  // Documents show as an image or a PDF.
  await identity.getByRole('button', { name: 'Voir carte-identite.png' }).click();
  await expect(page.getByRole('dialog').getByRole('img', { name: 'carte-identite.png' })).toBeVisible();
  await page.getByRole('dialog').getByRole('button', { name: 'Fermer', exact: true }).click();

  // After a reload the documents are still listed (they come from the server).
  await page.reload();
  await expect(page.locator('section', { hasText: 'Livret de famille' }).getByText('livret.pdf')).toBeVisible();
});

test('the private link opens the full view on another device, and hides its key', async ({ page, browser }, testInfo) => {
  const num = numero(testInfo, 'b');
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, num);
  const link = await page.getByLabel('Lien privé de la demande').inputValue();

  const other = await browser.newContext();
  const phone = await other.newPage();
  await phone.goto(link.replace(/^https?:\/\/[^/]+/u, testInfo.project.use.baseURL!));
  await expect(phone.getByText('helene.martin@example.org')).toBeVisible();
  expect(phone.url()).not.toContain('#cle=');
  await other.close();
});

test('a second request with the same numéro is stopped with the duplicate message', async ({ page }, testInfo) => {
  const num = numero(testInfo, 'c');
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, num);
  await expect(page.getByText('Formulaire enregistré !')).toBeVisible();

  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, num);
  await expect(page.getByRole('alert').filter({ hasText: 'Une demande existe déjà pour ce numéro unique !' })).toBeVisible();
  await expect(page.getByText('Formulaire enregistré !')).toHaveCount(0);
  await shot(page, testInfo, 'nouvelle-demande-doublon');
});

test('someone without the link sees the status only', async ({ page, browser }, testInfo) => {
  const num = numero(testInfo, 'd');
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, num);
  await expect(page.getByText('Formulaire enregistré !')).toBeVisible();

  const fresh = await browser.newContext();
  const visitor = await fresh.newPage();
  await visitor.goto('/logement');
  await visitor.getByLabel('Numéro unique de la demande').fill(num);
  await visitor.getByRole('button', { name: 'Voir ma demande' }).click();
  await expect(visitor.getByText('Étape 1 sur 6 : En attente des documents')).toBeVisible();
  await expect(visitor.getByText('Seul le statut de la demande est visible ici')).toBeVisible();
  await expect(visitor.getByText('helene.martin@example.org')).toHaveCount(0);
  await expect(visitor.getByRole('button', { name: 'Ajouter des fichiers' })).toHaveCount(0);
  await expectNoAxeViolation(visitor);
  await shot(visitor, testInfo, 'demande-statut-seul');
  await fresh.close();
});

test('an unknown numéro, an invalid one and an unknown page get their French messages', async ({ page }, testInfo) => {
  await page.goto('/logement/013inconnu000');
  await expect(page.getByText("Il n'existe pas de demande de logement pour ce numéro unique")).toBeVisible();
  await shot(page, testInfo, 'demande-inconnue');
  await page.goto('/logement');
  await page.getByRole('button', { name: 'Voir ma demande' }).click();
  await expect(page.getByText('Saisissez votre numéro unique.')).toBeVisible();
  await page.goto('/une/page/inexistante');
  await expect(page.getByRole('heading', { name: 'Page introuvable' })).toBeVisible();
  await expect(page).toHaveTitle('Page introuvable — Quartier Vivant');
  await expectNoAxeViolation(page);
  await shot(page, testInfo, '404');
});

test('the other services say honestly that they are coming', async ({ page }, testInfo) => {
  for (const [url, title] of [
    ['/securite', 'Sécurité'],
    ['/technique', 'Signalements techniques'],
    ['/technique/nouveau', 'Nouveau signalement technique'],
    ['/technique/list', 'Tous les signalements techniques'],
  ] as const) {
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByText(/bientôt disponible/u).first()).toBeVisible();
    await expectNoAxeViolation(page);
  }
  await shot(page, testInfo, 'technique-liste');
});
