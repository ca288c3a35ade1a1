import fs from 'node:fs/promises';
import path from 'node:path';
import type { TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

/** A numéro and an address of their own for each test and viewport (the server's database lives for the whole run). */
function unique(testInfo: TestInfo, suffix: string): { numero: string; email: string } {
  const w = testInfo.project.name.includes('375') ? 'm' : 'd';
  const tag = `${w}${suffix}${Date.now().toString(36)}`;
  return { numero: `013${tag}`.slice(0, 32), email: `effacement.${tag}@example.org` };
}


/** The last link e-mailed to `to` containing `contient` (DATA_DIR/mail: no SMTP in tests), quoted-printable decoded. */
async function lienRecu(to: string, contient: string, sauf?: string): Promise<string> {
  const dir = path.join(process.env.E2E_DATA_DIR!, 'mail');
  for (let attempt = 0; attempt < 50; attempt++) {
    const files = (await fs.readdir(dir).catch(() => [])).filter((f) => f.endsWith('.eml')).sort().reverse();
    for (const file of files) {
      const text = (await fs.readFile(path.join(dir, file), 'utf8')).replace(/=\r?\n/gu, '').replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      if (!text.includes(`To: ${to}`)) continue;
      const link = text.match(/https?:\/\/\S+/gu)?.find((url) => url.includes(contient) && url !== sauf);
      if (link) return link;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no e-mail to ${to} with a link containing ${contient}`);
}

test('a resident deletes a document, then withdraws the request; the device forgets its key', { tag: '@habitant' }, async ({ page, request }, testInfo) => {
  const { numero, email } = unique(testInfo, 'r');
  const created = await request.post('/app/api/logement', { data: { numeroUnique: numero, prenom: 'Inès', nom: 'Retrait', email, motivations: 'Je déménage.' } });
  expect(created.status()).toBe(201);
  const { accessKey, privateLink } = (await created.json()).data as { accessKey: string; privateLink: string };
  const upload = await request.post(`/app/api/logement/upload-files/${numero}`, {
    headers: { 'x-access-key': accessKey },
    multipart: { livret: { name: 'livret.pdf', mimeType: 'application/pdf', buffer: PDF } },
  });
  expect(upload.status()).toBe(201);

  await page.goto(new URL(privateLink).pathname + new URL(privateLink).hash);
  await expect(page.getByRole('heading', { name: 'Vos documents' })).toBeVisible();

  // Deleting a document: confirmed, then announced; the focus goes to its block's title.
  await page.getByRole('button', { name: 'Supprimer livret.pdf' }).click();
  const dialogue = page.getByRole('dialog', { name: 'Supprimer ce document ?' });
  await expect(dialogue).toBeVisible();
  await expectNoAxeViolation(page);
  await dialogue.getByRole('button', { name: 'Supprimer' }).click();
  await expect(page.getByText('« livret.pdf » a été supprimé.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Livret de famille' })).toBeFocused();
  await expect(page.getByRole('button', { name: 'Supprimer livret.pdf' })).toHaveCount(0);

  // Withdrawal: the dialog says what is erased.
  await page.getByRole('button', { name: 'Retirer ma demande' }).click();
  const retrait = page.getByRole('dialog', { name: 'Retirer votre demande ?' });
  await expect(retrait.getByText('tous vos documents envoyés ;')).toBeVisible();
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/retrait-dialogue-${testInfo.project.name}.png`, fullPage: true });
  await retrait.getByRole('button', { name: 'Retirer définitivement' }).click();
  const fait = page.getByRole('status').filter({ hasText: 'Votre demande a été retirée' });
  await expect(fait).toBeVisible();
  await expect(fait).toBeFocused();
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/retrait-fait-${testInfo.project.name}.png`, fullPage: true });
  const cles = await page.evaluate(() => [sessionStorage.getItem('quartier-vivant.cles'), localStorage.getItem('quartier-vivant.cles')].join(''));
  expect(cles).not.toContain(numero);

  // The numéro answers like any unknown one.
  await page.goto(`/logement/${numero}`);
  await expect(page.getByRole('alert').filter({ hasText: "Il n’existe pas de demande de logement pour ce numéro unique" })).toBeVisible();
});

test('a resident who lost the private link gets a new one by e-mail; the old one stops working', { tag: '@habitant' }, async ({ page, request, browser }, testInfo) => {
  const { numero, email } = unique(testInfo, 'l');
  const created = await request.post('/app/api/logement', { data: { numeroUnique: numero, prenom: 'Louis', nom: 'Perdu', email, motivations: 'Logement trop petit.' } });
  expect(created.status()).toBe(201);
  const { privateLink } = (await created.json()).data as { privateLink: string };

  await page.goto(`/logement/${numero}`);
  const renvoi = page.getByRole('region', { name: 'Vous avez perdu votre lien privé ?' });
  await expect(renvoi).toBeVisible();
  // Checked before sending.
  await renvoi.getByRole('button', { name: 'Recevoir un nouveau lien' }).click();
  await expect(renvoi.getByText("Saisissez l’adresse e-mail donnée lors du dépôt de la demande.", { exact: true })).toBeVisible();
  await renvoi.getByLabel('Adresse e-mail de la demande').fill(` ${email.toUpperCase()} `);
  await renvoi.getByRole('button', { name: 'Recevoir un nouveau lien' }).click();
  await expect(renvoi.getByRole('status')).toContainText('Si cette adresse est celle de la demande');
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/renvoi-lien-${testInfo.project.name}.png`, fullPage: true });

  const nouveau = await lienRecu(email, `/logement/${numero}#cle=`, privateLink);
  expect(nouveau).not.toBe(privateLink);
  // Opened from the e-mail: a new page load (the status page is at the same address).
  await page.goto('about:blank');
  await page.goto(new URL(nouveau).pathname + new URL(nouveau).hash);
  await expect(page.getByRole('heading', { name: 'Vos documents' })).toBeVisible();

  // The old link, on another device, shows only the status.
  const ailleurs = await browser.newPage();
  await ailleurs.goto(new URL(privateLink).pathname + new URL(privateLink).hash);
  await expect(ailleurs.getByRole('region', { name: 'Vous avez perdu votre lien privé ?' })).toBeVisible();
  await expect(ailleurs.getByRole('heading', { name: 'Vos documents' })).toHaveCount(0);
  await ailleurs.close();
});
