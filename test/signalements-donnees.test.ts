import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ajouterMois } from '../src/domain/cycleDeVie.js';
import { pointA } from '../src/domain/geometrie.js';
import { buildApp } from '../src/server/app.js';
import { executerCycleDeVie, type CycleDeps } from '../src/server/features/demandes/cycleDeVie.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { ALERTE_NON_CONFIRMEE_JOURS, CONSERVATION_SIGNALANT_MOIS, DOSSIER_PHOTOS_SIGNALEMENTS } from '../src/server/features/compte/donnees-signalements.js';
import { createAccount, createTestApp, multipart, SANS_LIMITES_SIGNALEMENTS, type TestContext } from './helpers.js';

/**
 * The personal data of technical reports outside their own feature: what an account's deletion keeps and
 * removes, what « Télécharger mes données » gives, the daily job's retention, and the sweep of interrupted photo
 * uploads (docs/produit.md « Données personnelles », « Signalements techniques »). A real database per file
 * (SQLite, or PostgreSQL with DATABASE_URL).
 */
let ctx: TestContext;


beforeAll(async () => {
  ctx = await createTestApp({}, { rateLimits: SANS_LIMITES_SIGNALEMENTS });
});
afterAll(async () => {
  await ctx.close();
});

const api = (url: string) => `/app/api/technique${url}`;
const CENTRE = { lat: 43.529444, lon: 5.413889 };
const PASSWORD = 'une phrase de passe assez longue';
let n = 0;

async function signaler({ email, nom = 'Camille Martin', cookie, photos = 0 }: { email: string; nom?: string; cookie?: string; photos?: number }) {
  n += 1;
  const res = await ctx.app.inject({
    method: 'POST',
    url: api('/signalements'),
    headers: cookie ? { cookie } : {},
    payload: {
      categorie: 'voirie',
      titre: `Trottoir abîmé n° ${n}`,
      description: 'Une dalle soulevée devant l’école.',
      ...pointA(CENTRE, 150 + 100 * (n % 5), (n * 53) % 360),
      adresse: 'Avenue Marcel-Pagnol, 13090 Aix-en-Provence',
      email,
      nom,
      nomMasque: false,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { numero, cle } = res.json().data as { numero: string; cle: string };
  for (let i = 0; i < photos; i += 1) {
    const content = await sharp(randomBytes(32 * 32 * 3), { raw: { width: 32, height: 32, channels: 3 } }).png().toBuffer();
    const form = await multipart([{ field: 'photo', name: `photo-${i}.png`, content, type: 'image/png' }]);
    const up = await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/photos`), headers: { ...form.headers, 'x-access-key': cle }, payload: form.payload });
    expect(up.statusCode, up.body).toBe(201);
  }
  return { numero, cle, id: (await ligne(numero)).id };
}

const ligne = (numero: string) => ctx.app.deps.db.selectFrom('signalements').selectAll().where('numero', '=', numero).executeTakeFirstOrThrow();
const suivre = async (numero: string, email: string) =>
  expect((await ctx.app.inject({ method: 'POST', url: api(`/signalements/${numero}/suivre`), payload: { email } })).statusCode).toBe(200);
const suivis = async (email: string) =>
  (await ctx.app.deps.db.selectFrom('signalementSuiveurs as f').innerJoin('signalements as s', 's.id', 'f.signalementId').select('s.numero').where('f.email', '=', email).orderBy('s.numero').execute()).map(
    (r) => r.numero,
  );
async function alerte(email: string, confirmeLe: string | null) {
  const res = await ctx.app.inject({ method: 'POST', url: api('/alertes'), payload: { email } });
  expect(res.statusCode, res.body).toBeLessThan(300);
  if (confirmeLe) await ctx.app.deps.db.updateTable('signalementAlertes').set({ confirmeLe }).where('email', '=', email).execute();
}
const alertes = async () => (await ctx.app.deps.db.selectFrom('signalementAlertes').select('email').orderBy('email').execute()).map((a) => a.email);
/** better-auth's flag, written as a literal both databases read (PostgreSQL's boolean, SQLite's 0/1). */
const confirmerAdresse = (uid: string) => sql`update "user" set email_verified = true where id = ${uid}`.execute(ctx.app.deps.db);

/** The e-mails written for an address, quoted-printable decoded. */
async function mailsTo(email: string): Promise<string[]> {
  await ctx.app.deps.mailer.idle();
  const dir = path.join(ctx.dataDir, 'mail');
  if (!fs.existsSync(dir)) return [];
  const decode = (raw: string) =>
    Buffer.from(raw.replace(/=\r?\n/gu, '').replace(/=([0-9A-F]{2})/gu, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort()
    .map((f) => decode(fs.readFileSync(path.join(dir, f), 'utf8')))
    .filter((m) => m.includes(`To: ${email}`));
}

/** The entries of a zip, read from its central directory (stored entries: the export does not compress). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.set(name, zip.subarray(dataAt, dataAt + size));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

describe('« Télécharger mes données »: the account’s reports, followings and alert', () => {
  it('gives each report the account made (every field, photos, history), and the followings and alert of its confirmed address', async () => {
    const moi = await createAccount(ctx);
    const autre = await createAccount(ctx);
    const mien = await signaler({ email: 'mon.autre.adresse@example.org', nom: 'Élodie Durand', cookie: moi.cookie, photos: 2 });
    const voisin = await signaler({ email: 'voisin.export@example.org', cookie: autre.cookie });
    await suivre(voisin.numero, moi.email);
    await alerte(moi.email, '2026-03-01T10:00:00.000Z');

    const exporter = async () => {
      const res = await ctx.app.inject({ method: 'GET', url: '/app/api/compte/export.zip', headers: { cookie: moi.cookie } });
      expect(res.statusCode).toBe(200);
      return unzip(res.rawPayload);
    };
    // Address not confirmed: nothing proves that the followings under it are the account holder's.
    let compte = JSON.parse((await exporter()).get('compte.json')!.toString('utf8'));
    expect(compte.signalements).toEqual([`signalement-${mien.numero}/signalement.json`]);
    expect(compte.suivisDeSignalements).toEqual([]);
    expect(compte.alerteDuQuartier).toBeNull();

    await confirmerAdresse(moi.uid);
    const entries = await exporter();
    compte = JSON.parse(entries.get('compte.json')!.toString('utf8'));
    expect(compte.suivisDeSignalements).toEqual([{ numero: voisin.numero, depuis: expect.any(String) }]);
    expect(compte.alerteDuQuartier).toEqual({ demandeeLe: expect.any(String), confirmeeLe: '2026-03-01T10:00:00.000Z' });
    const json = JSON.parse(entries.get(`signalement-${mien.numero}/signalement.json`)!.toString('utf8'));
    expect(json).toMatchObject({
      numero: mien.numero,
      categorie: 'voirie',
      email: 'mon.autre.adresse@example.org',
      nom: 'Élodie Durand',
      nomMasque: false,
      etat: 'nouveau',
      doublonDe: null,
      historique: [{ etat: 'nouveau', par: 'signalant', masquee: false }],
    });
    expect(json.photos).toHaveLength(2);
    const stockees = await ctx.app.deps.db.selectFrom('signalementPhotos').select(['storageKey', 'taille']).where('signalementId', '=', mien.id).orderBy('creeLe').orderBy('id').execute();
    for (const [i, p] of stockees.entries()) {
      const fichier = entries.get(`signalement-${mien.numero}/${json.photos[i].fichier}`)!;
      expect(fichier.length).toBe(p.taille);
      expect(createHash('sha256').update(fichier).digest('hex')).toBe(createHash('sha256').update(fs.readFileSync(path.join(ctx.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS, p.storageKey))).digest('hex'));
    }
    // Nothing of another account's report.
    expect([...entries.keys()].some((k) => k.includes(voisin.numero))).toBe(false);
  });
});

describe('« Supprimer mon compte » and technical reports', () => {
  const supprimer = (cookie: string) => ctx.app.inject({ method: 'POST', url: '/app/api/user/me/supprimer', headers: { cookie }, payload: { motDePasse: PASSWORD } });

  it('keeps the account’s reports without its link and its name (the e-mail stays), and removes the followings and the alert of its confirmed address', async () => {
    const moi = await createAccount(ctx);
    await confirmerAdresse(moi.uid);
    const autre = await createAccount(ctx);
    const mien = await signaler({ email: moi.email, nom: 'Élodie Durand', cookie: moi.cookie, photos: 1 });
    const anonyme = await signaler({ email: 'sans.compte@example.org', nom: 'Jean Sanscompte' });
    const sien = await signaler({ email: 'autre@example.org', nom: 'Autre Personne', cookie: autre.cookie });
    await suivre(anonyme.numero, moi.email);
    await suivre(sien.numero, moi.email);
    await suivre(sien.numero, 'voisine@example.org');
    await alerte(moi.email, new Date().toISOString());
    await alerte('voisine@example.org', new Date().toISOString());
    // The reporter follows their own report from the start.
    expect(await suivis(moi.email)).toEqual([mien.numero, anonyme.numero, sien.numero].sort());
    const avant = await ligne(mien.numero);
    expect((await ctx.app.inject({ method: 'GET', url: api(`/signalements/${mien.numero}`) })).json().data.auteur).toBe('Élodie Durand');

    const res = await supprimer(moi.cookie);
    expect(res.statusCode, res.body).toBe(200);

    // The report stays, public, with its photo and history; without the account, without the name; its e-mail kept.
    const apres = await ligne(mien.numero);
    expect(apres).toMatchObject({ ...avant, ownerUserId: null, nom: '', email: moi.email, ...('recherche' in apres ? { recherche: expect.any(String) } : {}) });
    // (With the managers' search of migration 0020, the erased name is no longer searchable either.)
    if ('recherche' in apres) expect(String(apres.recherche)).not.toContain('durand');
    expect(await ctx.app.deps.db.selectFrom('signalementPhotos').select('id').where('signalementId', '=', mien.id).execute()).toHaveLength(1);
    expect(await ctx.app.deps.db.selectFrom('signalementMisesAJour').select('auteurUserId').where('signalementId', '=', mien.id).execute()).toEqual([{ auteurUserId: null }]);
    const vue = await ctx.app.inject({ method: 'GET', url: api(`/signalements/${mien.numero}`) });
    expect(vue.statusCode).toBe(200);
    expect(vue.json().data.auteur).toBeNull();
    expect(vue.body).not.toContain('Élodie');
    // The private follow link still works for the reporter (photos, « Toujours pas résolu »).
    expect((await ctx.app.inject({ method: 'GET', url: api(`/signalements/${mien.numero}`), headers: { 'x-access-key': mien.cle } })).statusCode).toBe(200);
    // Followings and alert under the account's address: gone; others' untouched; other reports untouched.
    expect(await suivis(moi.email)).toEqual([]);
    expect(await suivis('voisine@example.org')).toEqual([sien.numero]);
    expect(await alertes()).not.toContain(moi.email);
    expect(await alertes()).toContain('voisine@example.org');
    expect(await ligne(anonyme.numero)).toMatchObject({ nom: 'Jean Sanscompte', email: 'sans.compte@example.org' });
    expect(await ligne(sien.numero)).toMatchObject({ nom: 'Autre Personne', ownerUserId: autre.uid });

    const mail = (await mailsTo(moi.email)).find((m) => m.includes('Votre compte Quartier Vivant a été supprimé'))!;
    expect(mail).toContain(
      `Votre signalement technique reste visible sur le site, sans votre nom ni lien avec un compte. L’adresse e-mail donnée en signalant reste connue de la mairie annexe pour le suivi, jusqu’à ${CONSERVATION_SIGNALANT_MOIS} mois après la clôture du signalement ; le lien de suivi privé reçu en signalant fonctionne toujours.`,
    );
    expect(mail).toContain('À cette adresse, le suivi de 3 signalements et l’alerte des nouveaux signalements du quartier sont arrêtés : vous ne recevrez plus ces e-mails.');
  });

  it('leaves the followings and the alert of an address the account never confirmed (anyone may sign up with any address)', async () => {
    const usurpateur = await createAccount(ctx);
    const signalement = await signaler({ email: 'tiers@example.org' });
    await suivre(signalement.numero, usurpateur.email);
    await alerte(usurpateur.email, new Date().toISOString());
    const res = await supprimer(usurpateur.cookie);
    expect(res.statusCode, res.body).toBe(200);
    expect(await suivis(usurpateur.email)).toEqual([signalement.numero]);
    expect(await alertes()).toContain(usurpateur.email);
    const mail = (await mailsTo(usurpateur.email)).find((m) => m.includes('Votre compte Quartier Vivant a été supprimé'))!;
    expect(mail).not.toContain('signalement');
  });
});

describe('the daily job’s retention of reports’ personal data', () => {
  function deps(now: Date): CycleDeps {
    const { db, dbKind, mailer, bus, storage, config } = ctx.app.deps;
    return { repository: new DemandesRepository(db, dbKind, () => now), mailer, bus, storage, config, now: () => now, log: ctx.app.log, signalements: { db, kind: dbKind } };
  }
  /** Closes a report (`etat`) as of `le`, its last public update. */
  const fermer = (id: string, le: string, etat = 'resolu') => ctx.app.deps.db.updateTable('signalements').set({ etat, ouvert: 0, misAJourLe: le }).where('id', '=', id).execute();

  it(`makes a report closed for ${CONSERVATION_SIGNALANT_MOIS} months anonymous and removes its followers, drops alerts unconfirmed for ${ALERTE_NON_CONFIRMEE_JOURS} days; idempotent`, async () => {
    const now = new Date();
    const iso = now.toISOString();
    const proprietaire = await createAccount(ctx);
    const ancien = await signaler({ email: 'ancien@example.org', nom: 'Ancien Signalant', cookie: proprietaire.cookie, photos: 1 });
    const recent = await signaler({ email: 'recent@example.org', nom: 'Récent Signalant' });
    const ouvert = await signaler({ email: 'ouvert@example.org', nom: 'Ouvert Signalant' });
    const ouvertAncien = await signaler({ email: 'ouvert.ancien@example.org' });
    await suivre(ancien.numero, 'voisin.ancien@example.org');
    await suivre(recent.numero, 'voisin.recent@example.org');
    // Closed a day more than the retention ago; closed a day less; open; open but untouched for as long.
    await fermer(ancien.id, new Date(Date.parse(ajouterMois(iso, -CONSERVATION_SIGNALANT_MOIS)) - 86_400_000).toISOString(), 'ferme');
    await fermer(recent.id, new Date(Date.parse(ajouterMois(iso, -CONSERVATION_SIGNALANT_MOIS)) + 86_400_000).toISOString());
    await ctx.app.deps.db.updateTable('signalements').set({ misAJourLe: '2020-01-01T00:00:00.000Z' }).where('id', '=', ouvertAncien.id).execute();
    // Alerts: unconfirmed for a day more than the limit, unconfirmed for a day less, confirmed long ago.
    const jours = (j: number) => new Date(now.getTime() - j * 86_400_000).toISOString();
    await alerte('jamais.confirmee@example.org', null);
    await alerte('bientot.confirmee@example.org', null);
    await alerte('confirmee.il.y.a.longtemps@example.org', jours(400));
    await ctx.app.deps.db.updateTable('signalementAlertes').set({ creeLe: jours(ALERTE_NON_CONFIRMEE_JOURS + 1) }).where('email', 'in', ['jamais.confirmee@example.org', 'confirmee.il.y.a.longtemps@example.org']).execute();
    await ctx.app.deps.db.updateTable('signalementAlertes').set({ creeLe: jours(ALERTE_NON_CONFIRMEE_JOURS - 1) }).where('email', '=', 'bientot.confirmee@example.org').execute();
    const avantAncien = await ligne(ancien.numero);

    const bilan = await executerCycleDeVie(deps(now), { force: true });
    expect(bilan).toMatchObject({ signalementsAnonymises: 1, suivisSupprimes: 2, alertesNonConfirmees: 1 });

    // The old closed report: anonymous (no e-mail, no name, no account), no follower; the rest of it stays.
    const apres = await ligne(ancien.numero);
    expect(apres).toMatchObject({ ...avantAncien, email: '', nom: '', ownerUserId: null, ...('recherche' in apres ? { recherche: expect.any(String) } : {}) });
    // (With the managers' search of migration 0020, the erased address is no longer searchable either.)
    if ('recherche' in apres) expect(String(apres.recherche)).not.toContain('ancien@example.org');
    expect(await ctx.app.deps.db.selectFrom('signalementMisesAJour').select('auteurUserId').where('signalementId', '=', ancien.id).execute()).toEqual([{ auteurUserId: null }]);
    expect(await ctx.app.deps.db.selectFrom('signalementPhotos').select('id').where('signalementId', '=', ancien.id).execute()).toHaveLength(1);
    expect(await suivis('ancien@example.org')).toEqual([]);
    expect(await suivis('voisin.ancien@example.org')).toEqual([]);
    expect((await ctx.app.inject({ method: 'GET', url: api(`/signalements/${ancien.numero}`) })).statusCode).toBe(200);
    // The others keep everything.
    expect(await ligne(recent.numero)).toMatchObject({ email: 'recent@example.org', nom: 'Récent Signalant' });
    expect(await suivis('voisin.recent@example.org')).toEqual([recent.numero]);
    expect(await ligne(ouvert.numero)).toMatchObject({ email: 'ouvert@example.org', nom: 'Ouvert Signalant' });
    expect(await ligne(ouvertAncien.numero)).toMatchObject({ email: 'ouvert.ancien@example.org' });
    expect(await suivis('ouvert.ancien@example.org')).toEqual([ouvertAncien.numero]);
    const restantes = await alertes();
    expect(restantes).not.toContain('jamais.confirmee@example.org');
    expect(restantes).toEqual(expect.arrayContaining(['bientot.confirmee@example.org', 'confirmee.il.y.a.longtemps@example.org']));

    // Run again: nothing more to do.
    expect(await executerCycleDeVie(deps(now), { force: true })).toMatchObject({ signalementsAnonymises: 0, suivisSupprimes: 0, alertesNonConfirmees: 0 });
  });

  it('goes by batches past 500 reports', async () => {
    const now = new Date();
    const vieux = '2020-06-01T00:00:00.000Z';
    const { db } = ctx.app.deps;
    const base = await ligne((await signaler({ email: 'modele@example.org' })).numero);
    // 620 closed reports copied from one (numbers made unique), each with one follower.
    const lignes = Array.from({ length: 620 }, (_, i) => ({ ...base, id: `lot-${String(i).padStart(4, '0')}`, numero: `1999-${String(i).padStart(5, '0')}`, etat: 'ferme', ouvert: 0, misAJourLe: vieux }));
    for (let i = 0; i < lignes.length; i += 100) await db.insertInto('signalements').values(lignes.slice(i, i + 100)).execute();
    for (let i = 0; i < lignes.length; i += 100) {
      await db
        .insertInto('signalementSuiveurs')
        .values(lignes.slice(i, i + 100).map((l) => ({ id: `suivi-${l.id}`, signalementId: l.id, email: `lot@example.org`, jetonHash: createHash('sha256').update(l.id).digest('hex'), creeLe: vieux })))
        .execute();
    }
    const bilan = await executerCycleDeVie(deps(now), { force: true });
    expect(bilan).toMatchObject({ signalementsAnonymises: 620, suivisSupprimes: 620 });
    expect(await db.selectFrom('signalements').select('id').where('id', 'like', 'lot-%').where('email', '<>', '').execute()).toEqual([]);
  });
});

describe('the sweep of report photos (features/signalements/index.ts)', () => {
  it('removes interrupted uploads and unreferenced photos older than an hour, keeps the rest, and the housing sweep leaves them alone', async () => {
    const { id } = await signaler({ email: 'balayage@example.org', photos: 1 });
    const dossier = path.join(ctx.dataDir, DOSSIER_PHOTOS_SIGNALEMENTS);
    const [photo] = await ctx.app.deps.db.selectFrom('signalementPhotos').select('storageKey').where('signalementId', '=', id).execute();
    const gardee = path.join(dossier, photo!.storageKey);
    const vieux = new Date(Date.now() - 2 * 3600_000);
    // Leftovers of a crash: a temp file and a photo without its row (both old), and the same, young.
    const restes = { temp: path.join(dossier, '.tmp', 'envoi-coupe'), orpheline: path.join(dossier, id, 'orpheline.jpg') };
    const jeunes = { temp: path.join(dossier, '.tmp', 'envoi-en-cours'), orpheline: path.join(dossier, id, 'en-cours.jpg') };
    for (const f of [...Object.values(restes), ...Object.values(jeunes)]) fs.writeFileSync(f, 'x');
    for (const f of [...Object.values(restes), gardee]) fs.utimesSync(f, vieux, vieux);

    // A restart: the sweeps run at start (the housing one first, on DATA_DIR/uploads only).
    const app = await buildApp(ctx.config, { logger: false });
    try {
      for (let i = 0; i < 100 && Object.values(restes).some((f) => fs.existsSync(f)); i += 1) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await app.close();
    }
    expect(Object.values(restes).filter((f) => fs.existsSync(f))).toEqual([]);
    expect(Object.values(jeunes).filter((f) => !fs.existsSync(f))).toEqual([]);
    expect(fs.existsSync(gardee)).toBe(true);
    for (const f of Object.values(jeunes)) fs.rmSync(f);
  });
});
