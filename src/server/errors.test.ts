import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numeroUniqueParamsSchema } from '../domain/demande.js';
import { MESSAGES } from '../domain/erreurs.js';
import { z } from '../domain/zod.js';
import { ApiError, clientErrorHandler, errorBody, frameworkErrors, hasNulByte, installErrorHandlers, nulByteError } from './errors.js';

/**
 * The error contract (docs/api.md): whatever goes wrong, the answer is `{ error: { code, message, fields? } }`
 * with the right status, in French, never a stack trace. A bare Fastify app with the app's error
 * handlers and zod compilers: no database is involved in mapping errors.
 */

interface LogLine {
  level: number;
  msg: string;
  err?: { message: string };
  cause?: unknown;
}

let app: FastifyInstance;
const logs: LogLine[] = [];
let aLancer: unknown;

beforeAll(async () => {
  app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) } },
    frameworkErrors,
    routerOptions: { maxParamLength: 40 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandlers(app);
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/formulaire',
    {
      schema: {
        body: z.object({
          nom: z.string({ error: 'Le nom manque.' }),
          age: z.number({ error: "L’âge est un nombre." }),
          code: z.string().min(5, { error: 'Code trop court.' }).regex(/^x/u, { error: 'Le code commence par x.' }).optional(),
          enfants: z.array(z.string({ error: 'Un prénom par enfant.' })).optional(),
        }),
      },
    },
    async () => ({ ok: true }),
  );
  api.post(
    '/mixte',
    {
      schema: {
        body: z.object({ a: z.string().optional() }).superRefine((_, ctx) => {
          ctx.addIssue({ code: 'custom', message: 'Le tout ne va pas.', path: [] });
          ctx.addIssue({ code: 'custom', message: 'Le champ a ne va pas.', path: ['a'] });
        }),
      },
    },
    async () => ({ ok: true }),
  );
  api.get('/recherche', { schema: { querystring: z.object({ page: z.coerce.number({ error: 'La page doit être un nombre.' }) }) } }, async () => ({ ok: true }));
  api.get('/logement/:numeroUnique', { schema: { params: numeroUniqueParamsSchema } }, async (request) => ({ numero: request.params.numeroUnique }));
  api.get('/erreur', async () => {
    throw aLancer;
  });
  api.get('/reponse', { schema: { response: { 200: z.object({ a: z.string() }) } } }, async () => ({ a: 1 }) as never);
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

/** Fails after 2 s instead of waiting for ever for an answer that never comes. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after 2 s`)), 2000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The answer to a request whose route throws `error`. */
async function lancer(error: unknown) {
  aLancer = error;
  logs.length = 0;
  const res = await within(app.inject({ method: 'GET', url: '/erreur' }), 'GET /erreur');
  return { status: res.statusCode, body: res.json() as unknown };
}

const withCode = (code: string) => Object.assign(new Error('boom'), { code });

describe('errors of the app', () => {
  it('sends an ApiError as it is, with its fields when it has some', async () => {
    expect(await lancer(new ApiError(409, 'DUPLICATE', 'Déjà là.', { numeroUnique: 'Déjà là.' }))).toEqual({
      status: 409,
      body: { error: { code: 'DUPLICATE', message: 'Déjà là.', fields: { numeroUnique: 'Déjà là.' } } },
    });
    expect(await lancer(new ApiError(404, 'NOT_FOUND', 'Introuvable.'))).toEqual({ status: 404, body: { error: { code: 'NOT_FOUND', message: 'Introuvable.' } } });
  });

  it('builds ApiErrors and bodies of the documented shape', () => {
    const error = new ApiError(403, 'FORBIDDEN', 'Non.', { a: 'b' });
    expect(error).toBeInstanceOf(Error);
    expect([error.statusCode, error.code, error.message, error.fields]).toEqual([403, 'FORBIDDEN', 'Non.', { a: 'b' }]);
    expect(errorBody('X', 'Y')).toEqual({ error: { code: 'X', message: 'Y' } });
    expect(errorBody('X', 'Y', {})).toEqual({ error: { code: 'X', message: 'Y', fields: {} } });
    const nul = nulByteError();
    expect([nul.statusCode, nul.code, nul.message]).toEqual([400, 'NUL_BYTE', 'La requête contient un caractère nul, refusé.']);
  });
});

describe('validation errors', () => {
  it('answers a form body with the form message and one message per field, the first of each', async () => {
    const res = await app.inject({ method: 'POST', url: '/formulaire', payload: { age: 'dix', code: 'ab', enfants: ['Léa', 3] } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: {
        code: 'VALIDATION',
        message: 'Le formulaire contient des erreurs : corrigez les champs signalés.',
        fields: { nom: 'Le nom manque.', age: "L’âge est un nombre.", code: 'Code trop court.', enfants: 'Un prénom par enfant.' },
      },
    });
  });

  it('answers a body that is not an object with the message about the whole', async () => {
    const res = await app.inject({ method: 'POST', url: '/formulaire', payload: '"texte"', headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(Object.keys(error.fields)).toEqual(['_']);
    expect(error).toEqual({ code: 'VALIDATION', message: error.fields._, fields: { _: expect.any(String) } });
    expect(error.message).not.toBe(MESSAGES.validation);
  });

  it('keeps the form message when a body has a message about the whole and one about a field', async () => {
    const res = await app.inject({ method: 'POST', url: '/mixte', payload: { a: 'x' } });
    expect(res.json()).toEqual({
      error: { code: 'VALIDATION', message: MESSAGES.validation, fields: { _: 'Le tout ne va pas.', a: 'Le champ a ne va pas.' } },
    });
  });

  it("answers a bad query parameter with that parameter's own message", async () => {
    const res = await app.inject({ method: 'GET', url: '/recherche?page=abc' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: { code: 'VALIDATION', message: 'La page doit être un nombre.', fields: { page: 'La page doit être un nombre.' } } });
  });

  it('uses the code a refinement names: 400 INVALID_NUMERO for a malformed numéro in a path', async () => {
    const res = await app.inject({ method: 'GET', url: '/logement/01-3' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: { code: 'INVALID_NUMERO', message: 'Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.', fields: { numeroUnique: 'Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.' } },
    });
    expect((await app.inject({ method: 'GET', url: '/logement/013%20ABC%20123' })).json()).toEqual({ numero: '013abc123' });
  });

  it('answers a validation error that is not from zod with the generic message, no fields', async () => {
    expect(await lancer(Object.assign(new Error('v'), { validation: [{ instancePath: '/a', message: 'm' }], statusCode: 400 }))).toEqual({
      status: 400,
      body: { error: { code: 'VALIDATION', message: 'La requête contient des valeurs invalides.' } },
    });
  });
});

describe("framework and plugins' errors", () => {
  const KNOWN: [string, number, string, string][] = [
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'INVALID_JSON', "Le contenu envoyé n’est pas un JSON valide."],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'INVALID_JSON', 'Le contenu envoyé est vide.'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE', "Ce type de contenu n’est pas accepté."],
    ['FST_ERR_CTP_INVALID_TYPE', 400, 'BAD_REQUEST', "Le type de contenu annoncé n’est pas valide."],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'TOO_LARGE', 'Le contenu envoyé est trop volumineux.'],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'BAD_REQUEST', 'La taille annoncée du contenu est incorrecte.'],
    ['FST_ERR_BAD_URL', 400, 'BAD_REQUEST', "L’adresse demandée est mal formée."],
    ['FST_ERR_MAX_PARAM_LENGTH', 414, 'URI_TOO_LONG', "L’adresse demandée est trop longue."],
    ['FST_ERR_ASYNC_CONSTRAINT', 400, 'BAD_REQUEST', 'La requête est incorrecte.'],
    ['FST_INVALID_MULTIPART_CONTENT_TYPE', 415, 'UNSUPPORTED_MEDIA_TYPE', 'Les fichiers doivent être envoyés en multipart/form-data.'],
    ['FST_PARTS_LIMIT', 413, 'TOO_MANY_PARTS', 'Le formulaire envoyé contient trop de parties.'],
    ['FST_FIELDS_LIMIT', 413, 'TOO_MANY_PARTS', 'Le formulaire envoyé contient trop de champs.'],
    ['FST_PROTO_VIOLATION', 400, 'BAD_REQUEST', 'Nom de champ refusé.'],
  ];

  it.each(KNOWN)('answers %s with %i %s in French', async (code, status, apiCode, message) => {
    expect(await lancer(withCode(code))).toEqual({ status, body: { error: { code: apiCode, message } } });
  });

  it('maps the real parser and router errors', async () => {
    const json = await app.inject({ method: 'POST', url: '/formulaire', payload: '{"nom":', headers: { 'content-type': 'application/json' } });
    expect([json.statusCode, json.json().error.code]).toEqual([400, 'INVALID_JSON']);
    const badUrl = await app.inject({ method: 'GET', url: '/logement/%E0%A4%A' });
    expect([badUrl.statusCode, badUrl.json()]).toEqual([400, { error: { code: 'BAD_REQUEST', message: "L’adresse demandée est mal formée." } }]);
    const long = await app.inject({ method: 'GET', url: `/logement/${'a'.repeat(41)}` });
    expect([long.statusCode, long.json()]).toEqual([414, { error: { code: 'URI_TOO_LONG', message: "L’adresse demandée est trop longue." } }]);
  });

  it("answers busboy's malformed multipart bodies with 400, and only those", async () => {
    const attendu = { status: 400, body: { error: { code: 'BAD_REQUEST', message: "L’envoi des fichiers est incomplet ou mal formé. Réessayez." } } };
    for (const message of ['Multipart: Boundary not found', 'Malformed part header', 'Unexpected end of form', 'Unexpected end of file', 'Part terminated early']) {
      expect(await lancer(new Error(message)), message).toEqual(attendu);
    }
    for (const message of ['Multipart:Boundary', 'Erreur Multipart: x', 'Not a Malformed part header', 'Unexpected end', 'The part terminated early', 'Part terminated']) {
      expect((await lancer(new Error(message))).status, message).toBe(500);
    }
  });

  it('answers 429 as too many attempts', async () => {
    expect(await lancer(Object.assign(new Error('rate'), { statusCode: 429 }))).toEqual({
      status: 429,
      body: { error: { code: 'RATE_LIMITED', message: 'Trop de tentatives en peu de temps. Patientez quelques minutes puis réessayez.' } },
    });
  });

  it('keeps the status of other client errors, with a generic French message, and logs them as info', async () => {
    for (const status of [400, 404, 499]) {
      expect(await lancer(Object.assign(new Error(`client ${status}`), { statusCode: status }))).toEqual({
        status,
        body: { error: { code: 'BAD_REQUEST', message: 'La requête est incorrecte.' } },
      });
      expect(logs.filter((l) => l.msg === 'client error').map((l) => [l.level, l.err?.message])).toEqual([[30, `client ${status}`]]);
    }
  });
});

describe('server errors', () => {
  it('answers anything else with 500 INTERNAL, never the message or the stack, and logs it', async () => {
    for (const error of [new Error('secret /srv/app.js:12'), Object.assign(new Error('secret 399'), { statusCode: 399 }), Object.assign(new Error('secret 500'), { statusCode: 500 })]) {
      const { status, body } = await lancer(error);
      expect(status).toBe(500);
      expect(body).toEqual({ error: { code: 'INTERNAL', message: 'Une erreur inattendue est survenue. Réessayez dans un instant.' } });
      expect(logs.filter((l) => l.msg === 'unexpected error').map((l) => [l.level, l.err?.message])).toEqual([[50, error.message]]);
    }
  });

  it('answers an answer that does not match its schema with 500, logging why', async () => {
    logs.length = 0;
    const res = await app.inject({ method: 'GET', url: '/reponse' });
    expect([res.statusCode, res.json()]).toEqual([500, { error: { code: 'INTERNAL', message: MESSAGES.inattendue } }]);
    const line = logs.find((l) => l.msg === 'answer does not match its schema');
    expect(line?.level).toBe(50);
    expect(line?.err?.message).toMatch(/^Response doesn't match the schema/u);
    expect(line?.cause).toMatchObject({ name: '$ZodError', message: expect.stringContaining('invalid_type') });
    expect(logs.some((l) => l.msg === 'unexpected error')).toBe(false);
  });
});

describe('a full or unwritable storage', () => {
  const errno = (code: string, syscall?: string) => Object.assign(new Error(`${code}: ${syscall ?? 'library'}`), { code, ...(syscall ? { syscall } : {}) });

  it('answers 507 DISK_FULL for a full disk, file system, SQLite or PostgreSQL, even as the cause of another error', async () => {
    const full = [
      errno('ENOSPC', 'write'),
      errno('EDQUOT', 'write'),
      errno('EFBIG', 'write'),
      errno('SQLITE_FULL'),
      errno('53100'),
      new Error('wrapped', { cause: new Error('again', { cause: errno('SQLITE_FULL') }) }),
      new AggregateError([new Error('other'), errno('ENOSPC', 'open')], 'several'),
    ];
    for (const error of full) {
      const res = await lancer(error);
      expect(res).toEqual({ status: 507, body: { error: { code: 'DISK_FULL', message: MESSAGES.disquePlein } } });
      expect(logs.filter((l) => l.msg === 'stockage plein : envoi refusé').map((l) => l.level)).toEqual([50]);
    }
  });

  it('answers 503 STORAGE_UNAVAILABLE, with Retry-After, for a read-only or failing storage', async () => {
    const unavailable = [
      errno('EROFS', 'open'),
      errno('EIO', 'write'),
      errno('EACCES', 'open'),
      errno('EPERM', 'rename'),
      errno('SQLITE_READONLY'),
      errno('SQLITE_READONLY_DBMOVED'),
      errno('SQLITE_IOERR_WRITE'),
      errno('SQLITE_CANTOPEN'),
      errno('25006'),
    ];
    for (const error of unavailable) {
      aLancer = error;
      const res = await app.inject({ method: 'GET', url: '/erreur' });
      expect([res.statusCode, res.json(), res.headers['retry-after']]).toEqual([503, { error: { code: 'STORAGE_UNAVAILABLE', message: MESSAGES.stockageIndisponible } }, '120']);
    }
  });

  it('leaves other errors alone: a permission code from a library (no system call) is a fault of ours', async () => {
    for (const error of [errno('EACCES'), errno('SQLITE_CONSTRAINT'), errno('ECONNREFUSED', 'connect'), new Error('cannot rollback - no transaction is active')]) {
      expect((await lancer(error)).status).toBe(500);
    }
  });
});

describe('NUL characters', () => {
  it('finds a NUL in a string, an array, a value or a key of an object, at any depth', () => {
    expect(hasNulByte('a\u0000b')).toBe(true);
    expect(hasNulByte(['a', 'b\u0000'])).toBe(true);
    expect(hasNulByte({ a: 'x', b: { c: ['y', '\u0000'] } })).toBe(true);
    expect(hasNulByte({ 'cl\u0000e': 'x' })).toBe(true);
  });

  it('finds none in clean values, whatever their type', () => {
    for (const value of ['', 'abc', '\\u0000', ['a', 'b'], [], { a: 'x', b: [1, null] }, {}, null, undefined, 0, 12, true, false]) {
      expect(hasNulByte(value), JSON.stringify(value)).toBe(false);
    }
  });
});

/** A real TCP connection: the server side is handed to the handler, the client side records what it receives. */
async function connexion() {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const socket = await accepted;
  const socketErrors: NodeJS.ErrnoException[] = [];
  socket.on('error', (error) => socketErrors.push(error));
  client.on('error', () => {});
  const chunks: Buffer[] = [];
  client.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => client.on('close', () => resolve()));
  return {
    socket,
    socketErrors,
    /** Everything the client received, once the connection is closed. */
    received: async () => {
      try {
        await within(closed, 'the end of the connection');
        return Buffer.concat(chunks).toString('utf8');
      } finally {
        client.destroy();
        server.close();
      }
    },
  };
}

const parserError = (code: string) => Object.assign(new Error(code), { code }) as NodeJS.ErrnoException;

function parseHttp(raw: string) {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  const [statusLine, ...headers] = head.split('\r\n');
  return { statusLine, headers, body: JSON.parse(body) as unknown, bodyBytes: Buffer.byteLength(body) };
}

describe("Node's HTTP parser errors", () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 'HTTP/1.1 431 Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'Les en-têtes de la requête sont trop volumineux.'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'HTTP/1.1 408 Request Timeout', 'TIMEOUT', 'La requête a mis trop de temps à arriver. Réessayez.'],
    ['HPE_INVALID_METHOD', 'HTTP/1.1 400 Bad Request', 'BAD_REQUEST', 'La requête est incorrecte.'],
  ])('answers %s with a JSON error, then closes the connection', async (code, statusLine, apiCode, message) => {
    const c = await connexion();
    clientErrorHandler(parserError(code), c.socket);
    const answer = parseHttp(await c.received());
    expect(answer.statusLine).toBe(statusLine);
    expect(answer.headers).toEqual(['Content-Type: application/json; charset=utf-8', `Content-Length: ${answer.bodyBytes}`, 'Connection: close']);
    expect(answer.body).toEqual({ error: { code: apiCode, message } });
    expect(c.socket.destroyed).toBe(true);
    expect(c.socketErrors.map((e) => e.code)).toEqual([code]);
  });

  it('leaves a connection reset by the client alone', async () => {
    const c = await connexion();
    clientErrorHandler(parserError('ECONNRESET'), c.socket);
    expect(c.socket.destroyed).toBe(false);
    c.socket.end('fin');
    expect(await c.received()).toBe('fin');
  });

  it('writes nothing on a connection already closed or no longer writable', async () => {
    const closed = await connexion();
    closed.socket.destroy();
    clientErrorHandler(parserError('HPE_INVALID_METHOD'), closed.socket);
    expect(await closed.received()).toBe('');

    const ended = await connexion();
    ended.socket.end();
    clientErrorHandler(parserError('HPE_INVALID_METHOD'), ended.socket);
    expect(await ended.received()).toBe('');
    expect(ended.socket.destroyed).toBe(true);
    expect(ended.socketErrors.map((e) => e.code)).toEqual(['HPE_INVALID_METHOD']);
  });
});
