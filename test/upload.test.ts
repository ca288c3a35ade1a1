import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import contentDisposition from 'content-disposition';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { effacerDemande } from '../src/server/features/demandes/effacement.js';
import { DemandesRepository } from '../src/server/features/demandes/repository.js';
import { safeFileName } from '../src/server/features/demandes/upload.js';
import { createTestApp, demande, filesUnder, multipart, SAMPLES, type TestContext } from './helpers.js';

let ctx: TestContext;
let uploadsDir: string;
beforeAll(async () => {
  ctx = await createTestApp({ UPLOAD_MAX_MB: '10' });
  uploadsDir = path.join(ctx.dataDir, 'uploads');
});
afterAll(async () => {
  await ctx.close();
});

async function newRequest(numeroUnique: string): Promise<string> {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique }) });
  expect(res.statusCode).toBe(201);
  return res.json().data.accessKey as string;
}

async function upload(numero: string, key: string | undefined, files: Parameters<typeof multipart>[0]) {
  const body = await multipart(files);
  return ctx.app.inject({
    method: 'POST',
    url: `/app/api/logement/upload-files/${numero}`,
    headers: { ...body.headers, ...(key ? { 'x-access-key': key } : {}) },
    payload: body.payload,
  });
}

async function documentRows(numero: string) {
  return ctx.app.deps.db
    .selectFrom('documents')
    .innerJoin('housingRequests', 'housingRequests.id', 'documents.housingRequestId')
    .select(['documents.id', 'documents.category', 'documents.storageKey', 'documents.originalName', 'documents.contentType', 'documents.size', 'documents.sha256', 'documents.position'])
    .where('housingRequests.numeroUnique', '=', numero)
    .execute();
}

describe('POST /logement/upload-files/:numeroUnique', () => {
  it('stores a PDF, a PNG and a JPEG in their blocks, recorded and on disk, and lists them in the full view', async () => {
    const key = await newRequest('013up0000001');
    const res = await upload('013up0000001', key, [
      { field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf },
      { field: 'identity', name: 'carte.PNG', content: SAMPLES.png },
      { field: 'identity', name: 'verso.jpg', content: SAMPLES.jpeg },
    ]);
    expect(res.statusCode).toBe(201);
    const { documents } = res.json().data;
    expect(documents.livret).toHaveLength(1);
    expect(documents.identity.map((d: { name: string; type: string }) => [d.name, d.type])).toEqual([
      ['carte.PNG', 'image/png'],
      ['verso.jpg', 'image/jpeg'],
    ]);

    const rows = await documentRows('013up0000001');
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const file = path.join(uploadsDir, row.storageKey);
      expect(fs.existsSync(file)).toBe(true);
      const bytes = fs.readFileSync(file);
      expect(bytes.length).toBe(row.size);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(row.sha256);
    }
    // Each file in a folder of its own (its id), named by its block and its safe name; numbered in its block in the database.
    expect(rows.map((r) => path.basename(r.storageKey)).sort()).toEqual(['identity-carte.png', 'identity-verso.jpg', 'livret-livret.pdf']);
    for (const row of rows) expect(path.basename(path.dirname(row.storageKey))).toBe(row.id);
    expect(rows.map((r) => `${r.category}-${r.position}-${r.originalName}`).sort()).toEqual(['identity-1-carte.PNG', 'identity-2-verso.jpg', 'livret-1-livret.pdf']);

    const view = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013up0000001', headers: { 'x-access-key': key } });
    expect(view.json().data.documents.livret[0]).toMatchObject({ name: 'livret.pdf', type: 'application/pdf', size: SAMPLES.pdf.length });
    expect(view.json().data.documents.livret[0].fileUrl).toMatch(/^\/app\/api\/logement\/013up0000001\/documents\/[0-9a-f-]{36}$/u);
  });

  it('numbers files on from what the block already holds', async () => {
    const key = await newRequest('013up0000002');
    await upload('013up0000002', key, [{ field: 'tax', name: 'avis.pdf', content: SAMPLES.pdf }]);
    await upload('013up0000002', key, [{ field: 'tax', name: 'avis.pdf', content: SAMPLES.pdf }]);
    expect((await documentRows('013up0000002')).map((r) => r.position).sort()).toEqual([1, 2]);
  });

  it('numbers the files of simultaneous uploads to one block each its own, and answers each with the documents then held', async () => {
    const key = await newRequest('013up0000012');
    const answers = await Promise.all(
      ['un', 'deux', 'trois', 'quatre'].map((n) => upload('013up0000012', key, [{ field: 'tax', name: `avis-${n}.pdf`, content: SAMPLES.pdf }])),
    );
    expect(answers.map((a) => a.statusCode)).toEqual([201, 201, 201, 201]);
    const positions = await ctx.app.deps.db
      .selectFrom('documents')
      .innerJoin('housingRequests', 'housingRequests.id', 'documents.housingRequestId')
      .select('documents.position')
      .where('housingRequests.numeroUnique', '=', '013up0000012')
      .orderBy('documents.position')
      .execute();
    expect(positions.map((p) => p.position)).toEqual([1, 2, 3, 4]);
    // Each answer lists what the request held once its files were recorded: its own file among them, in order.
    for (const [i, n] of ['un', 'deux', 'trois', 'quatre'].entries()) {
      const names = answers[i]!.json().data.documents.tax.map((d: { name: string }) => d.name) as string[];
      expect(names).toContain(`avis-${n}.pdf`);
    }
    const longest = answers.map((a) => a.json().data.documents.tax as { name: string }[]).sort((a, b) => b.length - a.length)[0]!;
    expect(longest).toHaveLength(4);
    const view = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013up0000012', headers: { 'x-access-key': key } });
    expect(view.json().data.documents.tax.map((d: { name: string }) => d.name)).toEqual(longest.map((d) => d.name));
  });

  it('refuses without the key, and with a wrong key, writing nothing', async () => {
    const key = await newRequest('013up0000003');
    const before = filesUnder(uploadsDir).length;
    const none = await upload('013up0000003', undefined, [{ field: 'other', name: 'a.pdf', content: SAMPLES.pdf }]);
    expect(none.statusCode).toBe(403);
    expect(none.json().error.message).toMatch(/lien privé/u);
    const wrong = await upload('013up0000003', `${key}x`, [{ field: 'other', name: 'a.pdf', content: SAMPLES.pdf }]);
    expect(wrong.statusCode).toBe(403);
    expect(await documentRows('013up0000003')).toHaveLength(0);
    expect(filesUnder(uploadsDir).length).toBe(before);
  });

  it('refuses documents for a closed request (409 DEMANDE_CLOSE, in French), writing nothing; reactivated, it takes them again', async () => {
    const key = await newRequest('013up0000c01');
    const before = filesUnder(uploadsDir).length;
    for (const statut of ['Refusé', 'Attribué', 'Radiée']) {
      await ctx.app.deps.db.updateTable('housingRequests').set({ statutDeLaDemande: statut }).where('numeroUnique', '=', '013up0000c01').execute();
      const res = await upload('013up0000c01', key, [{ field: 'other', name: 'a.pdf', content: SAMPLES.pdf }]);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatchObject({ code: 'DEMANDE_CLOSE', message: expect.stringMatching(new RegExp(`^Cette demande est close \\(${statut}\\) : elle ne reçoit plus de documents\\.`, 'u')) });
    }
    expect(await documentRows('013up0000c01')).toHaveLength(0);
    expect(filesUnder(uploadsDir).length).toBe(before);
    await ctx.app.deps.db.updateTable('housingRequests').set({ statutDeLaDemande: 'En attente' }).where('numeroUnique', '=', '013up0000c01').execute();
    expect((await upload('013up0000c01', key, [{ field: 'other', name: 'a.pdf', content: SAMPLES.pdf }])).statusCode).toBe(201);
  });

  it('answers 404 for an unknown numéro and 400 for a malformed one', async () => {
    expect((await upload('013nobody0001', 'x', [{ field: 'other', name: 'a.pdf', content: SAMPLES.pdf }])).statusCode).toBe(404);
    expect((await upload('abc', 'x', [{ field: 'other', name: 'a.pdf', content: SAMPLES.pdf }])).statusCode).toBe(400);
  });

  it('is the only kind of route that reads files: a multipart body to one that takes none is refused (415, in French), not read', async () => {
    const form = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf, type: 'application/pdf' }]);
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', ...form });
    expect(res.statusCode, res.body).toBe(415);
    expect(res.json().error).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Ce type de contenu n’est pas accepté.' });
  });

  it('refuses an .exe renamed .pdf with 415 and leaves nothing on disk', async () => {
    const key = await newRequest('013up0000004');
    const before = filesUnder(uploadsDir);
    const res = await upload('013up0000004', key, [{ field: 'other', name: 'facture.pdf', content: SAMPLES.exe, type: 'application/pdf' }]);
    expect(res.statusCode).toBe(415);
    expect(res.json().error.message).toBe("Le fichier « facture.pdf » n’est pas accepté : seuls les PDF, JPEG et PNG le sont.");
    expect(await documentRows('013up0000004')).toHaveLength(0);
    expect(filesUnder(uploadsDir)).toEqual(before);
  });

  it('refuses a PNG named .pdf (content and extension disagree) and a .docx, with 415', async () => {
    const key = await newRequest('013up0000005');
    const mismatch = await upload('013up0000005', key, [{ field: 'other', name: 'scan.pdf', content: SAMPLES.png }]);
    expect(mismatch.statusCode).toBe(415);
    expect(mismatch.json().error.code).toBe('FILE_TYPE_MISMATCH');
    const docx = await upload('013up0000005', key, [{ field: 'other', name: 'lettre.docx', content: SAMPLES.pdf }]);
    expect(docx.statusCode).toBe(415);
  });

  it('keeps a call all-or-nothing: one bad file among good ones stores none of them', async () => {
    const key = await newRequest('013up0000006');
    const before = filesUnder(uploadsDir);
    const res = await upload('013up0000006', key, [
      { field: 'livret', name: 'ok.pdf', content: SAMPLES.pdf },
      { field: 'identity', name: 'ok.png', content: SAMPLES.png },
      { field: 'other', name: 'virus.png', content: SAMPLES.exe },
    ]);
    expect(res.statusCode).toBe(415);
    expect(await documentRows('013up0000006')).toHaveLength(0);
    expect(filesUnder(uploadsDir)).toEqual(before);
  });

  it('refuses a 50 MB upload with 413 and leaves nothing on disk', async () => {
    const key = await newRequest('013up0000007');
    const before = filesUnder(uploadsDir);
    const big = Buffer.alloc(50 * 1024 * 1024, 0x20);
    SAMPLES.pdf.copy(big);
    const res = await upload('013up0000007', key, [{ field: 'salary', name: 'gros.pdf', content: big }]);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.message).toBe('Le fichier « gros.pdf » dépasse la taille maximale de 10 Mo.');
    expect(await documentRows('013up0000007')).toHaveLength(0);
    expect(filesUnder(uploadsDir)).toEqual(before);
  });

  it('refuses more than 20 files in one call with 413', async () => {
    const key = await newRequest('013up0000008');
    const files = Array.from({ length: 21 }, (_, i) => ({ field: 'other', name: `p${i}.pdf`, content: SAMPLES.pdf }));
    const res = await upload('013up0000008', key, files);
    expect(res.statusCode).toBe(413);
    expect(res.json().error.message).toBe('Vous pouvez envoyer au plus 20 fichiers à la fois.');
    expect(await documentRows('013up0000008')).toHaveLength(0);
  });

  it('accepts exactly 20 files', async () => {
    const key = await newRequest('013up0000009');
    const files = Array.from({ length: 20 }, (_, i) => ({ field: 'other', name: `p${i}.pdf`, content: SAMPLES.pdf }));
    expect((await upload('013up0000009', key, files)).statusCode).toBe(201);
    expect(await documentRows('013up0000009')).toHaveLength(20);
  });

  it('stores names with ../ and unicode safely inside the request folder', async () => {
    const key = await newRequest('013up0000010');
    const res = await upload('013up0000010', key, [
      { field: 'other', name: '../../../etc/passwd.pdf', content: SAMPLES.pdf },
      { field: 'other', name: '..\\..\\boot.ini.pdf', content: SAMPLES.pdf },
      { field: 'other', name: 'Avis d’impôt 2025 — Hélène 日本.pdf', content: SAMPLES.pdf },
    ]);
    expect(res.statusCode).toBe(201);
    const rows = await documentRows('013up0000010');
    for (const row of rows) {
      const full = path.resolve(uploadsDir, row.storageKey);
      expect(full.startsWith(uploadsDir + path.sep)).toBe(true);
      expect(fs.existsSync(full)).toBe(true);
      expect(row.storageKey).not.toContain('..');
    }
    expect(rows.map((r) => r.originalName).sort()).toEqual(['Avis d’impôt 2025 — Hélène 日本.pdf', 'boot.ini.pdf', 'passwd.pdf']);
    expect(rows.map((r) => path.basename(r.storageKey)).sort()).toEqual(['other-Avis_d_impôt_2025_Hélène_日本.pdf', 'other-boot.ini.pdf', 'other-passwd.pdf']);
    expect(fs.existsSync(path.join(ctx.dataDir, 'etc'))).toBe(false);
  });

  it('refuses an unknown block, an empty file and a call without files', async () => {
    const key = await newRequest('013up0000011');
    const unknown = await upload('013up0000011', key, [{ field: 'photos', name: 'a.pdf', content: SAMPLES.pdf }]);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error.code).toBe('UNKNOWN_CATEGORY');
    const empty = await upload('013up0000011', key, [{ field: 'other', name: 'vide.pdf', content: Buffer.alloc(0) }]);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toBe('Le fichier « vide.pdf » est vide.');
    const nothing = await upload('013up0000011', key, []);
    expect(nothing.statusCode).toBe(400);
    const json = await ctx.app.inject({ method: 'POST', url: '/app/api/logement/upload-files/013up0000011', headers: { 'x-access-key': key }, payload: { a: 1 } });
    expect(json.statusCode).toBe(415);
    expect(await documentRows('013up0000011')).toHaveLength(0);
  });
});

describe('GET /logement/:numeroUnique/documents/:id', () => {
  let key: string;
  let docId: string;
  beforeAll(async () => {
    key = await newRequest('013doc000001');
    const res = await upload('013doc000001', key, [{ field: 'tax', name: 'Avis; impôt — 2025.pdf', content: SAMPLES.pdf }]);
    docId = res.json().data.documents.tax[0].id;
  });

  it('streams the document with its type, a safe Content-Disposition and nosniff', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013doc000001/documents/${docId}`, headers: { 'x-access-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(SAMPLES.pdf)).toBe(true);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('private, no-store');
    const disposition = String(res.headers['content-disposition']);
    expect(disposition).toMatch(/^inline; filename="[^"\r\n]*"; filename\*=UTF-8''[\w%.-]+$/u);
    expect(contentDisposition.parse(disposition).parameters.filename).toBe('Avis; impôt — 2025.pdf');

    const dl = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013doc000001/documents/${docId}?download=1`, headers: { 'x-access-key': key } });
    expect(String(dl.headers['content-disposition'])).toMatch(/^attachment;/u);
  });

  it('refuses without the key and with a wrong key', async () => {
    const none = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013doc000001/documents/${docId}` });
    expect(none.statusCode).toBe(403);
    expect(none.body).not.toContain('%PDF');
    const wrong = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013doc000001/documents/${docId}`, headers: { 'x-access-key': 'nope' } });
    expect(wrong.statusCode).toBe(403);
  });

  it('does not serve a document through another request, even with that request’s key', async () => {
    const otherKey = await newRequest('013doc000002');
    const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013doc000002/documents/${docId}`, headers: { 'x-access-key': otherKey } });
    expect(res.statusCode).toBe(404);
  });

  it('answers 404 for an unknown document id and 400 for a malformed one', async () => {
    for (const [id, status] of [['00000000-0000-4000-8000-000000000000', 404], ['pas-un-id', 400]] as const) {
      const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013doc000001/documents/${id}`, headers: { 'x-access-key': key } });
      expect(res.statusCode).toBe(status);
      expect(res.json().error.message).toBe("Ce document n’existe pas pour cette demande.");
    }
  });
});

describe('file names', () => {
  it('sanitises without losing letters of any script', () => {
    expect(safeFileName('../../x.pdf')).toBe('x.pdf');
    expect(safeFileName('.hidden.pdf')).toBe('hidden.pdf');
    expect(safeFileName('a<b>c|d?.PNG')).toBe('a_b_c_d.png');
    expect(safeFileName('???.pdf')).toBe('document.pdf');
    expect(safeFileName(`${'é'.repeat(300)}.pdf`)).toBe(`${'é'.repeat(80)}.pdf`);
    // Letters of 4 bytes: as many as fit in 180 bytes, so that the stored name stays within a disk's 255 bytes.
    expect(safeFileName(`${'𠀀'.repeat(90)}.pdf`)).toBe(`${'𠀀'.repeat(45)}.pdf`);
  });

  it('stores and serves a document named with 90 letters of 4 bytes (a name past a disk’s 255 bytes gave a 500)', async () => {
    const key = await newRequest('013nomlong01');
    const nom = `${'𝐀'.repeat(90)}.pdf`;
    const res = await upload('013nomlong01', key, [{ field: 'tax', name: nom, content: SAMPLES.pdf }]);
    expect(res.statusCode, res.body).toBe(201);
    const doc = res.json().data.documents.tax[0] as { id: string; name: string };
    expect(doc.name).toBe(nom);
    const lu = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/013nomlong01/documents/${doc.id}`, headers: { 'x-access-key': key } });
    expect(lu.statusCode).toBe(200);
    expect(lu.rawPayload.equals(SAMPLES.pdf)).toBe(true);
  });
});

// --- Per-request quota (docs/produit.md « Documents ») ---

/** A PDF of exactly `size` bytes (a valid header, then blanks). */
function pdfOfSize(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x20);
  SAMPLES.pdf.copy(bytes);
  return bytes;
}

describe('per-request document quota', () => {
  let q: TestContext;
  let qUploads: string;
  beforeAll(async () => {
    q = await createTestApp({ UPLOAD_QUOTA_FICHIERS: '3', UPLOAD_QUOTA_MB: '1', UPLOAD_MAX_MB: '1' });
    qUploads = path.join(q.dataDir, 'uploads');
  });
  afterAll(async () => {
    await q.close();
  });

  async function qRequest(numeroUnique: string): Promise<string> {
    const res = await q.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique }) });
    expect(res.statusCode).toBe(201);
    return res.json().data.accessKey as string;
  }
  async function qUpload(numero: string, key: string, files: Parameters<typeof multipart>[0]) {
    const body = await multipart(files);
    return q.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': key }, payload: body.payload });
  }
  const rowsOf = (numero: string) =>
    q.app.deps.db
      .selectFrom('documents')
      .innerJoin('housingRequests', 'housingRequests.id', 'documents.housingRequestId')
      .select(['documents.id', 'documents.size'])
      .where('housingRequests.numeroUnique', '=', numero)
      .execute();
  const pdfs = (n: number) => Array.from({ length: n }, (_, i) => ({ field: 'other', name: `p${i}.pdf`, content: SAMPLES.pdf }));

  it('tells the web app the quota in /parametres', async () => {
    const res = await q.app.inject({ method: 'GET', url: '/app/api/parametres' });
    expect(res.json().data.quotaDocuments).toEqual({ fichiers: 3, octets: 1024 * 1024 });
  });

  it('refuses the files past the count quota with 413 in French, keeping nothing of the refused call', async () => {
    const key = await qRequest('013quota0001');
    expect((await qUpload('013quota0001', key, pdfs(2))).statusCode).toBe(201);
    const before = filesUnder(qUploads);

    const over = await qUpload('013quota0001', key, pdfs(2));
    expect(over.statusCode).toBe(413);
    expect(over.json().error).toEqual({
      code: 'QUOTA_FICHIERS',
      message: 'Une demande compte au plus 3 documents et celle-ci en a déjà 2 : envoyez-en au plus 1 cette fois.',
    });
    expect(await rowsOf('013quota0001')).toHaveLength(2);
    expect(filesUnder(qUploads)).toEqual(before);

    expect((await qUpload('013quota0001', key, pdfs(1))).statusCode).toBe(201);
    const full = await qUpload('013quota0001', key, pdfs(1));
    expect(full.statusCode).toBe(413);
    expect(full.json().error).toEqual({ code: 'QUOTA_FICHIERS', message: 'Cette demande a déjà 3 documents, le maximum par demande : aucun autre ne peut être ajouté.' });
    expect(await rowsOf('013quota0001')).toHaveLength(3);
  });

  it('refuses the bytes past the size quota with 413 in French, mid-stream, keeping nothing of the refused call', async () => {
    const key = await qRequest('013quota0002');
    expect((await qUpload('013quota0002', key, [{ field: 'tax', name: 'a.pdf', content: pdfOfSize(600 * 1024) }])).statusCode).toBe(201);
    const before = filesUnder(qUploads);

    const over = await qUpload('013quota0002', key, [{ field: 'tax', name: 'b.pdf', content: pdfOfSize(600 * 1024) }]);
    expect(over.statusCode).toBe(413);
    expect(over.json().error).toEqual({
      code: 'QUOTA_OCTETS',
      message: 'Ces fichiers dépasseraient les 1 Mo de documents permis par demande : il reste 424 Ko pour cette demande.',
    });
    expect(await rowsOf('013quota0002')).toHaveLength(1);
    expect(filesUnder(qUploads)).toEqual(before);

    // Exactly what is left fits; then the request is full and a further call is refused before reading.
    expect((await qUpload('013quota0002', key, [{ field: 'tax', name: 'c.pdf', content: pdfOfSize(424 * 1024) }])).statusCode).toBe(201);
    const full = await qUpload('013quota0002', key, [{ field: 'tax', name: 'd.pdf', content: SAMPLES.pdf }]);
    expect(full.statusCode).toBe(413);
    expect(full.json().error).toEqual({ code: 'QUOTA_OCTETS', message: 'Les documents de cette demande occupent déjà 1 Mo, le maximum par demande : aucun autre ne peut être ajouté.' });
    expect((await rowsOf('013quota0002')).reduce((n, r) => n + Number(r.size), 0)).toBe(1024 * 1024);
  });

  /** Sends the headers and the first `sent` bytes of an upload's body, then waits without ending it. */
  async function partialUpload(numero: string, key: string, file: Buffer, sent: number): Promise<{ status: number; body: string } | 'no answer'> {
    const body = await multipart([{ field: 'tax', name: 'lent.pdf', content: file }]);
    const address = await q.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => `http://127.0.0.1:${(q.app.server.address() as { port: number }).port}`);
    const port = Number(new URL(address).port);
    return new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'content-length': body.payload.length, 'x-access-key': key } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => {
          resolve({ status: res.statusCode!, body: text });
          req.destroy();
        });
      });
      req.on('error', () => undefined);
      req.write(body.payload.subarray(0, sent));
      setTimeout(() => {
        resolve('no answer');
        req.destroy();
      }, 3000);
    });
  }

  it('records nothing for a request erased while its upload was under way, and keeps none of its files', async () => {
    const key = await qRequest('013efface001');
    const { id } = await q.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013efface001').executeTakeFirstOrThrow();
    const body = await multipart([{ field: 'tax', name: 'avis.pdf', content: SAMPLES.pdf }]);
    const address = await q.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => `http://127.0.0.1:${(q.app.server.address() as { port: number }).port}`);
    const before = filesUnder(qUploads).length;
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: Number(new URL(address).port), method: 'POST', path: '/app/api/logement/upload-files/013efface001', headers: { ...body.headers, 'content-length': body.payload.length, 'x-access-key': key } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        },
      );
      req.on('error', reject);
      // The headers and all but the body's last bytes: the route has read the request; then a manager erases it.
      req.write(body.payload.subarray(0, body.payload.length - 20));
      setTimeout(() => {
        const { db, dbKind, storage, mailer, bus } = q.app.deps;
        effacerDemande({ repository: new DemandesRepository(db, dbKind), storage, mailer, bus }, id, 'gestionnaire', null, new Date())
          .then(() => req.end(body.payload.subarray(body.payload.length - 20)))
          .catch(reject);
      }, 300);
    });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).error.code).toBe('NOT_FOUND');
    expect(await q.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).execute()).toEqual([]);
    expect(filesUnder(qUploads).length).toBe(before);
  });

  it('answers 413 as soon as the bytes pass what is left, without waiting for the rest of the body', async () => {
    const key = await qRequest('013quota0004');
    expect((await qUpload('013quota0004', key, [{ field: 'tax', name: 'a.pdf', content: pdfOfSize(900 * 1024) }])).statusCode).toBe(201);
    // 200 KB of a 1 MB file are enough to pass the 124 KB left: the answer comes with the body unfinished.
    const answer = await partialUpload('013quota0004', key, pdfOfSize(1000 * 1024), 200 * 1024);
    expect(answer).not.toBe('no answer');
    expect(answer !== 'no answer' && [answer.status, JSON.parse(answer.body).error.code]).toEqual([413, 'QUOTA_OCTETS']);
    expect(await rowsOf('013quota0004')).toHaveLength(1);
  });

  it('answers 413 before reading the body when the request is already full', async () => {
    const key = await qRequest('013quota0005');
    expect((await qUpload('013quota0005', key, pdfs(3))).statusCode).toBe(201);
    const answer = await partialUpload('013quota0005', key, SAMPLES.pdf, 10);
    expect(answer !== 'no answer' && [answer.status, JSON.parse(answer.body).error.code]).toEqual([413, 'QUOTA_FICHIERS']);
  });

  it('lets only one of several simultaneous uploads fill the last places', async () => {
    const key = await qRequest('013quota0003');
    const before = filesUnder(qUploads).length;
    const answers = await Promise.all([1, 2, 3, 4].map(() => qUpload('013quota0003', key, pdfs(2))));
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 413, 413, 413]);
    expect(await rowsOf('013quota0003')).toHaveLength(2);
    expect(filesUnder(qUploads).length).toBe(before + 2);
  });
});
