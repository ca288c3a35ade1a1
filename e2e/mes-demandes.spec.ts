import { request as nouveauClient } from '@playwright/test';
import { expect, test } from './fixtures.js';
import { expectNoAxeViolation } from './axe.js';
import { manager, PASSWORD, signIn } from './gestion-aides.js';

test('« Mes demandes » on a phone: the request the town hall awaits corrections for says so', { tag: '@habitant' }, async ({ page }, testInfo) => {
  const baseURL = testInfo.project.use.baseURL!;
  const origine = { origin: new URL(baseURL).origin };
  const tag = `m${Date.now().toString(36)}`;
  // A resident with an account, whose two requests are made signed in (so they are « Mes demandes »).
  const email = `habitant.${tag}@example.org`;
  const habitant = await nouveauClient.newContext({ baseURL });
  const inscription = await habitant.post('/app/api/user/inscription', {
    data: { nom: 'Garcia', prenom: 'Lucas', birthday: '1990-03-03', residence: 'Les Lauriers', rue: 'Avenue Marcel-Pagnol', email, password: PASSWORD },
  });
  expect(inscription.status(), await inscription.text()).toBe(201);
  const numeros = [`018${tag}1`, `018${tag}2`];
  for (const numeroUnique of numeros) {
    const res = await habitant.post('/app/api/logement', { headers: origine, data: { numeroUnique, prenom: 'Lucas', nom: 'Garcia', email, motivations: 'x' } });
    expect(res.status(), await res.text()).toBe(201);
  }
  await habitant.dispose();

  // The town hall asks for corrections on the first one.
  const mairie = await nouveauClient.newContext({ baseURL });
  const connexion = await mairie.post('/app/api/auth/sign-in/email', { headers: origine, data: { email: await manager(testInfo), password: PASSWORD } });
  expect(connexion.status(), await connexion.text()).toBe(200);
  const correction = await mairie.post(`/app/api/logement/${numeros[0]}/corrections`, { headers: origine, data: { motif: 'Il manque le dernier avis d’imposition.' } });
  expect(correction.status(), await correction.text()).toBe(201);
  await mairie.dispose();

  await signIn(page, email);
  const mes = page.getByRole('region', { name: 'Mes demandes' });
  const premiere = mes.getByRole('listitem').filter({ hasText: numeros[0]! });
  await expect(premiere.getByText('Corrections demandées')).toBeVisible();
  await expect(mes.getByRole('listitem').filter({ hasText: numeros[1]! }).getByText(/Corrections/u)).toHaveCount(0);
  // Fits the phone: nothing wider than the screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolation(page);
  await page.screenshot({ path: `e2e/screenshots/mes-demandes-${testInfo.project.name}.png`, fullPage: true });
  // It opens the request, where the reason is.
  await premiere.getByRole('link').first().click();
  await expect(page.getByRole('region', { name: 'La mairie annexe vous demande des corrections' }).getByText('Il manque le dernier avis d’imposition.')).toBeVisible();
});
