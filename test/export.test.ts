import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, createTestApp, demande, multipart, SAMPLES, type TestContext } from './helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

/** The entries of a zip, read from its central directory (stored entries: the export does not compress). */
function unzip(zip: Buffer): Map<string, Buffer> {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThan(0);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    expect(zip.readUInt16LE(at + 10)).toBe(0); // stored
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.set(name, zip.subarray(dataAt, dataAt + size));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

async function create(numeroUnique: string, cookie?: string) {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique, nom: 'Exportée' }), headers: cookie ? { cookie } : {} });
  expect(res.statusCode).toBe(201);
  const { accessKey } = res.json().data as { accessKey: string };
  const body = await multipart([
    { field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf },
    { field: 'identity', name: 'carte.png', content: SAMPLES.png },
  ]);
  const up = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload });
  expect(up.statusCode).toBe(201);
  return accessKey;
}

function expectDemande(entries: Map<string, Buffer>, numero: string) {
  const json = JSON.parse(entries.get(`demande-${numero}/demande.json`)!.toString('utf8'));
  expect(json).toMatchObject({ numeroUnique: numero, nom: 'Exportée', prenom: 'Hélène', email: 'helene.martin@example.org', statutDeLaDemande: 'En attente des documents' });
  expect(json.historique).toEqual([expect.objectContaining({ de: null, vers: 'En attente des documents' })]);
  expect(json.documents).toHaveLength(2);
  // The entries are named in French, after the documents' categories.
  expect((json.documents as { fichier: string }[]).map((d) => d.fichier).sort()).toEqual(['documents/livret-famille-1-livret.pdf', 'documents/piece-identite-1-carte.png']);
  for (const doc of json.documents as { fichier: string; sha256: string; taille: number }[]) {
    const file = entries.get(`demande-${numero}/${doc.fichier}`)!;
    expect(file.length).toBe(doc.taille);
    expect(sha256(file)).toBe(doc.sha256);
  }
  const bySha = new Set((json.documents as { sha256: string }[]).map((d) => d.sha256));
  expect(bySha).toEqual(new Set([sha256(SAMPLES.pdf), sha256(SAMPLES.png)]));
}

describe('GET /logement/:numeroUnique/export.zip', () => {
  it('gives the holder of the private key demande.json and the documents, never cached', async () => {
    const key = await create('013exp0000001');
    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013exp0000001/export.zip' })).statusCode).toBe(403);
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013exp0000001/export.zip', headers: { 'x-access-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['content-disposition']).toContain('demande-013exp0000001-donnees.zip');
    const entries = unzip(res.rawPayload);
    expect([...entries.keys()].sort()).toEqual([
      'demande-013exp0000001/demande.json',
      'demande-013exp0000001/documents/livret-famille-1-livret.pdf',
      'demande-013exp0000001/documents/piece-identite-1-carte.png',
    ]);
    expectDemande(entries, '013exp0000001');
  });
});

describe('GET /compte/export.zip', () => {
  it('gives the account compte.json and each request it owns', async () => {
    const owner = await createAccount(ctx);
    const voisin = await createAccount(ctx, 'habitant', { nom: 'Voisin' });
    await ctx.app.deps.db.insertInto('follows').values({ followerId: voisin.uid, followeeId: owner.uid, createdAt: new Date().toISOString() }).execute();
    await create('013exp0000002', owner.cookie);
    await create('013exp0000003', owner.cookie);
    await create('013exp0000004', voisin.cookie);

    expect((await ctx.app.inject({ method: 'GET', url: '/app/api/compte/export.zip' })).statusCode).toBe(401);
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/compte/export.zip', headers: { cookie: owner.cookie } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const entries = unzip(res.rawPayload);
    const compte = JSON.parse(entries.get('compte.json')!.toString('utf8'));
    expect(compte.profil).toMatchObject({ uid: owner.uid, email: owner.email });
    expect(compte.abonnes).toEqual([expect.objectContaining({ uid: voisin.uid, nom: 'Voisin' })]);
    expect(compte.abonnements).toEqual([]);
    expectDemande(entries, '013exp0000002');
    expectDemande(entries, '013exp0000003');
    // Nothing of another account's request.
    expect([...entries.keys()].some((k) => k.includes('013exp0000004'))).toBe(false);
  });
});
