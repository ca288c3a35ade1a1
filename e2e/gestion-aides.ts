import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { request as nouveauClient, type APIRequestContext, type Page, type TestInfo } from '@playwright/test';
import { expect } from './fixtures.js';

/** What the managers' browser journeys share: an account made manager, signing in, the e-mails, axe. */

export const PASSWORD = 'la sainte victoire au loin';

/** A manager (or admin) account: signed up through the API, role set with the CLI (as the README says). */
export async function manager(request: APIRequestContext, testInfo: TestInfo, role: 'manager' | 'admin' = 'manager'): Promise<string> {
  const email = `${role === 'admin' ? 'admin' : 'gestion'}.${testInfo.project.name}.${Date.now()}@example.org`;
  const res = await request.post('/app/api/user/inscription', {
    data: { nom: 'Mairie', prenom: 'Camille', birthday: '1985-02-02', residence: 'Mairie annexe', rue: 'Rue Charloun-Rieu', email, password: PASSWORD },
  });
  expect(res.status()).toBe(201);
  // Roles go to confirmed addresses only: the link of the e-mail first (in a client of its own, signed in by it).
  const verification = new URL(await lienRecu(email, 'verify-email'));
  const client = await nouveauClient.newContext({ baseURL: testInfo.project.use.baseURL });
  expect((await client.get(verification.pathname + verification.search, { maxRedirects: 0 })).status()).toBeLessThan(400);
  await client.dispose();
  execFileSync(process.execPath, ['dist/server/cli/user.js', 'role', email, role], { env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR } });
  return email;
}

/** The e-mails written for `to` (no SMTP in tests: DATA_DIR/mail), decoded from quoted-printable. */
export async function mailsPour(to: string): Promise<string[]> {
  const dir = path.join(process.env.E2E_DATA_DIR!, 'mail');
  const texts = [];
  for (const file of (await fs.readdir(dir).catch(() => [])).filter((f) => f.endsWith('.eml'))) {
    const text = (await fs.readFile(path.join(dir, file), 'utf8'))
      .replace(/=\r?\n/gu, '')
      .replace(/((?:=[0-9A-F]{2})+)/gu, (hex: string) => Buffer.from(hex.replace(/=/gu, ''), 'hex').toString('utf8'));
    if (text.includes(`To: ${to}`)) texts.push(text);
  }
  return texts;
}

export async function lienRecu(to: string, contient: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const text of await mailsPour(to)) {
      const link = text.match(/https?:\/\/\S+/gu)?.find((url) => url.includes(contient));
      if (link) return link;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no e-mail to ${to} with a link containing ${contient}`);
}

/** The status e-mails written for `to`. */
export async function mailsDeStatut(to: string): Promise<string[]> {
  return (await mailsPour(to)).filter((text) => text.includes('Nouveau statut'));
}

export async function signIn(page: Page, email: string) {
  await page.goto('/connexion');
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByLabel(/^Mot de passe/u).fill(PASSWORD);
  await page.getByRole('button', { name: 'Se connecter' }).click();
  await expect(page).toHaveURL(/\/logement$/u);
}

export async function expectNoAxeViolation(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

