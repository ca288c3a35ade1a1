import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, demande, type TestContext } from './helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestApp();
});
afterAll(async () => {
  await ctx.close();
});

async function create(body: unknown, url = '/app/api/logement') {
  return ctx.app.inject({ method: 'POST', url, payload: body as object });
}

describe('POST /logement and /logement/add', () => {
  it('creates a request with the form defaults, normalised numéro and e-mail, text kept as typed', async () => {
    const res = await create(demande({ numeroUnique: ' 013 ABC 123456 ', prenom: '  Hélène ', email: ' Helene@Example.ORG ' }));
    expect(res.statusCode).toBe(201);
    const { data } = res.json();
    expect(data).toMatchObject({
      acces: 'complet',
      numeroUnique: '013abc123456',
      prenom: 'Hélène',
      email: 'helene@example.org',
      statutDeLaDemande: 'En attente des documents',
      situationFamiliale: 'celibataire',
      nombreDEnfants: 0,
      logementActuel: 'sans domicile fixe',
      typeDeLogementActuel: 'studio',
      bailleurActuel: 'pah',
      typeDeLogementSouhaite: 'studio',
      quartierSouhaite: [],
      documents: { livret: [], identity: [], tax: [], salary: [], other: [] },
    });
    expect(typeof data.id).toBe('string');
    expect(new Date(data.dateDEnregistrement).toISOString()).toBe(data.dateDEnregistrement);

    const row = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '013abc123456').executeTakeFirstOrThrow();
    expect(row.prenom).toBe('Hélène');
    expect(row.email).toBe('helene@example.org');
    const events = await ctx.app.deps.db.selectFrom('statusEvents').selectAll().where('housingRequestId', '=', row.id).execute();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ fromStatus: null, toStatus: 'En attente des documents' });
  });

  it('answers the private link once: ≥128-bit key, only its hash stored, key in the URL fragment', async () => {
    const res = await create(demande({ numeroUnique: '013link000001' }));
    const { data } = res.json();
    expect(Buffer.from(data.accessKey, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(data.privateLink).toBe(`http://quartier.test/logement/013link000001#cle=${data.accessKey}`);
    const row = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '013link000001').executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(data.accessKey);

    const again = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013link000001', headers: { 'x-access-key': data.accessKey } });
    expect(again.json().data).not.toHaveProperty('accessKey');
    expect(again.json().data).not.toHaveProperty('privateLink');
  });

  it('e-mails the private link to the request’s address', async () => {
    const res = await create(demande({ numeroUnique: '013mail000001', email: 'mail.test@example.org' }));
    const { data } = res.json();
    await ctx.app.deps.mailer.idle();
    const mailDir = path.join(ctx.dataDir, 'mail');
    const mails = fs.readdirSync(mailDir).map((f) => fs.readFileSync(path.join(mailDir, f), 'utf8'));
    const mail = mails.find((m) => m.includes('To: mail.test@example.org'));
    expect(mail).toBeDefined();
    // Quoted-printable may fold long lines: unfold before looking for the link.
    const unfolded = mail!.replace(/=\r?\n/gu, '').replace(/=3D/gu, '=');
    expect(unfolded).toContain(data.privateLink);
  });

  it('accepts the same body on /logement/add', async () => {
    const res = await create(demande({ numeroUnique: '013add0000001' }), '/app/api/logement/add');
    expect(res.statusCode).toBe(201);
    expect(res.json().data.numeroUnique).toBe('013add0000001');
  });

  it('refuses missing required fields with French per-field messages', async () => {
    const res = await create({ numeroUnique: '013missing01' });
    expect(res.statusCode).toBe(400);
    const { error } = res.json();
    expect(error.code).toBe('VALIDATION');
    expect(error.fields).toEqual({
      prenom: 'Le prénom est obligatoire.',
      email: "L’adresse e-mail est obligatoire.",
      motivations: 'Les motivations sont obligatoires.',
    });
    const count = await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013missing01').execute();
    expect(count).toHaveLength(0);
  });

  it('refuses wrong values field by field', async () => {
    const res = await create(
      demande({ email: 'pas-une-adresse', nombreDEnfants: 12, situationFamiliale: 'inconnue', quartierSouhaite: ['mars'], numeroUnique: '01' }),
    );
    expect(res.statusCode).toBe(400);
    const { fields } = res.json().error;
    expect(fields.email).toBe("L’adresse e-mail n’est pas valide.");
    expect(fields.nombreDEnfants).toBe("Le nombre d’enfants va de 0 à 7.");
    expect(fields.situationFamiliale).toBe('La situation familiale : choix invalide.');
    expect(fields.quartierSouhaite).toBe('Le quartier souhaité : choix invalide.');
    expect(fields.numeroUnique).toBe('Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.');
  });

  it('answers 400 in French for a body that is not JSON, never a 500', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', headers: { 'content-type': 'application/json' }, payload: '{"prenom":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe("Le contenu envoyé n’est pas un JSON valide.");
    const arr = await create([1, 2]);
    expect(arr.statusCode).toBe(400);
  });

  it('answers 409 with the spec message for an existing numéro, whatever its spacing or case', async () => {
    expect((await create(demande({ numeroUnique: '013dup000001' }))).statusCode).toBe(201);
    const res = await create(demande({ numeroUnique: '013 DUP 000001', prenom: 'Autre' }));
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'DUPLICATE', message: 'Une demande existe déjà pour ce numéro unique !' });
    const row = await ctx.app.deps.db.selectFrom('housingRequests').selectAll().where('numeroUnique', '=', '013dup000001').executeTakeFirstOrThrow();
    expect(row.prenom).toBe('Hélène');
  });

  it('lets exactly one of many parallel creations of one numéro win', async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => create(demande({ numeroUnique: '013race000001', prenom: `P${i}` }))),
    );
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(24);
    const rows = await ctx.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013race000001').execute();
    expect(rows).toHaveLength(1);
    const events = await ctx.app.deps.db.selectFrom('statusEvents').select('id').where('housingRequestId', '=', rows[0]!.id).execute();
    expect(events).toHaveLength(1);
  });
});

describe('GET /logement/:numeroUnique', () => {
  let key: string;
  beforeAll(async () => {
    key = (await create(demande({ numeroUnique: '013view000001', numeroDeTelephone: '0612345678' }))).json().data.accessKey;
  });

  it('gives anyone the status only', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013view000001' });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toEqual({
      acces: 'statut',
      numeroUnique: '013view000001',
      statutDeLaDemande: 'En attente des documents',
      dateDEnregistrement: expect.any(String),
    });
    expect(res.body).not.toContain('0612345678');
    expect(res.body).not.toContain('helene');
  });

  it('refuses the full view with a wrong key', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013view000001', headers: { 'x-access-key': `${key.slice(0, -2)}xx` } });
    expect(res.json().data.acces).toBe('statut');
    expect(res.body).not.toContain('0612345678');
  });

  it('refuses the full view with another request’s key', async () => {
    const other = (await create(demande({ numeroUnique: '013view000002' }))).json().data.accessKey;
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013view000001', headers: { 'x-access-key': other } });
    expect(res.json().data.acces).toBe('statut');
  });

  it('gives the full view to the holder of the private key, numéro normalised from the path', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013%20VIEW%20000001', headers: { 'x-access-key': key } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ acces: 'complet', numeroDeTelephone: '0612345678', nom: 'Martin' });
  });

  it('answers 404 with the spec message', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013absent0001' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe("Il n’existe pas de demande de logement pour ce numéro unique");
  });

  it('answers 400 for a numéro outside 6 to 32 letters and digits', async () => {
    for (const bad of ['12345', 'a'.repeat(33), '013-456-789', '013é45678']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/app/api/logement/${encodeURIComponent(bad)}` });
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error.message).toBe('Le numéro unique doit contenir de 6 à 32 lettres ou chiffres.');
    }
  });

  it('answers a French 404 for unknown API paths', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/nimporte/quoi' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe("Cette adresse de l’API n’existe pas.");
  });
});

describe('security headers', () => {
  it('sends CSP, nosniff and no-referrer on every answer, without HSTS over plain HTTP', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/app/api/logement/013absent0001' });
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});
