import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { request as nouveauClient, type Page, type TestInfo } from '@playwright/test';
import { expect } from './fixtures.js';

/** What the managers' browser journeys share: an account made manager, signing in, the e-mails. */

export const PASSWORD = 'la sainte victoire au loin';

/** A resident's phone, for the journeys where the town hall (at 1280 px) and a resident act together. */
export const TELEPHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true } as const;

let comptes = 0;

/**
 * A manager (or admin) account: signed up through the API, role set with the CLI (as the README says). `nom`: its
 * first and last names (« Camille Mairie » unless told), as colleagues see them.
 */
export async function manager(testInfo: TestInfo, role: 'manager' | 'admin' = 'manager', nom = { prenom: 'Camille', nom: 'Mairie' }): Promise<string> {
  const email = `${role === 'admin' ? 'admin' : 'gestion'}.${testInfo.project.name}.${Date.now()}.${++comptes}@example.org`;
  // A client of its own: the sign-up leaves a session cookie, and a later write from the same client would carry it
  // without the site's origin (refused, ORIGIN_REFUSED), e.g. a second account made in the same test.
  const inscription = await nouveauClient.newContext({ baseURL: testInfo.project.use.baseURL });
  const res = await inscription.post('/app/api/user/inscription', {
    data: { ...nom, birthday: '1985-02-02', residence: 'Mairie annexe', rue: 'Rue Charloun-Rieu', email, password: PASSWORD },
  });
  expect(res.status(), await res.text()).toBe(201);
  await inscription.dispose();
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
