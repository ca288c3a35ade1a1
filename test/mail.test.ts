import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, demande, type TestContext } from './helpers.js';

// A real SMTP server on loopback: the mail goes through nodemailer's SMTP transport, not a file.
const received: { to: string[]; raw: string }[] = [];
let smtp: SMTPServer;
let ctx: TestContext;

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const port = (smtp.server.address() as AddressInfo).port;
  ctx = await createTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Mairie annexe <mairie@example.org>' });
});
afterAll(async () => {
  await ctx.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

it('sends the private link through SMTP when SMTP_URL is set', async () => {
  const res = await ctx.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013smtp00001', email: 'Smtp@Example.org' }) });
  expect(res.statusCode).toBe(201);
  await ctx.app.deps.mailer.idle();
  expect(received).toHaveLength(1);
  expect(received[0]!.to).toEqual(['smtp@example.org']);
  expect(received[0]!.raw).toContain('From: Mairie annexe <mairie@example.org>');
  const unfolded = received[0]!.raw.replace(/=\r?\n/gu, '').replace(/=3D/gu, '=');
  expect(unfolded).toContain(res.json().data.privateLink);
});

it('keeps the request when the mail server is down (the failure is only logged)', async () => {
  const down = await createTestApp({ SMTP_URL: 'smtp://127.0.0.1:9' });
  try {
    const res = await down.app.inject({ method: 'POST', url: '/app/api/logement', payload: demande({ numeroUnique: '013smtp00002' }) });
    expect(res.statusCode).toBe(201);
    await down.app.deps.mailer.idle();
    const row = await down.app.deps.db.selectFrom('housingRequests').select('id').where('numeroUnique', '=', '013smtp00002').executeTakeFirst();
    expect(row).toBeDefined();
  } finally {
    await down.close();
  }
});
