import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../src/domain/erreurs.js';
import { arreterArrierePlan, enArrierePlan, enArrierePlanCedant } from '../src/server/worker/index.js';
import { createTestApp, demande, type TestContext } from './helpers.js';

// The attestation PDF, the inspection of uploaded PDFs and the e-mails' composition run on a background
// thread (src/server/worker): a failure there must answer and retry as the same failure did in place.
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

describe('work on the background thread', () => {
  it('keeps a task sent to a new thread when the one stopped just before ends meanwhile', async () => {
    expect(await enArrierePlan('motDePasseTropFacile', 'motdepasse', {})).toBe(true);
    // Stopped as after a quiet minute: it ends a few turns later, after the next task has started another thread.
    arreterArrierePlan();
    expect(await enArrierePlan('motDePasseTropFacile', 'un jardin sous la pluie fine', {})).toBe(false);
  });

  it('rejects with the error thrown there, its kind and message kept', async () => {
    const bad = { numeroUnique: '013arriere1', prenom: 'A', nom: 'B', dateDEnregistrement: 'pas une date', valideJusqua: 'pas une date' };
    const error = await enArrierePlan('attestation', bad, new Date().toISOString()).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.name).toBe('RangeError');
    expect(error!.message).toBe('Invalid time value');
    // The thread still serves the next task.
    const pdf = await enArrierePlan('attestation', { ...bad, dateDEnregistrement: '2026-01-02T10:00:00.000Z', valideJusqua: '2027-01-02T10:00:00.000Z' }, new Date().toISOString());
    expect(Buffer.from(pdf).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('hands a PDF over to the thread rather than copying it: its bytes leave this thread, and are inspected there alike', async () => {
    const octets = () => new Uint8Array(Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >> >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'));
    const copie = await enArrierePlan('inspecterPdf', octets());
    const cede = octets();
    expect(await enArrierePlanCedant('inspecterPdf', [cede.buffer], cede)).toEqual(copie);
    expect(copie).toMatchObject({ ok: false, raison: 'actif' });
    // Handed over: nothing left here (a 10 MB PDF is not held twice).
    expect(cede.buffer.byteLength).toBe(0);
  });

  it('answers a failed attestation with the usual 500 in French, and keeps its e-mail to try again with the error', async () => {
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013arriere2', email: 'arriere@example.org' }) });
    expect(created.statusCode).toBe(201);
    const { id, accessKey } = created.json().data as { id: string; accessKey: string };
    // A row the PDF cannot be written from: its validity is no date.
    await ctx.app.deps.db.updateTable('housingRequests').set({ valideJusqua: 'pas une date' }).where('id', '=', id).execute();

    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013arriere2/attestation.pdf', headers: { 'x-access-key': accessKey } });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ error: { code: 'INTERNAL', message: MESSAGES.inattendue } });

    await ctx.app.deps.mailer.idle();
    const row = await ctx.app.deps.db.selectFrom('mailOutbox').selectAll().where('recipient', '=', 'arriere@example.org').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ attempts: 1, sentAt: null, claimedAt: null, lastError: 'Invalid time value' });
    expect(Date.parse(row.sendAfter)).toBeGreaterThan(Date.now());
  });
});
