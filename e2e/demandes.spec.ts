import fs from 'node:fs';
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';

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


async function fillRequiredAndSubmit(page: Page, num: string) {
  await page.getByLabel('Numéro unique').fill(` ${num.toUpperCase().replace(/^013/u, '013 ')} `);
  await page.getByLabel('Prénom').fill('Hélène');
  await page.getByLabel('Nom', { exact: true }).fill('Martin');
  await page.getByLabel('Adresse e-mail').fill('helene.martin@example.org');
  await page.getByLabel('Motivations').fill('Notre logement est devenu trop petit depuis la naissance de notre deuxième enfant.');
  await page.getByRole('button', { name: 'Enregistrer ma demande' }).click();
}

test('a resident submits a request, keeps the link, looks it up and sends documents', { tag: '@habitant' }, async ({ page }, testInfo) => {
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
  const livret = page.locator('section', { hasText: 'Livret de famille' }).filter({ has: page.getByRole('button', { name: 'Ajouter des fichiers' }) });
  await livret.locator('input[type=file]').setInputFiles({ name: 'livret.pdf', mimeType: 'application/pdf', buffer: PDF });
  const identity = page.locator('section', { hasText: "Pièce d’identité" });
  await identity.locator('input[type=file]').setInputFiles({ name: 'carte-identite.png', mimeType: 'image/png', buffer: PNG });
  // A wrong type is refused before sending.
  await identity.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
  await expect(identity.getByText("« notes.txt » n’est pas accepté")).toBeVisible();
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

  // « Tout télécharger » works with the private key alone (no account): the zip holds both files.
  const telechargement = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Tout télécharger (zip)' }).click();
  const zip = await telechargement;
  expect(zip.suggestedFilename()).toMatch(/^demande-.+-documents\.zip$/u);
  const contenu = await fs.promises.readFile((await zip.path())!);
  expect(contenu.subarray(0, 2).toString('latin1')).toBe('PK');
  expect(contenu.toString('latin1')).toContain('carte-identite.png');

  // After a reload the documents are still listed (they come from the server).
  await page.reload();
  await expect(page.locator('section', { hasText: 'Livret de famille' }).getByText('livret.pdf')).toBeVisible();
});

test('the private link opens the full view on another device, and hides its key', { tag: '@habitant' }, async ({ page, browser }, testInfo) => {
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

test('a second request with the same numéro is stopped with the duplicate message', { tag: '@habitant' }, async ({ page }, testInfo) => {
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

test('someone without the link sees the status only', { tag: '@habitant' }, async ({ page, browser }, testInfo) => {
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

test('an unknown numéro, an invalid one and an unknown page get their French messages', { tag: '@habitant' }, async ({ page }, testInfo) => {
  await page.goto('/logement/013inconnu000');
  await expect(page.getByText("Il n’existe pas de demande de logement pour ce numéro unique")).toBeVisible();
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

test('the technical reports are open, and their managers’ list asks a visitor to sign in', { tag: '@habitant' }, async ({ page }, testInfo) => {
  for (const [url, title] of [
    ['/technique', 'Signalements techniques'],
    ['/technique/nouveau', 'Nouveau signalement technique'],
  ] as const) {
    await page.goto(url);
    await expect(page.getByRole('heading', { level: 1, name: title })).toBeVisible();
    await expect(page.getByRole('main').getByText(/bientôt/u)).toHaveCount(0);
  }
  // The managers' list is built (issue 14 point 4): signed out, the sign-in page, which will lead back to it.
  await page.goto('/technique/list');
  await expect(page).toHaveURL(/\/connexion\?retour=\/technique\/list$/u);
  await expect(page.getByRole('heading', { level: 1, name: 'Connexion' })).toBeVisible();
  await expect(page.getByRole('main').getByText(/bientôt/u)).toHaveCount(0);
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'technique-liste');
});

/** The private keys this tab keeps, in each storage (`quartier-vivant.cles`, by numéro). */
async function clesStockees(page: Page): Promise<{ session: string[]; local: string[] }> {
  return page.evaluate(() => {
    const read = (s: Storage) => Object.keys(JSON.parse(s.getItem('quartier-vivant.cles') ?? '{}') as Record<string, string>);
    return { session: read(sessionStorage), local: read(localStorage) };
  });
}

test('the private key stays in this tab only, unless the resident asks this device to remember it', { tag: '@habitant' }, async ({ page, context }, testInfo) => {
  // Unticked (the default): the key is kept for this tab's session only.
  const num = numero(testInfo, 'e');
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, num);
  const seSouvenir = page.getByRole('checkbox', { name: 'Se souvenir de cet appareil' });
  await expect(seSouvenir).not.toBeChecked();
  await expect(page.getByText('Sur un ordinateur partagé (médiathèque, mairie, cybercafé), ne cochez pas')).toBeVisible();
  expect(await clesStockees(page)).toEqual({ session: [num], local: [] });

  // Same tab: /logement lists it and the full view opens without the link.
  await page.goto('/logement');
  await expect(page.getByRole('link', { name: `Demande n° ${num}` })).toBeVisible();
  await page.goto(`/logement/${num}`);
  await expect(page.getByText('helene.martin@example.org')).toBeVisible();

  // Another tab (another browser session for sessionStorage): nothing is kept there.
  const autreOnglet = await context.newPage();
  await autreOnglet.goto('/logement');
  await expect(autreOnglet.getByText('Suivre ma demande')).toBeVisible();
  await expect(autreOnglet.getByText('Demandes enregistrées sur cet appareil')).toHaveCount(0);
  await autreOnglet.goto(`/logement/${num}`);
  await expect(autreOnglet.getByText('Seul le statut de la demande est visible ici')).toBeVisible();
  await expect(autreOnglet.getByText('helene.martin@example.org')).toHaveCount(0);
  expect(await clesStockees(autreOnglet)).toEqual({ session: [], local: [] });

  // Ticked: the key is remembered in this browser, and another tab finds it.
  const retenu = numero(testInfo, 'f');
  await autreOnglet.goto('/logement/nouveau');
  await fillRequiredAndSubmit(autreOnglet, retenu);
  await autreOnglet.getByRole('checkbox', { name: 'Se souvenir de cet appareil' }).check();
  expect(await clesStockees(autreOnglet)).toEqual({ session: [], local: [retenu] });
  await expectNoAxeViolation(autreOnglet);
  await shot(autreOnglet, testInfo, 'demande-enregistree-se-souvenir');
  await autreOnglet.close();

  const troisieme = await context.newPage();
  await troisieme.goto('/logement');
  const liste = troisieme.getByRole('region', { name: 'Demandes enregistrées sur cet appareil' });
  await expect(liste.getByRole('link', { name: `Demande n° ${retenu}` })).toBeVisible();
  await expect(liste).toContainText('(mémorisée sur cet appareil)');
  await expect(liste.getByRole('link', { name: `Demande n° ${num}` })).toHaveCount(0);
  await troisieme.goto(`/logement/${retenu}`);
  await expect(troisieme.getByText('helene.martin@example.org')).toBeVisible();
  await expect(troisieme.getByRole('checkbox', { name: 'Se souvenir de cet appareil' })).toBeChecked();

  // « Oublier cet appareil » on /logement, after a confirmation: the list is empty, the full view asks for the link.
  await troisieme.goto('/logement');
  await expect(liste.getByRole('button', { name: 'Oublier cet appareil' })).toBeVisible();
  await expectNoAxeViolation(troisieme);
  await shot(troisieme, testInfo, 'logement-sur-cet-appareil');
  await liste.getByRole('button', { name: 'Oublier cet appareil' }).click();
  const dialog = troisieme.getByRole('dialog', { name: 'Oublier cet appareil ?' });
  await expect(dialog).toBeVisible();
  await expectNoAxeViolation(troisieme);
  await shot(troisieme, testInfo, 'oublier-cet-appareil');
  // Cancelling keeps everything.
  await dialog.getByRole('button', { name: 'Annuler' }).click();
  await expect(liste.getByRole('link', { name: `Demande n° ${retenu}` })).toBeVisible();
  await liste.getByRole('button', { name: 'Oublier cet appareil' }).click();
  await dialog.getByRole('button', { name: 'Oublier cet appareil' }).click();
  await expect(troisieme.getByText('Demandes enregistrées sur cet appareil')).toHaveCount(0);
  expect(await clesStockees(troisieme)).toEqual({ session: [], local: [] });
  await troisieme.goto(`/logement/${retenu}`);
  await expect(troisieme.getByText('Seul le statut de la demande est visible ici')).toBeVisible();
  await expect(troisieme.getByText('helene.martin@example.org')).toHaveCount(0);
});

test('the link opened on a shared computer offers to remember it, and the request page forgets the device', { tag: '@habitant' }, async ({ page, browser }, testInfo) => {
  const num = numero(testInfo, 'g');
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, num);
  const link = (await page.getByLabel('Lien privé de la demande').inputValue()).replace(/^https?:\/\/[^/]+/u, testInfo.project.use.baseURL!);

  const partage = await browser.newContext();
  const poste = await partage.newPage();
  await poste.goto(link);
  await expect(poste.getByText('helene.martin@example.org')).toBeVisible();
  const seSouvenir = poste.getByRole('checkbox', { name: 'Se souvenir de cet appareil' });
  await expect(seSouvenir).not.toBeChecked();
  expect(await clesStockees(poste)).toEqual({ session: [num], local: [] });
  await expectNoAxeViolation(poste);
  await shot(poste, testInfo, 'demande-cet-appareil');
  await seSouvenir.check();
  expect(await clesStockees(poste)).toEqual({ session: [], local: [num] });
  await seSouvenir.uncheck();
  expect(await clesStockees(poste)).toEqual({ session: [num], local: [] });

  await poste.getByRole('button', { name: 'Oublier cet appareil' }).click();
  await poste.getByRole('dialog', { name: 'Oublier cet appareil ?' }).getByRole('button', { name: 'Oublier cet appareil' }).click();
  await expect(poste.getByText('Seul le statut de la demande est visible ici')).toBeVisible();
  await expect(poste.getByText('helene.martin@example.org')).toHaveCount(0);
  await expect(poste.getByRole('button', { name: 'Oublier cet appareil' })).toHaveCount(0);
  expect(await clesStockees(poste)).toEqual({ session: [], local: [] });
  await poste.reload();
  await expect(poste.getByText('Seul le statut de la demande est visible ici')).toBeVisible();
  await partage.close();
});

test('a key kept before this version (localStorage) still opens the request until it is forgotten', { tag: '@habitant' }, async ({ page, request }, testInfo) => {
  const num = numero(testInfo, 'h');
  const res = await request.post('/app/api/logement', { data: { numeroUnique: num, prenom: 'Hélène', email: 'helene.martin@example.org', motivations: 'x' } });
  expect(res.status()).toBe(201);
  const { accessKey } = (await res.json()).data as { accessKey: string };
  await page.goto('/');
  await page.evaluate(([n, k]) => localStorage.setItem('quartier-vivant.cles', JSON.stringify({ [n!]: k })), [num, accessKey]);
  await page.goto('/logement');
  await expect(page.getByRole('region', { name: 'Demandes enregistrées sur cet appareil' })).toContainText('(mémorisée sur cet appareil)');
  await page.goto(`/logement/${num}`);
  await expect(page.getByText('helene.martin@example.org')).toBeVisible();
});

test('signing out leaves no key and no trace in the browser storage', { tag: '@habitant' }, async ({ page, request }, testInfo) => {
  const PASSWORD = 'la sainte victoire au loin';
  const email = `cles.${testInfo.project.name}.${Date.now()}@example.org`;
  const inscrit = await request.post('/app/api/user/inscription', {
    data: { nom: 'Martin', prenom: 'Hélène', birthday: '1985-02-02', residence: 'Les Lauriers', rue: 'Rue Charloun-Rieu', email, password: PASSWORD },
  });
  expect(inscrit.status()).toBe(201);

  // One key for this tab, one remembered.
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, numero(testInfo, 'i'));
  await expect(page.getByRole('checkbox', { name: 'Se souvenir de cet appareil' })).toBeVisible();
  await page.goto('/logement/nouveau');
  await fillRequiredAndSubmit(page, numero(testInfo, 'j'));
  await page.getByRole('checkbox', { name: 'Se souvenir de cet appareil' }).check();
  const avant = await clesStockees(page);
  expect([avant.session.length, avant.local.length]).toEqual([1, 1]);

  await page.goto('/connexion');
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel(/^Mot de passe/u).fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
  await page.getByRole('main').getByRole('link', { name: 'Déconnexion' }).click();
  await expect(page).toHaveURL(/\/$/u);
  const stockage = await page.evaluate(() => ({ local: Object.keys(localStorage), session: Object.keys(sessionStorage) }));
  expect(stockage).toEqual({ local: [], session: [] });
  await page.goto('/logement');
  await expect(page.getByText('Demandes enregistrées sur cet appareil')).toHaveCount(0);
});
