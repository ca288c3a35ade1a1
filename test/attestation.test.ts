import { randomUUID } from 'node:crypto';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatJour } from '../src/domain/dates.js';
import { USER_FILE_HEADERS } from '../src/server/features/demandes/routes.js';
import { createTestApp, demande, mailsTo, type TestContext } from './helpers.js';

let ctx: TestContext;
let horloge = new Date('2026-03-04T09:30:00.000Z');

beforeAll(async () => {
  ctx = await createTestApp({}, { now: () => horloge });
});
afterAll(async () => {
  await ctx.close();
});

async function texte(pdf: Buffer): Promise<string> {
  const doc = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(doc, { mergePages: true });
  return text;
}

/** The PDF attached to an .eml (base64 part of type application/pdf), or null. */
function pieceJointe(eml: string): Buffer | null {
  const part = /Content-Type: application\/pdf[^\n]*\n(?:[^\n]+\n)*\n([A-Za-z0-9+/=\n]+)/u.exec(eml.replace(/\r\n/gu, '\n'));
  return part ? Buffer.from(part[1]!.replace(/\n/gu, ''), 'base64') : null;
}

describe("attestation d'enregistrement", () => {
  it('is a dated PDF with the numéro, the name, the dates and the office, for the key holder only', async () => {
    horloge = new Date('2026-03-04T09:30:00.000Z');
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013attest001', prenom: 'Françoise', nom: 'Lefèvre-Ćosić', email: 'francoise@example.org' }) });
    expect(created.statusCode, created.body).toBe(201);
    const key = created.json().data.accessKey as string;
    horloge = new Date('2026-04-15T12:00:00.000Z');
    const res = await ctx.app.inject({ url: '/app/api/logement/013attest001/attestation.pdf', headers: { 'x-access-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="attestation-enregistrement-013attest001.pdf"');
    for (const [name, value] of Object.entries(USER_FILE_HEADERS)) expect(res.headers[name.toLowerCase()]).toBe(value);
    const text = await texte(res.rawPayload);
    expect(text).toContain('Attestation d’enregistrement de demande de logement social');
    expect(text).toContain('Numéro unique : 013attest001');
    // Ć is not in the standard fonts' encoding: written without its accent.
    expect(text).toContain('Demandeur : Françoise Lefèvre-Cosic');
    expect(text).toContain(`Date d’enregistrement : ${formatJour('2026-03-04T09:30:00.000Z')}`);
    expect(text).toContain(`Valable jusqu’au : ${formatJour('2027-03-04T09:30:00.000Z')}`);
    expect(text).toContain('Mairie annexe du Jas de Bouffan');
    expect(text).toContain('Fait à Aix-en-Provence, le 15/04/2026.');

    expect((await ctx.app.inject({ url: '/app/api/logement/013attest001/attestation.pdf' })).statusCode).toBe(403);
    expect((await ctx.app.inject({ url: '/app/api/logement/013attest001/attestation.pdf', headers: { 'x-access-key': 'x'.repeat(43) } })).statusCode).toBe(403);
  });

  it('is attached to the first e-mail, composed when the mail leaves', async () => {
    horloge = new Date('2026-05-06T07:00:00.000Z');
    const created = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013attest002', email: 'joelle@example.org', prenom: 'Joëlle', nom: 'Dupré' }) });
    expect(created.statusCode).toBe(201);
    const row = await ctx.app.deps.db.selectFrom('mailOutbox').select('piecesJointes').where('recipient', '=', 'joelle@example.org').executeTakeFirstOrThrow();
    expect(JSON.parse(row.piecesJointes!)).toEqual([{ type: 'attestation', demandeId: created.json().data.id }]);
    const [mail] = await mailsTo(ctx, 'joelle@example.org');
    const pdf = pieceJointe(mail!);
    expect(pdf).not.toBeNull();
    expect(mail).toContain('filename=attestation-enregistrement-013attest002.pdf');
    const text = await texte(pdf!);
    expect(text).toContain('Numéro unique : 013attest002');
    expect(text).toContain('Demandeur : Joëlle Dupré');
    expect(text).toContain('Fait à Aix-en-Provence, le 06/05/2026.');
  });

  it('leaves without its attachment when the request is gone by then', async () => {
    await ctx.app.deps.db
      .insertInto('mailOutbox')
      .values({
        id: randomUUID(),
        recipient: 'parti@example.org',
        subject: 'Votre demande de logement est enregistrée',
        body: 'Bonjour',
        createdAt: new Date().toISOString(),
        sendAfter: new Date().toISOString(),
        attempts: 0,
        piecesJointes: JSON.stringify([{ type: 'attestation', demandeId: randomUUID() }]),
      })
      .execute();
    const [mail] = await mailsTo(ctx, 'parti@example.org');
    expect(mail).toContain('Bonjour');
    expect(pieceJointe(mail!)).toBeNull();
  });
});
