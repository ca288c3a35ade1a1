import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { PDFArray, PDFContext, PDFDict, PDFHexString, PDFName, PDFNumber, PDFObjectParser, PDFRawStream, PDFRef, PDFString, type PDFObject } from 'pdf-lib';

/**
 * Looks for active content in a PDF (docs/decisions/0012): scripts, actions that launch programs, submit
 * forms or open other files, embedded files, rich media, XFA forms. A housing request needs none of
 * them, and a manager opens these files on the town hall's computers.
 *
 * Every indirect object is read, wherever it sits: each `N G obj` of the file (older revisions and
 * objects no cross-reference points to included, so that what a reader might use is never skipped),
 * and each object of every object stream, decompressed (bounded) and, for an encrypted file, decrypted
 * when it opens without a password (the usual "protected against changes" PDF). Names are compared
 * decoded (`/J#61vaScript` is `/JavaScript`).
 */
export type VerdictPdf =
  | { ok: true }
  | { ok: false; raison: 'actif'; detail: string }
  | { ok: false; raison: 'motDePasse' }
  | { ok: false; raison: 'illisible'; detail: string };

/** Keys whose mere presence means active content. */
const ACTIVE_KEYS = new Set(['JS', 'JavaScript', 'EmbeddedFiles', 'EF', 'RichMedia', 'RichMediaContent', 'RichMediaExecute', 'XFA']);
/** Names (as a value: an action's /S, a /Type, a /Subtype) that mean active content. */
const ACTIVE_NAMES = new Set(['JavaScript', 'Launch', 'SubmitForm', 'ImportData', 'GoToR', 'GoToE', 'RichMedia', 'RichMediaExecute', 'EmbeddedFile', 'FileAttachment']);
/** The same, looked for in the bytes of an object the parser could not read. */
const RAW_ACTIVE = /\/(?:JS|JavaScript|EmbeddedFiles?|EF|RichMedia\w*|XFA|Launch|SubmitForm|ImportData|GoTo[RE]|FileAttachment)(?![^\s()<>[\]{}/%])/u;

/** Decompressed object-stream bytes allowed per file (a zip bomb stops here). */
const MAX_DECODED = 64 * 1024 * 1024;
/** Object headers read per file. */
const MAX_OBJECTS = 500_000;

class Illisible extends Error {}

function nameOf(object: PDFObject | undefined): string | undefined {
  if (!(object instanceof PDFName)) return undefined;
  // asBytes decodes every #xx escape (PDFName.of decodes only upper-case ones).
  return Buffer.from(object.asBytes()).toString('latin1');
}

function bytesOf(object: PDFObject | undefined): Buffer | undefined {
  if (object instanceof PDFString || object instanceof PDFHexString) return Buffer.from(object.asBytes());
  return undefined;
}

/** Why a direct object is active, or undefined. Walks nested dictionaries and arrays without recursion. */
function activeIn(root: PDFObject, stringsReadable: boolean): string | undefined {
  const stack: PDFObject[] = [root];
  let steps = 0;
  while (stack.length > 0) {
    if ((steps += 1) > 1_000_000) throw new Illisible('objet trop imbriqué');
    const object = stack.pop()!;
    const dict = object instanceof PDFRawStream ? object.dict : object;
    if (dict instanceof PDFDict) {
      for (const [key, value] of dict.entries()) {
        const k = nameOf(key)!;
        if (ACTIVE_KEYS.has(k)) return `/${k}`;
        const v = nameOf(value);
        if (v !== undefined && ACTIVE_NAMES.has(v) && (k === 'S' || k === 'Type' || k === 'Subtype')) return `/${k} /${v}`;
        if (k === 'URI' && stringsReadable && /^\s*(?:javascript|vbscript|data|file):/iu.test(bytesOf(value)?.toString('latin1') ?? '')) return '/URI javascript:';
        if (value instanceof PDFDict || value instanceof PDFArray) stack.push(value);
      }
    } else if (object instanceof PDFArray) {
      for (const item of object.asArray()) if (item instanceof PDFDict || item instanceof PDFArray) stack.push(item);
    }
  }
  return undefined;
}

// --- Standard security handler, for files that open without a password (ISO 32000-2, 7.6.4) ---

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

function aesCbc(key: Buffer, data: Buffer): Buffer {
  if (data.length < 32 || data.length % 16 !== 0) return Buffer.alloc(0);
  // A key of another length (a /Length the file states wrongly) or padding that does not read (a damaged file).
  if (key.length !== 16 && key.length !== 32) throw new Illisible('clé de chiffrement de longueur inattendue');
  try {
    const decipher = createDecipheriv(key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc', key, data.subarray(0, 16));
    return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
  } catch {
    throw new Illisible('partie chiffrée abîmée');
  }
}

/** Algorithm 2.B (revision 6) with the empty password. */
function hashR6(salt: Buffer, udata: Buffer): Buffer {
  let k = createHash('sha256').update(Buffer.concat([salt, udata])).digest();
  for (let round = 0; ; round += 1) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => Buffer.concat([k, udata])));
    const e = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32)).setAutoPadding(false).update(k1);
    let sum = 0;
    for (let i = 0; i < 16; i += 1) sum += e[i]!;
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3]!).update(e).digest();
    if (round >= 63 && e[e.length - 1]! <= round - 31) break;
  }
  return k.subarray(0, 32);
}

type Decrypt = (objectNumber: number, generation: number, data: Buffer) => Buffer;

/** The stream decryption of a file that opens without a password; throws 'motDePasse' otherwise. */
function securityHandler(encrypt: PDFDict, id0: Buffer): Decrypt {
  const num = (k: string) => (encrypt.get(PDFName.of(k)) instanceof PDFNumber ? (encrypt.get(PDFName.of(k)) as PDFNumber).asNumber() : undefined);
  if (nameOf(encrypt.get(PDFName.of('Filter'))) !== 'Standard') throw new Illisible('chiffrement inconnu');
  const v = num('V') ?? 0;
  const r = num('R') ?? 0;
  const o = bytesOf(encrypt.get(PDFName.of('O')));
  const u = bytesOf(encrypt.get(PDFName.of('U')));
  if (!o || !u) throw new Illisible('chiffrement incomplet');

  // Which method encrypts streams: RC4, AES-128, AES-256 or none (Identity).
  let method: 'rc4' | 'aes' | 'none' = 'rc4';
  if (v >= 4) {
    const stmF = nameOf(encrypt.get(PDFName.of('StmF'))) ?? 'Identity';
    if (stmF === 'Identity') method = 'none';
    else {
      const cf = encrypt.lookup(PDFName.of('CF'));
      const filter = cf instanceof PDFDict ? cf.lookup(PDFName.of(stmF)) : undefined;
      const cfm = filter instanceof PDFDict ? nameOf(filter.get(PDFName.of('CFM'))) : undefined;
      method = cfm === 'AESV2' || cfm === 'AESV3' ? 'aes' : cfm === 'V2' ? 'rc4' : cfm === 'None' ? 'none' : 'rc4';
    }
  }

  if (r >= 5) {
    const ue = bytesOf(encrypt.get(PDFName.of('UE')));
    if (u.length < 48 || !ue || ue.length < 32) throw new Illisible('chiffrement incomplet');
    const check = r === 5 ? createHash('sha256').update(u.subarray(32, 40)).digest() : hashR6(u.subarray(32, 40), Buffer.alloc(0));
    if (!check.equals(u.subarray(0, 32))) throw new MotDePasse();
    const intermediate = r === 5 ? createHash('sha256').update(u.subarray(40, 48)).digest() : hashR6(u.subarray(40, 48), Buffer.alloc(0));
    const fileKey = createDecipheriv('aes-256-cbc', intermediate, Buffer.alloc(16)).setAutoPadding(false).update(ue.subarray(0, 32));
    return (_n, _g, data) => (method === 'none' ? data : aesCbc(fileKey, data));
  }

  const length = r === 2 ? 5 : Math.max(5, Math.min(16, Math.floor((num('Length') ?? 40) / 8)));
  const p = Buffer.alloc(4);
  // /P is a signed 32-bit value, written signed or unsigned depending on the producer.
  p.writeUInt32LE((num('P') ?? 0) >>> 0);
  const encryptMetadata = encrypt.get(PDFName.of('EncryptMetadata'))?.toString() !== 'false';
  let key = createHash('md5')
    .update(Buffer.concat([PADDING, o.subarray(0, 32), p, id0, r >= 4 && !encryptMetadata ? Buffer.from([255, 255, 255, 255]) : Buffer.alloc(0)]))
    .digest();
  if (r >= 3) for (let i = 0; i < 50; i += 1) key = createHash('md5').update(key.subarray(0, length)).digest();
  key = key.subarray(0, length);
  // The empty user password is right when it reproduces /U (algorithms 4 and 5).
  let expected: Buffer;
  if (r === 2) expected = rc4(key, PADDING);
  else {
    expected = rc4(key, createHash('md5').update(Buffer.concat([PADDING, id0])).digest());
    for (let i = 1; i <= 19; i += 1) expected = rc4(Buffer.from(key.map((b) => b ^ i)), expected);
  }
  if (!expected.subarray(0, r === 2 ? 32 : 16).equals(u.subarray(0, r === 2 ? 32 : 16))) throw new MotDePasse();
  return (n, g, data) => {
    if (method === 'none') return data;
    const salt = Buffer.from([n & 255, (n >> 8) & 255, (n >> 16) & 255, g & 255, (g >> 8) & 255]);
    const objectKey = createHash('md5')
      .update(Buffer.concat([key, salt, method === 'aes' ? Buffer.from('sAlT') : Buffer.alloc(0)]))
      .digest()
      .subarray(0, Math.min(length + 5, 16));
    return method === 'aes' ? aesCbc(objectKey, data) : rc4(objectKey, data);
  };
}

class MotDePasse extends Error {}

// --- Reading ---

interface TopObject {
  number: number;
  generation: number;
  object: PDFObject;
}

function parseAt(bytes: Uint8Array, context: PDFContext): PDFObject {
  return PDFObjectParser.forBytes(bytes, context).parseObject();
}

/** The bytes of an object stream, decrypted and decompressed (FlateDecode or none, no predictor). */
function objectStreamBytes(stream: PDFRawStream, top: TopObject, decrypt: Decrypt | undefined, budget: { left: number }): Buffer {
  let data: Buffer = Buffer.from(stream.contents);
  if (decrypt) data = decrypt(top.number, top.generation, data);
  const filter = stream.dict.get(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray().map(nameOf) : filter === undefined ? [] : [nameOf(filter)];
  const parms = stream.dict.lookup(PDFName.of('DecodeParms'));
  if (parms !== undefined && !(parms instanceof PDFDict && parms.get(PDFName.of('Predictor')) === undefined)) throw new Illisible('flux compressé non lu');
  for (const f of filters) {
    if (f !== 'FlateDecode' && f !== 'Fl') throw new Illisible(`flux compressé par ${f ?? '?'}`);
    try {
      data = inflateSync(data, { maxOutputLength: budget.left });
    } catch (error) {
      if (error instanceof RangeError) throw new Illisible('flux trop volumineux une fois décompressé');
      throw new Illisible('flux compressé illisible');
    }
  }
  budget.left -= data.length;
  return data;
}

/** The objects of an object stream (its header lists each object's number and offset). */
function objectsInStream(stream: PDFRawStream, data: Buffer, context: PDFContext): PDFObject[] {
  const n = (stream.dict.get(PDFName.of('N')) as PDFNumber | undefined)?.asNumber?.() ?? 0;
  const first = (stream.dict.get(PDFName.of('First')) as PDFNumber | undefined)?.asNumber?.() ?? 0;
  const header = data.subarray(0, first).toString('latin1').trim().split(/\s+/u).map(Number);
  const offsets: number[] = [];
  for (let i = 0; i < Math.min(n, header.length / 2); i += 1) offsets.push(header[2 * i + 1]!);
  const sorted = [...offsets].sort((a, b) => a - b);
  return offsets.map((offset) => {
    const next = sorted.find((o) => o > offset) ?? data.length - first;
    const slice = data.subarray(first + offset, first + next);
    try {
      return parseAt(slice, context);
    } catch {
      const raw = RAW_ACTIVE.exec(slice.toString('latin1'));
      if (raw) throw new Actif(raw[0]);
      return PDFName.of('Illisible');
    }
  });
}

class Actif extends Error {}

export function inspectPdf(input: Uint8Array): VerdictPdf {
  try {
    return inspect(Buffer.from(input.buffer, input.byteOffset, input.byteLength));
  } catch (error) {
    if (error instanceof Actif) return { ok: false, raison: 'actif', detail: error.message };
    if (error instanceof MotDePasse) return { ok: false, raison: 'motDePasse' };
    if (error instanceof Illisible) return { ok: false, raison: 'illisible', detail: error.message };
    // The parser recursing past the stack on deeply nested arrays or dictionaries.
    if (error instanceof RangeError && /call stack/u.test(error.message)) return { ok: false, raison: 'illisible', detail: 'structure trop profonde' };
    throw error;
  }
}

function inspect(bytes: Buffer): VerdictPdf {
  const text = bytes.toString('latin1');
  const context = PDFContext.create();
  const headers = [...text.matchAll(/(?<![\d.])(\d{1,10})[\0\t\n\f\r ]+(\d{1,5})[\0\t\n\f\r ]+obj(?![A-Za-z])/gu)];
  if (headers.length > MAX_OBJECTS) throw new Illisible("trop d’objets");

  // 1. Every object the file holds at top level, each read within its own stretch of bytes.
  const tops: TopObject[] = [];
  for (const [i, match] of headers.entries()) {
    const start = match.index + match[0].length;
    const end = headers[i + 1]?.index ?? bytes.length;
    const slice = bytes.subarray(start, end);
    try {
      tops.push({ number: Number(match[1]), generation: Number(match[2]), object: parseAt(slice, context) });
    } catch {
      // Unreadable here (or a false header inside binary data): its plain bytes up to endobj are searched.
      const stop = slice.indexOf('endobj');
      const raw = RAW_ACTIVE.exec(slice.subarray(0, stop < 0 ? Math.min(slice.length, 65536) : stop).toString('latin1'));
      if (raw) return { ok: false, raison: 'actif', detail: raw[0] };
    }
  }

  // 2. Encryption, from the classic trailers and the cross-reference streams.
  const trailers: PDFDict[] = [];
  for (const match of text.matchAll(/trailer[\0\t\n\f\r ]*(?=<<)/gu)) {
    try {
      const dict = parseAt(bytes.subarray(match.index + match[0].length), context);
      if (dict instanceof PDFDict) trailers.push(dict);
    } catch {
      // A broken trailer: readers rebuild without it.
    }
  }
  for (const { object } of tops) {
    if (object instanceof PDFRawStream && nameOf(object.dict.get(PDFName.of('Type'))) === 'XRef') trailers.push(object.dict);
  }
  let decrypt: Decrypt | undefined;
  const encryptEntry = trailers.map((t) => t.get(PDFName.of('Encrypt'))).find((e) => e !== undefined);
  if (encryptEntry) {
    const encrypt =
      encryptEntry instanceof PDFRef
        ? tops.findLast((t) => t.number === encryptEntry.objectNumber && t.generation === encryptEntry.generationNumber)?.object
        : encryptEntry;
    if (!(encrypt instanceof PDFDict)) throw new Illisible('dictionnaire de chiffrement introuvable');
    const ids = trailers.map((t) => t.get(PDFName.of('ID'))).find((e) => e instanceof PDFArray) as PDFArray | undefined;
    decrypt = securityHandler(encrypt, bytesOf(ids?.get(0)) ?? Buffer.alloc(0));
  }

  // 3. Every object, those inside object streams included.
  const budget = { left: MAX_DECODED };
  for (const top of tops) {
    const found = activeIn(top.object, decrypt === undefined);
    if (found) return { ok: false, raison: 'actif', detail: found };
    if (top.object instanceof PDFRawStream && nameOf(top.object.dict.get(PDFName.of('Type'))) === 'ObjStm') {
      const data = objectStreamBytes(top.object, top, decrypt, budget);
      for (const inner of objectsInStream(top.object, data, context)) {
        const active = activeIn(inner, true);
        if (active) return { ok: false, raison: 'actif', detail: active };
      }
    }
  }
  return { ok: true };
}
