import { request as nouveauClient } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';
import { mailsPour, manager, signIn, TELEPHONE } from './gestion-aides.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

test('a correction round trip: the manager asks, the resident sees it live, replaces the document and answers, the manager checks and closes', { tag: '@bureau' }, async ({
  page,
  browser,
}, testInfo) => {
  const tag = `d${Date.now().toString(36)}`;
  const numeroUnique = `015c${tag}`;
  const email = `corr.${tag}@example.org`;
  const client = await nouveauClient.newContext({ baseURL: testInfo.project.use.baseURL });
  const res = await client.post('/app/api/logement', { data: { numeroUnique, prenom: 'Inès', nom: 'Benali', email, motivations: 'x' } });
  expect(res.status()).toBe(201);
  const { privateLink, accessKey } = (await res.json()).data as { privateLink: string; accessKey: string };
  const envoi = await client.post(`/app/api/logement/upload-files/${numeroUnique}`, {
    headers: { 'x-access-key': accessKey },
    multipart: {
      identity: { name: 'cni.pdf', mimeType: 'application/pdf', buffer: PDF },
      tax: { name: 'avis-2023.pdf', mimeType: 'application/pdf', buffer: PDF },
    },
  });
  expect(envoi.status()).toBe(201);
  await client.dispose();

  // The resident's page is open on another device while the town hall works.
  const resident = await (await browser.newContext(TELEPHONE)).newPage();
  await resident.goto(privateLink);
  const checklist = resident.getByRole('region', { name: 'Pièces du dossier' });
  await expect(checklist.locator('[data-bloc=tax]')).toHaveAttribute('data-etat', 'a-verifier');
  await expect(checklist.locator('[data-bloc=salary]')).toHaveAttribute('data-etat', 'manquant');

  await signIn(page, await manager(testInfo));
  await page.goto(`/logement/${numeroUnique}`);
  const corrections = page.getByRole('region', { name: 'Corrections' });
  await expect(corrections.getByText('Aucune correction demandée en cours.')).toBeVisible();
  // The identity card is fine.
  await page.getByRole('button', { name: 'Accepter cni.pdf' }).click();
  await expect(page.getByRole('region', { name: 'Pièces du dossier' }).locator('[data-bloc=identity]')).toHaveAttribute('data-etat', 'accepte');
  await corrections.getByRole('button', { name: 'Demander des corrections' }).click();
  const dialog = page.getByRole('dialog', { name: 'Demander des corrections' });
  // Sent empty: said in French, nothing sent.
  await dialog.getByRole('button', { name: 'Envoyer la demande' }).click();
  await expect(dialog.getByText('Expliquez ce qu’il faut corriger.')).toBeVisible();
  await dialog.getByLabel(/^Ce qu’il faut corriger/u).fill('Il manque votre dernier avis d’imposition et vos bulletins de salaire.');
  await dialog.getByLabel("Avis d’imposition — avis-2023.pdf").check();
  await dialog.getByLabel('Pourquoi remplacer « avis-2023.pdf » ?').fill('C’est l’avis de 2023 : envoyez celui de 2025.');
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/correction-demande-${testInfo.project.name}.png` });
  await dialog.getByRole('button', { name: 'Envoyer la demande' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(corrections.getByText('En attente de la personne')).toBeVisible();

  // The resident sees it without reloading: the reason, the document to replace and why.
  const demandeCorr = resident.getByRole('region', { name: 'La mairie annexe vous demande des corrections' });
  await expect(demandeCorr).toBeVisible();
  await expect(demandeCorr.getByText('Il manque votre dernier avis d’imposition et vos bulletins de salaire.')).toBeVisible();
  await expect(demandeCorr.getByText(/avis-2023\.pdf » : C’est l’avis de 2023 : envoyez celui de 2025\./u)).toBeVisible();
  await expect(checklist.locator('[data-bloc=tax]')).toHaveAttribute('data-etat', 'a-remplacer');
  await expect(checklist.locator('[data-bloc=identity]')).toHaveAttribute('data-etat', 'accepte');
  await expectNoAxeViolation(resident);
  await resident.screenshot({ path: `e2e/screenshots/correction-habitant-${testInfo.project.name}.png`, fullPage: true });
  // And by e-mail.
  const mail = (await mailsPour(email)).find((m) => m.includes('Ce qu’il faut corriger'));
  expect(mail).toContain('C’est l’avis de 2023 : envoyez celui de 2025.');

  // It corrects a field of the request: the form opens filled in, keyboard-reachable, and its save shows at once.
  await resident.getByRole('button', { name: 'Modifier ma demande' }).click();
  const formulaire = resident.getByRole('form', { name: 'Modifier ma demande' });
  await expect(formulaire.getByLabel('Numéro unique')).toHaveValue(numeroUnique);
  await expect(formulaire.getByLabel('Numéro unique')).toHaveAttribute('readonly', '');
  await expect(formulaire.getByLabel(/^Prénom/u)).toHaveValue('Inès');
  await expect(resident.getByRole('heading', { name: 'Modifier ma demande' })).toBeFocused();
  await formulaire.getByLabel(/^Prénom/u).fill('');
  await formulaire.getByRole('button', { name: 'Enregistrer les modifications' }).click();
  await expect(formulaire.getByText('Le prénom est obligatoire.')).toBeVisible();
  await formulaire.getByLabel(/^Prénom/u).fill('Inès');
  await formulaire.getByLabel(/^Salaire brut mensuel/u).fill('1 620,40');
  await expectNoAxeViolation(resident);
  await resident.screenshot({ path: `e2e/screenshots/modification-habitant-${testInfo.project.name}.png`, fullPage: true });
  await formulaire.getByRole('button', { name: 'Enregistrer les modifications' }).click();
  await expect(resident.getByRole('status').filter({ hasText: 'Vos modifications sont enregistrées' })).toBeFocused();
  await expect(resident.getByText(/^1\s620,40\s€$/u)).toBeVisible();

  // It replaces the document, then answers.
  const tax = resident.locator('section', { hasText: "Avis d’imposition" }).filter({ has: resident.getByRole('button', { name: 'Ajouter des fichiers' }) });
  await tax.getByRole('button', { name: 'Supprimer avis-2023.pdf' }).click();
  await resident.getByRole('dialog').getByRole('button', { name: 'Supprimer' }).click();
  await expect(tax.getByText('« avis-2023.pdf » a été supprimé.')).toBeVisible();
  await expect(tax.getByText('avis-2023.pdf', { exact: true })).toHaveCount(0);
  await tax.locator('input[type=file]').setInputFiles({ name: 'avis-2025.pdf', mimeType: 'application/pdf', buffer: PDF });
  await resident.getByRole('button', { name: 'Envoyer le fichier' }).click();
  await expect(tax.getByText('avis-2025.pdf', { exact: true })).toBeVisible();
  await demandeCorr.getByRole('button', { name: 'J’ai fait les corrections' }).click();
  await expect(resident.getByText('Corrections envoyées')).toBeVisible();
  await expect(checklist.locator('[data-bloc=tax]')).toHaveAttribute('data-etat', 'a-verifier');

  // The manager finds it in the list by its state, accepts the new document and closes the request for corrections.
  await page.goto(`/logement/list?correction=faite&q=${numeroUnique}`);
  const ligne = page.getByRole('row').filter({ has: page.getByRole('link', { name: numeroUnique }) });
  await expect(ligne.getByText('Corrections faites')).toBeVisible();
  await expectNoAxeViolation(page);
  await ligne.getByRole('link', { name: numeroUnique }).click();
  await page.getByRole('button', { name: 'Accepter avis-2025.pdf' }).click();
  await expect(page.getByRole('region', { name: 'Pièces du dossier' }).locator('[data-bloc=tax]')).toHaveAttribute('data-etat', 'accepte');
  await corrections.getByRole('button', { name: 'Corrections vérifiées : clôturer' }).click();
  await expect(corrections.getByText('Aucune correction demandée en cours.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Journal des actions' }).getByText(/a indiqué avoir fait les corrections/u)).toBeVisible();
  await expect(page.getByRole('region', { name: 'Journal des actions' }).getByText(/Salaire brut mensuel/u)).toBeVisible();
  await expect(resident.getByText('Corrections envoyées')).toHaveCount(0);
  await resident.context().close();
});

test('messages: the manager writes, the resident reads it live and answers, the list counts what is unread', { tag: '@bureau' }, async ({ page, browser }, testInfo) => {
  const tag = `d${Date.now().toString(36)}`;
  const numeroUnique = `017m${tag}`;
  const email = `msg.${tag}@example.org`;
  const client = await nouveauClient.newContext({ baseURL: testInfo.project.use.baseURL });
  const res = await client.post('/app/api/logement', { data: { numeroUnique, prenom: 'Sami', nom: 'Haddad', email, motivations: 'x' } });
  expect(res.status()).toBe(201);
  const { privateLink } = (await res.json()).data as { privateLink: string };
  await client.dispose();
  const resident = await (await browser.newContext(TELEPHONE)).newPage();
  await resident.goto(privateLink);
  const filHabitant = resident.getByRole('region', { name: 'Messages' });
  await expect(filHabitant.getByText('Aucun message pour le moment.')).toBeVisible();

  await signIn(page, await manager(testInfo));
  await page.goto(`/logement/${numeroUnique}`);
  const fil = page.getByRole('region', { name: 'Messages' });
  await fil.getByLabel('Votre message').fill('Bonjour, pouvez-vous nous appeler au 04 42 00 00 00 ?');
  // A file joined, one refused before sending, one removed again.
  await fil.locator('input[type=file]').setInputFiles([
    { name: 'formulaire.pdf', mimeType: 'application/pdf', buffer: PDF },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') },
  ]);
  await expect(fil.getByRole('alert').getByText(/« notes\.txt » n’est pas accepté/u)).toBeVisible();
  await fil.locator('input[type=file]').setInputFiles({ name: 'brouillon.pdf', mimeType: 'application/pdf', buffer: PDF });
  await fil.getByRole('button', { name: 'Retirer brouillon.pdf' }).click();
  await expect(fil.getByRole('button', { name: 'Joindre des fichiers' })).toBeFocused();
  await fil.getByRole('button', { name: 'Envoyer le message' }).click();
  await expect(fil.getByText('Bonjour, pouvez-vous nous appeler au 04 42 00 00 00 ?')).toBeVisible();
  await expect(fil.getByLabel('Votre message')).toHaveValue('');
  await expect(fil.getByRole('list', { name: 'Fichiers joints' })).toHaveCount(0);

  // Live on the resident's page, and by e-mail.
  await expect(filHabitant.getByText('Bonjour, pouvez-vous nous appeler au 04 42 00 00 00 ?')).toBeVisible();
  await expect(filHabitant.getByText(/^La mairie annexe, le/u)).toBeVisible();
  // The attachment opens on the resident's side, fetched with the private key.
  await filHabitant.getByRole('button', { name: /^formulaire\.pdf/u }).click();
  const apercu = resident.getByRole('dialog', { name: 'formulaire.pdf' });
  await expect(apercu.getByRole('link', { name: 'Télécharger « formulaire.pdf »' })).toBeVisible();
  await apercu.getByRole('button', { name: /Fermer/u }).click();
  await expect.poll(async () => (await mailsPour(email)).some((m) => m.includes('pouvez-vous nous appeler')), { timeout: 10_000 }).toBe(true);
  // The manager is on the list when the answer comes: it counts it, live, until the thread is opened.
  await page.goto(`/logement/list?q=${numeroUnique}`);
  const ligne = page.getByRole('row').filter({ has: page.getByRole('link', { name: numeroUnique }) });
  await expect(ligne).toBeVisible();
  await filHabitant.getByLabel('Votre message').fill('Je vous appelle demain matin.');
  await filHabitant.getByRole('button', { name: 'Envoyer le message' }).click();
  await expect(filHabitant.getByText(/^Vous, le/u).last()).toBeVisible();
  await expectNoAxeViolation(resident);
  await resident.screenshot({ path: `e2e/screenshots/messages-habitant-${testInfo.project.name}.png`, fullPage: true });
  await expect(ligne.getByText('1 message non lu')).toBeVisible();
  await ligne.getByRole('link', { name: numeroUnique }).click();
  await expect(fil.getByText('Je vous appelle demain matin.')).toBeVisible();
  await expect(fil.getByText(/^Le demandeur, le/u)).toBeVisible();
  await expectNoAxeViolation(page);
  await page.goto(`/logement/list?q=${numeroUnique}`);
  await expect(page.getByRole('link', { name: numeroUnique })).toBeVisible();
  await expect(page.getByText('1 message non lu')).toHaveCount(0);
  await resident.context().close();
});
