import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../src/domain/erreurs.js';
import { createTestApp, demande, multipart, SAMPLES, type TestContext } from './helpers.js';
import { demarrerS3, type ServeurS3 } from './s3.js';

/**
 * STORAGE=s3 when the bucket's service stops answering (test/s3.ts, stopped mid-file): sending or reading a
 * document answers 503 STORAGE_UNAVAILABLE in French with Retry-After, never a 500, and records nothing; what
 * does not need the bucket (the request itself) goes on.
 */
let s3: ServeurS3;
let ctx: TestContext;
let arrete = false;

beforeAll(async () => {
  s3 = await demarrerS3();
  ctx = await createTestApp(s3.env);
});
afterAll(async () => {
  await ctx?.close();
  if (!arrete) await s3?.close();
});

describe('documents when the S3 service is down', () => {
  it('answers 503 with a French message to an upload and a download, keeps nothing, and still shows the request', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande() });
    expect(created.statusCode, created.body).toBe(201);
    const { id, numeroUnique, accessKey } = created.json().data as { id: string; numeroUnique: string; accessKey: string };
    const envoi = async () => {
      const body = await multipart([{ field: 'livret', name: 'livret.pdf', content: SAMPLES.pdf }]);
      return ctx.app.inject({ method: 'POST', url: `/app/api/logement/upload-files/${numeroUnique}`, headers: { ...body.headers, 'x-access-key': accessKey }, payload: body.payload });
    };
    expect((await envoi()).statusCode).toBe(201);
    const doc = await ctx.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).executeTakeFirstOrThrow();

    await s3.close();
    arrete = true;

    const refuse = await envoi();
    expect([refuse.statusCode, refuse.json(), refuse.headers['retry-after']]).toEqual([
      503,
      { error: { code: 'STORAGE_UNAVAILABLE', message: MESSAGES.stockageDistantIndisponible } },
      '120',
    ]);
    expect(await ctx.app.deps.db.selectFrom('documents').select('id').where('housingRequestId', '=', id).execute()).toHaveLength(1);

    const lu = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}/documents/${doc.id}`, headers: { 'x-access-key': accessKey } });
    expect([lu.statusCode, lu.json().error.code]).toEqual([503, 'STORAGE_UNAVAILABLE']);

    const vue = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${numeroUnique}`, headers: { 'x-access-key': accessKey } });
    expect(vue.statusCode).toBe(200);
    expect(vue.json().data.documents.livret).toHaveLength(1);
  });
});
