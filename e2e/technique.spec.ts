import type { Page, TestInfo } from '@playwright/test';
import sharp from 'sharp';
import { expectNoAxeViolation } from './axe.js';
import { expect, test } from './fixtures.js';
import { lienRecu, TELEPHONE } from './gestion-aides.js';

/**
 * Technical reports, the residents' side (issue 14): place a problem on the map, report it with a photo, see it in
 * the district's list and on its map, follow it, and the e-mailed links. The map's tiles come from the local tile
 * server (e2e/tuiles.ts, playwright.config.ts): every image the map asks for is on loopback.
 */

async function shot(page: Page, testInfo: TestInfo, name: string) {
  await page.screenshot({ path: `e2e/screenshots/technique/${name}-${testInfo.project.name}.png`, fullPage: true });
}

const unique = (testInfo: TestInfo, what: string) => `${what}.${testInfo.project.name}.${Date.now()}@example.org`;

/** The map's tiles drawn, all from the local tile server: none failed, none from elsewhere. */
async function tuilesChargees(page: Page, carte: ReturnType<Page['getByRole']>) {
  await expect(carte.locator('img.leaflet-tile-loaded').first()).toBeVisible();
  const sources = await carte.locator('img.leaflet-tile').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src));
  expect(sources.length).toBeGreaterThan(0);
  for (const src of sources) expect(src.startsWith(`${process.env.E2E_TUILES_URL}/tuiles/`), src).toBe(true);
  expect(await page.evaluate(() => [...document.querySelectorAll('img.leaflet-tile')].every((i) => (i as HTMLImageElement).naturalWidth === 256))).toBe(true);
}

/** A small JPEG taken « with a phone »: 800 × 600, with EXIF (the server strips it). */
const photo = () => sharp({ create: { width: 800, height: 600, channels: 3, background: '#8a9a5b' } }).withMetadata().jpeg().toBuffer();

test('a resident reports a problem placed on the map, with a photo; it is in the list and on the map; a neighbour follows it instead of a duplicate', { tag: '@habitant' }, async ({ page, browser }, testInfo) => {
  const email = unique(testInfo, 'signalante');
  await page.goto('/technique/nouveau');
  await expect(page).toHaveTitle('Nouveau signalement technique — Quartier Vivant');
  const carte = page.getByRole('region', { name: 'Carte pour placer le problème' });
  await expect(carte).toBeVisible();
  await tuilesChargees(page, carte);
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'nouveau');

  // A tap in the map's top right corner is outside the district (its boundary is round): refused before any call.
  const boite = (await carte.boundingBox())!;
  const proches: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/technique/signalements/proches')) proches.push(r.url());
  });
  await carte.click({ position: { x: boite.width - 12, y: 12 } });
  await expect(page.getByRole('alert')).toContainText('Ce point est hors du quartier du Jas de Bouffan');
  expect(proches).toEqual([]);

  // A tap in the middle places the problem; nothing open is within 50 m yet.
  await carte.click({ position: { x: boite.width / 2, y: boite.height / 2 } });
  await expect(page.getByText('Point placé sur la carte.')).toBeVisible();
  await expect(page.getByText('Aucun signalement ouvert à moins de 50 m de ce point.')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);

  await page.getByRole('radio', { name: 'Éclairage public' }).check();
  await page.getByRole('textbox', { name: /^Titre/u }).fill('Lampadaire éteint');
  await page.getByRole('textbox', { name: /^Description/u }).fill('Éteint depuis lundi soir, devant l’arrêt de bus.');
  await expect(page.getByText(/JPEG ou PNG, 3 photos au plus, 10 Mo chacune au plus\./u)).toBeVisible();
  await page.locator('input[type=file]').setInputFiles({ name: 'lampadaire.jpg', mimeType: 'image/jpeg', buffer: await photo() });
  await expect(page.getByRole('img', { name: 'Aperçu 1 : lampadaire.jpg' })).toBeVisible();
  await page.getByRole('textbox', { name: /^Adresse e-mail/u }).fill(email);
  await page.getByRole('textbox', { name: /^Votre nom/u }).fill('Nadia Benali');
  await page.getByRole('checkbox', { name: 'Ne pas afficher mon nom publiquement' }).check();
  await expectNoAxeViolation(page);
  await page.getByRole('button', { name: 'Envoyer le signalement' }).click();

  await expect(page.getByRole('heading', { level: 1, name: 'Votre signalement est enregistré' })).toBeFocused();
  const numero = (await page.getByText(/^Numéro du signalement/u).locator('strong').first().textContent())!;
  expect(numero).toMatch(/^\d{4}-\d{5}$/u);
  await expect(page.getByText('1 photo envoyée.')).toBeVisible();
  const lien = await page.getByRole('textbox', { name: 'Lien de suivi du signalement' }).inputValue();
  expect(lien).toMatch(new RegExp(`/technique/${numero}#cle=[A-Za-z0-9_-]{20,}$`, 'u'));
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'enregistre');
  // The same follow link is e-mailed.
  expect(await lienRecu(email, `/technique/${numero}#cle=`)).toBe(lien);

  // Its page: the state explained, the photo (re-encoded by the server), the name hidden as asked, a small map.
  await page.getByRole('link', { name: 'Voir mon signalement' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Lampadaire éteint' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'État :' })).toContainText('Le signalement est arrivé ; la mairie ne l’a pas encore examiné.');
  const image = page.getByRole('img', { name: `Vue 1 sur 1 du problème signalé : Lampadaire éteint` });
  await expect(image).toBeVisible();
  // Loaded lazily: its width once the browser has it.
  await expect.poll(() => image.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(800);
  await expect(page.getByText('Nadia Benali')).toHaveCount(0);
  await expect(page.getByText('Vous avez fait ce signalement : vous recevez un e-mail à chaque étape.')).toBeVisible();
  await tuilesChargees(page, page.getByRole('region', { name: 'Carte : emplacement du signalement' }));
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'signalement');

  // The district's list and map show it; its mark is a link reached with the keyboard.
  await page.goto('/technique');
  const liste = page.getByRole('list', { name: 'Liste des signalements' });
  await expect(liste.getByRole('link', { name: 'Lampadaire éteint' }).first()).toBeVisible();
  const carteDuQuartier = page.getByRole('region', { name: 'Carte des signalements du quartier' });
  const repere = carteDuQuartier.getByRole('link', { name: `Signalement n° ${numero} : Lampadaire éteint (Nouveau)` });
  await expect(repere).toBeVisible();
  await tuilesChargees(page, carteDuQuartier);
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'liste');
  await repere.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/technique/${numero}$`, 'u'));

  // A neighbour, on her own phone, places the same problem: it is shown first, and she follows it instead.
  const voisine = await browser.newContext({ ...TELEPHONE, baseURL: testInfo.project.use.baseURL! });
  const autre = await voisine.newPage();
  const emailVoisine = unique(testInfo, 'voisine');
  await autre.goto('/technique/nouveau');
  const saCarte = autre.getByRole('region', { name: 'Carte pour placer le problème' });
  await expect(saCarte.locator('img.leaflet-tile-loaded').first()).toBeVisible();
  const saBoite = (await saCarte.boundingBox())!;
  await saCarte.click({ position: { x: saBoite.width / 2 + 6, y: saBoite.height / 2 } });
  const deja = autre.getByRole('region', { name: 'Déjà signalé tout près ?' });
  await expect(deja.getByRole('link', { name: 'Lampadaire éteint' })).toBeVisible();
  await expectNoAxeViolation(autre);
  await shot(autre, testInfo, 'deja-signale');
  await deja.getByRole('button', { name: 'C’est le même problème : Lampadaire éteint' }).click();
  await deja.getByRole('textbox', { name: new RegExp(`pour suivre le signalement n° ${numero}`, 'u') }).fill(emailVoisine);
  await deja.getByRole('button', { name: 'Suivre ce signalement' }).click();
  await expect(autre.getByRole('heading', { level: 1, name: 'Vous suivez ce signalement' })).toBeFocused();
  await expect(autre.getByText('Merci : aucun doublon n’a été créé')).toBeVisible();
  await expectNoAxeViolation(autre);

  // Her e-mail says what she follows, with a link that stops it.
  const desabonnement = await lienRecu(emailVoisine, '/technique/desabonnement#jeton=');
  await autre.goto(desabonnement);
  await expect(autre.getByText(`Vous ne recevrez plus d’e-mail sur le signalement n° ${numero}.`, { exact: false })).toBeVisible();
  expect(new URL(autre.url()).hash).toBe('');
  await voisine.close();
});

test('anyone follows a report from its page, and asks for the district’s alerts (double opt-in)', { tag: '@habitant' }, async ({ page, request }, testInfo) => {
  const cree = await request.post('/app/api/technique/signalements', {
    data: { categorie: 'proprete', titre: 'Dépôt sauvage', description: '', lat: 43.5262, lon: 5.4046, email: unique(testInfo, 'auteur'), nom: 'Paul' },
  });
  expect(cree.status()).toBe(201);
  const { numero } = (await cree.json()).data as { numero: string };

  await page.goto(`/technique/${numero}`);
  const suivre = page.getByRole('region', { name: 'Suivre ce signalement' });
  const email = unique(testInfo, 'suiveuse');
  await suivre.getByRole('textbox', { name: /Votre adresse e-mail/u }).fill(email);
  await suivre.getByRole('button', { name: 'Suivre ce signalement' }).click();
  await expect(suivre.getByRole('status')).toContainText(`Un e-mail de confirmation a été envoyé à ${email}`);
  await expect(page.getByText('Paul', { exact: true })).toBeVisible();
  // The reporter follows it too.
  await expect(page.getByText('2 personnes')).toBeVisible();

  await page.goto('/technique');
  const alerte = page.getByRole('region', { name: 'Prévenez-moi des nouveaux signalements dans le quartier' });
  await alerte.getByRole('textbox', { name: /Votre adresse e-mail/u }).fill(email);
  await alerte.getByRole('button', { name: 'M’inscrire aux alertes' }).click();
  await expect(alerte.getByRole('status')).toContainText(`Un e-mail vient d’être envoyé à ${email}`);
  await page.goto(await lienRecu(email, '/technique/alertes/confirmation#jeton='));
  await expect(page.getByText('Votre alerte est confirmée')).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'alerte-confirmee');
});

test('the technique pages with the map pass axe-core and fit the screen', async ({ page, request }, testInfo) => {
  // A report of its own, placed apart from the other journeys' (each width its own point).
  const lon = testInfo.project.name.includes('375') ? 5.4072 : 5.4102;
  const cree = await request.post('/app/api/technique/signalements', {
    data: { categorie: 'voirie', titre: 'Nid-de-poule', description: 'Profond, sur la voie de droite.', lat: 43.5312, lon, email: unique(testInfo, 'axe') },
  });
  expect(cree.status()).toBe(201);
  const { numero } = (await cree.json()).data as { numero: string };

  for (const [nom, chemin, carte] of [
    ['technique', '/technique', 'Carte des signalements du quartier'],
    ['nouveau-vide', '/technique/nouveau', 'Carte pour placer le problème'],
    ['detail', `/technique/${numero}`, 'Carte : emplacement du signalement'],
  ] as const) {
    await page.goto(chemin);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('region', { name: carte }).locator('img.leaflet-tile-loaded').first()).toBeVisible();
    await expectNoAxeViolation(page);
    const largeur = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(largeur, `${nom}: the page is wider than the screen`).toBeLessThanOrEqual(page.viewportSize()!.width);
    await shot(page, testInfo, `page-${nom}`);
  }

  // The form's errors, with the map on the page.
  await page.goto('/technique/nouveau');
  await page.getByRole('button', { name: 'Envoyer le signalement' }).click();
  await expect(page.getByRole('heading', { level: 2, name: /Où est le problème/u })).toBeFocused();
  await expect(page.getByText('Choisissez une catégorie.')).toBeVisible();
  await expectNoAxeViolation(page);
  await shot(page, testInfo, 'nouveau-erreurs');
});
