import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import contentDisposition from 'content-disposition';
import { PDFDocument, PDFName, PDFString } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, demande, filesUnder, multipart, type TestContext } from './helpers.js';

// PDFs with active content are refused at upload (docs/decisions/0012); user files are served sandboxed.
let ctx: TestContext;
let uploadsDir: string;
beforeAll(async () => {
  ctx = await createTestApp();
  uploadsDir = path.join(ctx.dataDir, 'uploads');
});
afterAll(async () => {
  await ctx.close();
});

let serial = 0;
async function newRequest(): Promise<{ numero: string; key: string }> {
  serial += 1;
  const numero = `013pdf${String(serial).padStart(6, '0')}`;
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: numero }) });
  expect(res.statusCode).toBe(201);
  return { numero, key: res.json().data.accessKey as string };
}

async function send(content: Uint8Array | { field: string; name: string; content: Uint8Array }[], name = 'avis.pdf') {
  const { numero, key } = await newRequest();
  const before = filesUnder(uploadsDir);
  const body = await multipart(content instanceof Uint8Array ? [{ field: 'tax', name, content }] : content);
  const res = await ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numero}`, headers: { ...body.headers, 'x-access-key': key }, payload: body.payload });
  const rows = await ctx.app.deps.db
    .selectFrom('documents')
    .innerJoin('housingRequests', 'housingRequests.id', 'documents.housingRequestId')
    .select('documents.id')
    .where('housingRequests.numeroUnique', '=', numero)
    .execute();
  return { res, rows, unchangedOnDisk: JSON.stringify(filesUnder(uploadsDir)) === JSON.stringify(before), numero, key };
}

/** A one-page PDF made by pdf-lib; `objectStreams` packs its objects into compressed object streams. */
async function pdfLib(objectStreams: boolean, add?: (doc: PDFDocument) => void): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 200]);
  add?.(doc);
  return doc.save({ useObjectStreams: objectStreams });
}

const openActionJs = (doc: PDFDocument) =>
  doc.catalog.set(PDFName.of('OpenAction'), doc.context.register(doc.context.obj({ Type: 'Action', S: 'JavaScript', JS: PDFString.of('app.alert(1)') })));

/**
 * A PDF written by hand from its objects' bodies, with a correct cross-reference: a classic table, or,
 * when some objects sit in an object stream (`inStream`: object number → [stream's number, index]; their
 * body here is null), a cross-reference stream as PDF 1.5 has it.
 */
function handWritten(objects: (string | Buffer | null)[], trailer: string, inStream = new Map<number, [number, number]>()): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((body, i) => {
    offsets.push(length);
    if (body === null) return;
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n')]);
    parts.push(chunk);
    length += chunk.length;
  });
  if (inStream.size === 0) {
    const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
    parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
    return Buffer.concat(parts);
  }
  // Entries of 1 + 4 + 2 bytes: type, offset (or object stream number), generation (or index).
  const self = objects.length + 1;
  const rows = [[0, 0, 65535], ...offsets.map((o, i) => (inStream.has(i + 1) ? [2, ...inStream.get(i + 1)!] : [1, o, 0])), [1, length, 0]];
  const data = Buffer.concat(rows.map(([t, a, b]) => Buffer.from([t!, (a! >>> 24) & 255, (a! >>> 16) & 255, (a! >>> 8) & 255, a! & 255, (b! >> 8) & 255, b! & 255])));
  parts.push(
    Buffer.from(`${self} 0 obj\n<< /Type /XRef /Size ${self + 1} /W [1 4 2] ${trailer} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${length}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

const PAGES = ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'];

/** An object stream holding object 5, as a stream body (`data` already filtered/encrypted by the caller). */
function objectStreamBody(data: Buffer, headerLength: number): Buffer {
  return Buffer.concat([Buffer.from(`<< /Type /ObjStm /N 1 /First ${headerLength} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);
}

// The standard security handler, revision 4 with AES-128, as a "protected against changes" PDF has it:
// no password to open it, an owner password for the rest (ISO 32000-2, 7.6.4).
const PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');
function rc4(key: Buffer, data: Buffer): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i += 1) {
    j = (j + s[i]! + key[i % key.length]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n += 1) {
    i = (i + 1) & 255;
    j = (j + s[i]!) & 255;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 255]!;
  }
  return out;
}

/** A PDF encrypted with AES-128 (empty user password) whose object 5, the OpenAction, sits in an encrypted, compressed object stream. */
function encryptedWithObjectStream(action: string, userPassword = '', abime = false): Buffer {
  const id = randomBytes(16);
  const o = randomBytes(32);
  const p = Buffer.alloc(4);
  p.writeInt32LE(-1084);
  const padded = Buffer.concat([Buffer.from(userPassword, 'latin1'), PADDING]).subarray(0, 32);
  let key = createHash('md5').update(Buffer.concat([padded, o, p, id])).digest();
  for (let i = 0; i < 50; i += 1) key = createHash('md5').update(key).digest();
  let u = rc4(key, createHash('md5').update(Buffer.concat([PADDING, id])).digest());
  for (let i = 1; i <= 19; i += 1) u = rc4(Buffer.from(key.map((b) => b ^ i)), u);
  u = Buffer.concat([u, Buffer.alloc(16)]);
  const objectKey = createHash('md5').update(Buffer.concat([key, Buffer.from([4, 0, 0, 0, 0]), Buffer.from('sAlT')])).digest();
  const header = '5 0 ';
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', objectKey, iv);
  const data = Buffer.concat([iv, cipher.update(deflateSync(Buffer.from(header + action, 'latin1'))), cipher.final()]);
  // Damaged: the last block changed, its padding no longer reads.
  if (abime) data.writeUInt8(data.readUInt8(data.length - 1) ^ 0xff, data.length - 1);
  const hex = (b: Buffer) => `<${b.toString('hex')}>`;
  return handWritten(
    [
      '<< /Type /Catalog /Pages 2 0 R /OpenAction 5 0 R >>',
      ...PAGES,
      objectStreamBody(data, header.length),
      // Object 5 lives in the object stream.
      null,
      `<< /Filter /Standard /V 4 /R 4 /Length 128 /CF << /StdCF << /CFM /AESV2 /AuthEvent /DocOpen /Length 16 >> >> /StmF /StdCF /StrF /StdCF /O ${hex(o)} /U ${hex(u)} /P -1084 >>`,
    ],
    `/Root 1 0 R /Encrypt 6 0 R /ID [${hex(id)} ${hex(id)}]`,
    new Map([[5, [4, 0]]]),
  );
}

describe('PDFs with active content', () => {
  it('refuses a PDF whose OpenAction runs JavaScript, with 415 in French, storing nothing', async () => {
    const { res, rows, unchangedOnDisk } = await send(await pdfLib(false, openActionJs));
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('PDF_ACTIVE_CONTENT');
    expect(res.json().error.message).toBe(
      'Le fichier « avis.pdf » contient du contenu actif (script, action automatique ou fichier joint) : il est refusé par sécurité. ' +
        'Imprimez-le en PDF (menu Imprimer, puis « Enregistrer au format PDF ») ou scannez de nouveau le document papier, puis envoyez ce nouveau fichier.',
    );
    expect(rows).toHaveLength(0);
    expect(unchangedOnDisk).toBe(true);
  });

  it('refuses JavaScript hidden in a compressed object stream', async () => {
    const bytes = await pdfLib(true, openActionJs);
    // A byte scan would not see it: the action is compressed.
    expect(Buffer.from(bytes).toString('latin1')).not.toContain('JavaScript');
    const { res, rows, unchangedOnDisk } = await send(bytes);
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('PDF_ACTIVE_CONTENT');
    expect(rows).toHaveLength(0);
    expect(unchangedOnDisk).toBe(true);
  });

  it('refuses a Launch action and a name spelled with #-escapes', async () => {
    const launch = await pdfLib(true, (doc) => doc.catalog.set(PDFName.of('OpenAction'), doc.context.obj({ S: 'Launch', F: PDFString.of('calc.exe') })));
    const escaped = handWritten(['<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /J#61vaScript /J#53 (app.alert\\(1\\)) >> >>', ...PAGES], '/Root 1 0 R');
    for (const bytes of [launch, escaped]) {
      const { res, rows, unchangedOnDisk } = await send(bytes);
      expect(res.statusCode).toBe(415);
      expect(res.json().error.code).toBe('PDF_ACTIVE_CONTENT');
      expect(rows).toHaveLength(0);
      expect(unchangedOnDisk).toBe(true);
    }
  });

  it('refuses an embedded file', async () => {
    const bytes = await pdfLib(true, (doc) => {
      const file = doc.context.register(doc.context.flateStream('MZ', { Type: 'EmbeddedFile' }));
      const spec = doc.context.obj({ Type: 'Filespec', F: PDFString.of('x.exe'), EF: { F: file } });
      doc.catalog.set(PDFName.of('Names'), doc.context.obj({ EmbeddedFiles: { Names: [PDFString.of('x.exe'), spec] } }));
    });
    const { res, rows } = await send(bytes);
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('PDF_ACTIVE_CONTENT');
    expect(rows).toHaveLength(0);
  });

  it('accepts a plain PDF, with or without object streams, and one that opens at its first page', async () => {
    const goTo = (doc: PDFDocument) => doc.catalog.set(PDFName.of('OpenAction'), doc.context.obj([doc.getPage(0).ref, PDFName.of('Fit')]));
    for (const bytes of [await pdfLib(false), await pdfLib(true), await pdfLib(true, goTo)]) {
      const { res, rows } = await send(bytes);
      expect(res.statusCode).toBe(201);
      expect(rows).toHaveLength(1);
    }
  });

  it('checks a PDF too large to be held in memory (written to its temp file first): refused with JavaScript, kept when clean', async () => {
    // An unused stream of 400 KB: past the 256 KB a temp file holds in memory (storage/ecriture.ts).
    const lourd = (doc: PDFDocument) => void doc.context.register(doc.context.stream(new Uint8Array(400 * 1024).fill(0x20)));
    const hostile = await pdfLib(false, (doc) => {
      lourd(doc);
      openActionJs(doc);
    });
    expect(hostile.length).toBeGreaterThan(400 * 1024);
    const refused = await send(hostile);
    expect([refused.res.statusCode, refused.res.json().error.code]).toEqual([415, 'PDF_ACTIVE_CONTENT']);
    expect(refused.rows).toHaveLength(0);
    expect(refused.unchangedOnDisk).toBe(true);
    const clean = await send(await pdfLib(false, lourd));
    expect(clean.res.statusCode).toBe(201);
    expect(clean.rows).toHaveLength(1);
  });

  it('keeps none of a call whose second PDF is refused: the first, clean, is neither recorded nor left on disk', async () => {
    for (const grand of [false, true]) {
      const clean = await pdfLib(false, grand ? (doc) => void doc.context.register(doc.context.stream(new Uint8Array(300 * 1024))) : undefined);
      const { res, rows, unchangedOnDisk } = await send([
        { field: 'tax', name: 'avis.pdf', content: clean },
        { field: 'identity', name: 'piece.pdf', content: await pdfLib(true, openActionJs) },
      ]);
      expect([res.statusCode, res.json().error.code]).toEqual([415, 'PDF_ACTIVE_CONTENT']);
      expect(res.json().error.message).toContain('« piece.pdf »');
      expect(rows).toHaveLength(0);
      expect(unchangedOnDisk).toBe(true);
    }
  });

  it('reads an encrypted PDF that opens without a password: accepted when clean, refused with JavaScript in its encrypted object stream', async () => {
    const clean = await send(encryptedWithObjectStream('<< /S /GoTo /D [3 0 R /Fit] >>'));
    expect(clean.res.statusCode).toBe(201);
    const hostile = encryptedWithObjectStream('<< /S /JavaScript /JS (app.alert\\(1\\)) >>');
    expect(hostile.toString('latin1')).not.toContain('JavaScript');
    const refused = await send(hostile);
    expect(refused.res.statusCode).toBe(415);
    expect(refused.res.json().error.code).toBe('PDF_ACTIVE_CONTENT');
    expect(refused.rows).toHaveLength(0);
    expect(refused.unchangedOnDisk).toBe(true);
  });

  it('refuses an encrypted PDF whose encrypted part is damaged as unreadable (415 in French), not with a 500', async () => {
    const { res, rows } = await send(encryptedWithObjectStream('<< /S /GoTo /D [3 0 R /Fit] >>', '', true));
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('PDF_UNREADABLE');
    expect(res.json().error.message).toMatch(/^Le fichier « avis\.pdf » n’a pas pu être vérifié\./u);
    expect(rows).toHaveLength(0);
  });

  it('refuses a PDF that needs a password to open, saying why', async () => {
    const { res, rows } = await send(encryptedWithObjectStream('<< /S /GoTo /D [3 0 R /Fit] >>', 'secret'));
    expect(res.statusCode).toBe(415);
    expect(res.json().error.code).toBe('PDF_PROTECTED');
    expect(res.json().error.message).toMatch(/^Le fichier « avis\.pdf » est protégé par un mot de passe : la mairie annexe ne pourrait pas l’ouvrir\./u);
    expect(rows).toHaveLength(0);
  });
});

describe('user files are served sandboxed', () => {
  const sandbox = "sandbox; default-src 'none'; frame-ancestors 'none'";

  it('serves a document and the zip with CSP sandbox, nosniff and no-store; the zip and download=1 as attachments', async () => {
    const { res, numero, key } = await send(await pdfLib(true));
    const id = res.json().data.documents.tax[0].id as string;
    const doc = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}/documents/${id}`, headers: { 'x-access-key': key } });
    const dl = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}/documents/${id}?download=1`, headers: { 'x-access-key': key } });
    const zip = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numero}/documents.zip`, headers: { 'x-access-key': key } });
    for (const answer of [doc, dl, zip]) {
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-security-policy']).toBe(sandbox);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['cache-control']).toBe('private, no-store');
    }
    expect(contentDisposition.parse(String(doc.headers['content-disposition'])).type).toBe('inline');
    expect(contentDisposition.parse(String(dl.headers['content-disposition'])).type).toBe('attachment');
    expect(contentDisposition.parse(String(zip.headers['content-disposition'])).type).toBe('attachment');
  });
});
